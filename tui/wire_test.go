package tui

import (
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExactTextHeldOnce: what exactText is written, in pieces small and
// large, below and past exactMemBytes, comes back whole, allocated about
// once at its size past it (a growing buffer, and a copy of it, held it
// up to three times).
func TestExactTextHeldOnce(t *testing.T) {
	for _, size := range []int{0, 10, exactMemBytes, exactMemBytes + 1, 8 * exactMemBytes} {
		var want strings.Builder
		for i := 0; want.Len() < size; i++ {
			want.WriteString(strings.Repeat(string(rune('a'+i%26)), min(i%5000+1, size-want.Len())))
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := exactText(func(w io.Writer) error {
			for s := want.String(); len(s) > 0; {
				n := min(len(s), 1+len(s)%70000)
				if _, err := io.WriteString(w, s[:n]); err != nil {
					return err
				}
				s = s[n:]
			}
			return nil
		})
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		require.Equal(t, want.String(), got, "size %d", size)
		if size > exactMemBytes {
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(size+3*exactMemBytes), "size %d: bytes allocated", size)
		}
	}
}
