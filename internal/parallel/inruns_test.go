package parallel

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInRuns: every index is read once, by readers each of which is
// closed, and the first error comes back.
func TestInRuns(t *testing.T) {
	for _, n := range []int{0, 1, 31, 32, 33, 1000} {
		seen := make([]atomic.Int32, n)
		var opened, closed atomic.Int32
		err := InRuns(n, 32, func() *int { opened.Add(1); return new(int) }, func(r *int, i int) error {
			*r++
			seen[i].Add(1)
			return nil
		}, func(*int) { closed.Add(1) })
		require.NoError(t, err)
		for i := range seen {
			require.EqualValues(t, 1, seen[i].Load(), "n %d index %d", n, i)
		}
		assert.Equal(t, opened.Load(), closed.Load())
	}
	bad := errors.New("bad")
	err := InRuns(1000, 8, func() int { return 0 }, func(_ int, i int) error {
		if i == 500 {
			return bad
		}
		return nil
	}, func(int) {})
	assert.ErrorIs(t, err, bad)
}

// TestForceRun: a forced run length holds until restored.
func TestForceRun(t *testing.T) {
	restore := ForceRun(1)
	readers := atomic.Int32{}
	require.NoError(t, InRuns(64, 64, func() int { readers.Add(1); return 0 }, func(int, int) error { return nil }, func(int) {}))
	assert.Equal(t, int32(min(runtime.GOMAXPROCS(0), 64)), readers.Load(), "a reader per core, runs of one")
	restore()
	readers.Store(0)
	require.NoError(t, InRuns(64, 64, func() int { readers.Add(1); return 0 }, func(int, int) error { return nil }, func(int) {}))
	assert.Equal(t, int32(1), readers.Load())
}
