// Package memlimit keeps the Go runtime's soft memory limit above what the
// live data needs. A soft limit makes the collector run sooner as the heap
// nears it, so the transient copies of a large session's outputs do not
// pile up between collections; but once the live data alone passes it, the
// collector runs without rest (up to half the CPU, by the runtime's
// limiter), idle or not: the inspector left open on a 5,000-call Claude
// Code session, whose index is about 30 MB, used 60% of a core doing
// nothing under a fixed 24 MiB limit. So after every collection the limit
// becomes what the runtime holds besides its heap, plus the live heap, plus
// headroom (6 MiB for the inspector, whose live checks then collect once
// every few minutes), never less than a floor: it follows the live data up
// and back down.
package memlimit

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// Policy is how Keep sets the Go runtime's soft memory limit (unless
// GOMEMLIMIT says otherwise): never under Floor, and Headroom above what
// the last collection found live and what the runtime holds besides its
// heap. As the heap nears the limit the collector runs sooner, so the
// transient copies of a large session's outputs (read one at a time) do
// not pile up between collections.
type Policy struct {
	Floor, Headroom int64
	// Share, when not 0, makes the headroom at least live/Share: with a
	// large live heap a fixed headroom makes every few MiB allocated a
	// collection that marks all of it.
	Share int64
}

var (
	// Inspector holds an outline page and the output on screen. A higher
	// floor made the collections of a pane of a 5,000-call session fewer
	// (at 48 MiB, Gemini CLI's Request pane showed in 140 ms, not 200),
	// but raised every TUI's peak RSS by 3 to 8 MB, past the 64 MB the
	// inspector is held to. At 4 MiB of headroom the 50,000-call
	// opencode session's Request pane peaked 3 MB lower, but Codex's
	// 5,000-call Compare pane showed its first screen in 92 ms, not 70.
	Inspector = Policy{Floor: 24 << 20, Headroom: 6 << 20}
	// Command walks every output in turn, each read, decoded and
	// formatted, so a session whose largest outputs are a few MB keeps
	// more of them live for a moment: under the inspector's floor it
	// collected far more often (opencode, 5,000 calls, outputs up to 5.7
	// MB: 204 collections and 2.2 s for `calls`; at 32 MiB, 63 and 1.4 s,
	// peak RSS 54 MB).
	//
	// Its headroom is at least a quarter of the live heap: `wire` of the
	// last step of a 50,000-call opencode session holds its outline and
	// lowered conversation (some 130 MB) while it writes some 230 MB, and
	// with 8 MiB of headroom the collector marked all of it every 8 MiB:
	// 13.3–14.4 s, 202 MB; with a quarter, 8.7–9.3 s, 217–231 MB. Under the
	// floor's 32 MiB of live heap (every 5,000-call session) it changes
	// nothing.
	Command = Policy{Floor: 32 << 20, Headroom: 8 << 20, Share: 4}
)

// Keep sets the soft memory limit to p's floor and adjusts it after every
// collection (Limit).
func Keep(p Policy) {
	debug.SetMemoryLimit(p.Floor)
	arm(p)
}

// arm makes the next collection adjust the limit: the cleanup of an
// object nothing refers to runs after the collection that finds it, and
// arms the next one.
func arm(p Policy) {
	runtime.AddCleanup(new([64]byte), func(p Policy) {
		live, other := usage()
		debug.SetMemoryLimit(Limit(p, live, other))
		arm(p)
	}, p)
}

// Limit is the limit when the last collection left live bytes of heap and
// the runtime holds other bytes outside the heap (stacks, its metadata,
// the heap's unused span tails), all counted against the limit: p's
// floor, or what leaves the heap p's headroom (or live/p.Share, if more)
// to grow beyond live when that is more.
func Limit(p Policy, live, other uint64) int64 {
	head := p.Headroom
	if p.Share > 0 {
		head = max(head, int64(live)/p.Share)
	}
	return max(p.Floor, int64(live+other)+head)
}

// usage is the heap the last collection found live and the memory the
// limit counts besides the heap's objects and free space.
func usage() (live, other uint64) {
	s := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	metrics.Read(s)
	v := make([]uint64, len(s))
	for i := range s {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0, 0
		}
		v[i] = s[i].Value.Uint64()
	}
	if held := v[2] + v[3] + v[4]; v[1] > held {
		other = v[1] - held
	}
	return v[0], other
}
