//go:build correxprof

package main

import (
	"os"
	"runtime/pprof"

	"correx/internal/memlimit"
)

// init runs the command under a CPU profile written to $CORREX_CPUPROFILE
// (and writes the allocations to $CORREX_MEMPROFILE)
// (built with -tags correxprof only): main exits through os.Exit, which
// would leave the profile unwritten, so the run is made here and the
// profile stopped before exiting.
func init() {
	p := os.Getenv("CORREX_CPUPROFILE")
	if p == "" {
		return
	}
	f, err := os.Create(p)
	if err != nil {
		panic(err)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		memlimit.Keep(memoryLimit(os.Args[1:]))
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	pprof.StopCPUProfile()
	f.Close()
	if m := os.Getenv("CORREX_MEMPROFILE"); m != "" {
		if mf, err := os.Create(m); err == nil {
			pprof.Lookup("allocs").WriteTo(mf, 0)
			mf.Close()
		}
	}
	os.Exit(code)
}
