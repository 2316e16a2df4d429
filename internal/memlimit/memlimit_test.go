package memlimit

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestLimit(t *testing.T) {
	fixed := Policy{Floor: 24 << 20, Headroom: 6 << 20}
	// with a share, the headroom grows with the live heap past the fixed one
	shared := Policy{Floor: 32 << 20, Headroom: 8 << 20, Share: 4}
	for _, tc := range []struct {
		p           Policy
		live, other uint64
		want        int64
	}{
		{fixed, 2 << 20, 1 << 20, 24 << 20},
		{fixed, 16 << 20, 2 << 20, 24 << 20},
		{fixed, 18 << 20, 1 << 20, 25 << 20},
		{fixed, 22 << 20, 8 << 20, 36 << 20},
		{shared, 16 << 20, 2 << 20, 32 << 20},
		{shared, 30 << 20, 2 << 20, 40 << 20},
		{shared, 128 << 20, 4 << 20, 164 << 20},
	} {
		if got := Limit(tc.p, tc.live, tc.other); got != tc.want {
			t.Errorf("Limit(%v, %d, %d) = %d, want %d", tc.p, tc.live, tc.other, got, tc.want)
		}
	}
}

// With more live data than the base, the limit rises above it after a
// collection (so the collector does not run without rest), and comes back
// to the base once the data is gone.
func TestKeepFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const base = 8 << 20
	Keep(Policy{Floor: base, Headroom: base / 4})
	live := make([]byte, 32<<20)
	for i := range live {
		live[i] = byte(i)
	}
	limitAfterGCs := func(done func(int64) bool) int64 {
		cur := debug.SetMemoryLimit(-1)
		for i := 0; i < 200 && !done(cur); i++ {
			runtime.GC()
			runtime.Gosched()
			cur = debug.SetMemoryLimit(-1)
		}
		return cur
	}
	if got := limitAfterGCs(func(l int64) bool { return l >= 32<<20+base/4 }); got < 32<<20+base/4 {
		t.Fatalf("limit %d MiB with 32 MiB live, want at least %d", got>>20, (32<<20+base/4)>>20)
	}
	runtime.KeepAlive(live)
	if got := limitAfterGCs(func(l int64) bool { return l < 16<<20 }); got >= 16<<20 {
		t.Fatalf("limit %d MiB with the data gone, want it back near %d", got>>20, base>>20)
	}
}
