//go:build correxprof

// Profiling hooks for developers, built only with -tags correxprof:
// CORREX_CPUPROFILE=FILE writes a CPU profile of the whole run;
// CORREX_HEAPPEAK=FILE writes a heap profile each time the live heap
// reaches a new high (by a tenth), so FILE holds it near its peak.
package main

import (
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

func init() {
	if p := os.Getenv("CORREX_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil && pprof.StartCPUProfile(f) == nil {
			exit = func(code int) { pprof.StopCPUProfile(); f.Close(); os.Exit(code) }
		}
	}
	if p := os.Getenv("CORREX_HEAPPEAK"); p != "" {
		runtime.MemProfileRate = 64 << 10
		go heapPeaks(p)
	}
}

func heapPeaks(path string) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	for range time.Tick(20 * time.Millisecond) {
		metrics.Read(s)
		if v := s[0].Value.Uint64(); v > peak+peak/10 {
			peak = v
			runtime.GC() // a heap profile is as of the last collection
			if f, err := os.Create(path); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}
	}
}
