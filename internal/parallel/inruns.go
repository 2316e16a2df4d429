// Package parallel runs a loop over indexes side by side, a reader per
// goroutine.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// InRuns calls read(r, i) for every i in [0, n), on up to a goroutine
// per core, each taking run indexes in a row with a reader of its own
// (newReader, closed by done): a request's records lie one after another,
// so a reader's LinesAt window serves a run of them, and reading and
// skimming thousands of records apart is most of a lowering. After the
// first error no run starts, and it is returned.
func InRuns[R any](n, run int, newReader func() R, read func(r R, i int) error, done func(R)) error {
	if r := int(forcedRun.Load()); r > 0 {
		run = r
	}
	var next atomic.Int64
	var first error
	var once sync.Once
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (n+run-1)/run) {
		wg.Go(func() {
			r := newReader()
			defer done(r)
			for !failed.Load() {
				at := int(next.Add(int64(run))) - run
				if at >= n {
					return
				}
				for i := at; i < min(at+run, n); i++ {
					if err := read(r, i); err != nil {
						once.Do(func() { first = err })
						failed.Store(true)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	return first
}

// forcedRun, when set, is every InRuns' run length (ForceRun).
var forcedRun atomic.Int64

// ForceRun makes every InRuns take runs of n indexes (a test's: at 1, a
// fixture's few records spread over every reader) until restore is
// called.
func ForceRun(n int) (restore func()) {
	old := forcedRun.Swap(int64(n))
	return func() { forcedRun.Store(old) }
}
