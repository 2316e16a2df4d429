package tui

import (
	"os"
	"runtime"
	"runtime/metrics"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"correx/internal/memlimit"
	"correx/sessions"
)

// Benchmarks of what the user waits for, on the demo fixture and, when
// CORREX_BENCH_BIG names a store written by testdata/gen (go run
// ./testdata/gen -calls 5000 -mb 250 -out DIR), on that store's biggest
// session. testdata/gen/bench.sh runs them and reports medians and peak RSS.
//
//	go test ./tui -run '^$' -bench . -count 5
//	CORREX_BENCH_BIG=/tmp/big go test ./tui -run '^$' -bench . -count 5
//
// Both drive the root model synchronously through the test harness: every
// returned tea.Cmd is run and its message fed back into Update (spinner
// ticks are dropped), so a measured operation ends when the model has
// nothing left to do, then View composes the frame.

const (
	benchDemo = "../testdata/opencode/anthropic/data"
	benchW    = 120
	benchH    = 40
)

func benchBig(b *testing.B) (string, bool) {
	dir := os.Getenv("CORREX_BENCH_BIG")
	if dir == "" {
		return "", false
	}
	if _, err := os.Stat(dir); err != nil {
		b.Fatalf("CORREX_BENCH_BIG=%s: %v", dir, err)
	}
	return dir, true
}

// asInspector gives the process the soft memory limit main gives the
// inspector (memlimit.Keep): what the user waits for includes the
// collections it makes (a pane of a 5,000-call session took twice as long
// under it as without).
var asInspector = sync.OnceFunc(func() { memlimit.Keep(memlimit.Inspector) })

// runOn runs f as a sub-benchmark on the demo fixture and on the big store
// (skipped with a message when CORREX_BENCH_BIG is unset), under the
// inspector's memory limit.
func runOn(b *testing.B, f func(b *testing.B, dir string)) {
	asInspector()
	b.Run("demo", func(b *testing.B) { f(b, benchDemo) })
	b.Run("big", func(b *testing.B) {
		dir, ok := benchBig(b)
		if !ok {
			b.Skip("CORREX_BENCH_BIG is unset: generate a store with `go run ./testdata/gen -calls 5000 -mb 250 -out DIR` and set CORREX_BENCH_BIG=DIR")
		}
		f(b, dir)
	})
}

// biggestSession returns the id of the top-level session with the most
// tool calls in dir.
func biggestSession(b *testing.B, dir string) string {
	s, err := sessions.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	infos, err := s.List(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	sort.SliceStable(infos, func(i, j int) bool { return infos[i].ToolCalls > infos[j].ToolCalls })
	for _, in := range infos {
		if in.ParentID == "" {
			return in.ID
		}
	}
	b.Fatalf("no top-level session in %s", dir)
	return ""
}

// openFirstFrame opens the store, opens session id as `correx --session
// ID` does and composes the first frame: the session view with its first
// call's pane rendered. The model's Cmds run concurrently as Bubble Tea
// runs them (the session list, a lazy session's further pages), and the
// first frame is the first one after a message that leaves the view
// rendered and waiting for nothing. finish waits for the Cmds still
// running, outside the timer: with apply, their messages (and everything
// they lead to) go into the model, else they are dropped.
func openFirstFrame(b *testing.B, dir, id string) (h *harness, s sessions.Store, frame string, finish func(apply bool)) {
	return openUntil(b, dir, id, func(m Model) bool {
		v := m.current()
		return v != nil && !m.busy() && len(v.need) == 0 && v.needDetail == nil
	})
}

// openUntil opens the store as `correx [--session ID]` does and composes
// the first frame after a message that leaves ready true.
func openUntil(b *testing.B, dir, id string, ready func(Model) bool) (h *harness, s sessions.Store, frame string, finish func(apply bool)) {
	d, s := openDriver(b, dir, id)
	d.until(ready)
	return d.h, s, d.h.m.View().Content, d.finish
}

// benchDriver runs a model as the program does: each Cmd in a goroutine,
// their messages into Update in the order they come.
type benchDriver struct {
	h        *harness
	ch       chan tea.Msg
	inflight atomic.Int64 // commands whose message is not in ch yet
}

// openDriver opens the store as `correx [--session ID]` does and starts
// the model's Init.
func openDriver(b *testing.B, dir, id string) (*benchDriver, sessions.Store) {
	s, err := sessions.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	m := New(Options{Stores: []sessions.Store{s}, SessionID: id})
	m.now = func() time.Time { return fakeNow }
	m.picker.now = m.now
	d := &benchDriver{h: &harness{t: b, m: m}, ch: make(chan tea.Msg, 1<<12)}
	nm, _ := d.h.m.Update(tea.WindowSizeMsg{Width: benchW, Height: benchH})
	d.h.m = nm.(Model)
	d.start(d.h.m.Init())
	return d, s
}

func (d *benchDriver) start(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	d.inflight.Add(1)
	go func() {
		defer d.inflight.Add(-1)
		d.ch <- cmd()
	}()
}

// handle puts one message into the model (apply) or drops it.
func (d *benchDriver) handle(msg tea.Msg, apply bool) {
	switch msg := msg.(type) {
	case nil, spinner.TickMsg, liveTickMsg, tea.QuitMsg:
	case tea.BatchMsg:
		for _, c := range msg {
			d.start(c)
		}
	default:
		if apply {
			nm, cmd := d.h.m.Update(msg)
			d.h.m = nm.(Model)
			d.start(cmd)
		}
	}
}

// until handles messages until ready is true.
func (d *benchDriver) until(ready func(Model) bool) {
	for !ready(d.h.m) {
		d.handle(<-d.ch, true)
	}
}

// key sends a key press and starts the Cmd it gives.
func (d *benchDriver) key(k string) {
	nm, cmd := d.h.m.Update(keyMsg(k))
	d.h.m = nm.(Model)
	d.start(cmd)
}

// finalScreen handles messages until settled and returns how long after
// start the pane's text on screen (paneText) took its settled form: the
// time of the frame after the last message that changed it, or of the
// first frame when none did.
func (d *benchDriver) finalScreen(start time.Time, settled func(Model) bool) time.Duration {
	at, last := time.Since(start), paneText(d.h.m)
	for !settled(d.h.m) {
		d.handle(<-d.ch, true)
		if t := paneText(d.h.m); t != last {
			at, last = time.Since(start), t
		}
	}
	return at
}

// paneText is the text on screen of the session view's pane: the pane's
// component's view, without its title and header lines.
func paneText(m Model) string {
	v := m.current()
	if v == nil {
		return ""
	}
	if v.pane == paneCompare {
		return v.cmp.View()
	}
	return v.views[v.pane].View()
}

// finish waits for the Cmds still running: with apply, their messages
// (and everything they lead to) go into the model, else they are dropped.
func (d *benchDriver) finish(apply bool) {
	for {
		select {
		case msg := <-d.ch:
			d.handle(msg, apply)
		case <-time.After(time.Millisecond):
			if d.inflight.Load() == 0 && len(d.ch) == 0 {
				return
			}
		}
	}
}

// liveHeap reports the heap still in use (after a GC) while keep is alive.
func liveHeap(b *testing.B, keep any) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-MB")
	runtime.KeepAlive(keep)
}

// BenchmarkFirstFrame: from opening the store to the first full frame of
// the session view with the first call's pane rendered.
func BenchmarkFirstFrame(b *testing.B) { benchOpen(b, false) }

// BenchmarkAllPages: from opening the store to every outline page of a
// lazy session read and in the call list (live-MB: the heap then, which
// grows with the calls as the outline is held whole).
func BenchmarkAllPages(b *testing.B) { benchOpen(b, true) }

// benchOpen opens the biggest session to its first frame, and with all
// to its last page.
func benchOpen(b *testing.B, all bool) {
	runOn(b, func(b *testing.B, dir string) {
		id := biggestSession(b, dir)
		b.ReportAllocs()
		var h *harness
		for b.Loop() {
			var s sessions.Store
			var frame string
			var finish func(bool)
			h, s, frame, finish = openFirstFrame(b, dir, id)
			if frame == "" {
				b.Fatal("empty frame")
			}
			if all {
				finish(true)
			}
			b.StopTimer()
			finish(false)
			s.Close()
			b.StartTimer()
		}
		b.StopTimer()
		liveHeap(b, h)
	})
}

// BenchmarkKeypress: `j` in the call list of a loaded session (the next
// call's pane is rendered) to the next frame. At the last call the
// selection goes back to the first, outside the timer.
func BenchmarkKeypress(b *testing.B) {
	runOn(b, func(b *testing.B, dir string) {
		id := biggestSession(b, dir)
		h, s, _, finish := openFirstFrame(b, dir, id)
		finish(true) // every page read
		defer s.Close()
		v := h.m.current()
		if len(v.list.rows) < 2 {
			b.Skipf("session %s has fewer than 2 calls", id)
		}
		b.ReportAllocs()
		for b.Loop() {
			if v.list.sel >= len(v.list.rows)-1 {
				b.StopTimer()
				v.list.Select(0)
				h.send(nil)
				b.StartTimer()
			}
			before := v.list.sel
			h.key("j")
			if v.list.sel == before || len(v.need) > 0 || v.needDetail != nil {
				b.Fatalf("j did not move to a rendered call (at %d)", before)
			}
			if h.m.View().Content == "" {
				b.Fatal("empty frame")
			}
		}
		b.StopTimer()
		liveHeap(b, h)
	})
}

// BenchmarkPickerFirstFrame: from opening the store to the session
// picker's first frame with the sessions listed (a quick list, its counts
// still coming, when the store can give one), on the store named by
// CORREX_BENCH_PICKER (go run ./testdata/gen -sessions 2000 -calls 10 -mb
// 0.02 -out DIR). BenchmarkPickerCounted: until the counts are in.
func BenchmarkPickerFirstFrame(b *testing.B) {
	benchPicker(b, func(m Model) bool { return !m.picker.loading })
}

func BenchmarkPickerCounted(b *testing.B) {
	benchPicker(b, func(m Model) bool { return !m.picker.loading && !m.picker.counting })
}

func benchPicker(b *testing.B, done func(Model) bool) {
	dir := os.Getenv("CORREX_BENCH_PICKER")
	if dir == "" {
		b.Skip("CORREX_BENCH_PICKER is unset: generate a store with `go run ./testdata/gen -sessions 2000 -calls 10 -mb 0.02 -out DIR`")
	}
	asInspector()
	b.ReportAllocs()
	for b.Loop() {
		h, s, frame, finish := openUntil(b, dir, "", done)
		if frame == "" || len(h.m.picker.all) == 0 {
			b.Fatal("empty picker")
		}
		b.StopTimer()
		finish(false)
		s.Close()
		b.StartTimer()
	}
}

// BenchmarkPanes: from the key that opens the Request (4), Compare (5) or
// Pipeline (6) pane on the session's last call, all pages read and
// nothing cached, to the pane's first screen (first) and to everything it
// waits for being in (settled); rested: to the first screen when the list
// rested on the call before the key, long enough for what is warmed
// unasked (convCache.warm) to be in.
//
// The first screen is the first frame from which the pane's text on
// screen no longer changes until it settles (paneText): the screen the
// user reads, final. Pipeline shows its first stages before the wire's
// is rendered, Request the first lines of a request still being written;
// the header lines that say so, and the title's line count, change after.
func BenchmarkPanes(b *testing.B) {
	defer func(d time.Duration) { warmAfter = d }(warmAfter)
	warmAfter = defaultWarmAfter
	runOn(b, func(b *testing.B, dir string) {
		id := biggestSession(b, dir)
		shown := func(m Model) bool {
			v := m.current()
			return v != nil && len(v.need) == 0 && v.needDetail == nil
		}
		settled := func(m Model) bool { return shown(m) && !m.busy() }
		for _, pane := range []struct{ name, key string }{{"request", "4"}, {"compare", "5"}, {"pipeline", "6"}} {
			for _, until := range []string{"first", "settled", "rested"} {
				b.Run(pane.name+"/"+until, func(b *testing.B) {
					var took time.Duration
					n := 0
					for b.Loop() {
						b.StopTimer()
						d, s := openDriver(b, dir, id)
						d.until(shown)
						d.finish(true) // every page read
						d.key("G")     // the last call
						d.until(settled)
						if until == "rested" {
							d.finish(true) // the rest timed, and what it warms
						}
						b.StartTimer()
						start := time.Now()
						d.key(pane.key)
						if until == "settled" {
							d.until(settled)
						} else {
							took += d.finalScreen(start, settled)
							n++
						}
						b.StopTimer()
						d.finish(false)
						s.Close()
						b.StartTimer()
					}
					if n > 0 {
						b.ReportMetric(float64(took.Nanoseconds())/float64(n), "ns/op")
					}
				})
			}
		}
	})
}

// BenchmarkPaneKeys: a key pressed in the Request (4), Compare (5) or
// Pipeline (6) pane of the session's last call, everything it waited for
// in, to the next frame (the Cmd the key gives, a provider's
// conversation, starts after the frame, outside the timer): the scroll keys
// j, G and f (page down) in the focused pane, after g outside the timer;
// p and P (the provider, Compare's other side) from the call list.
func BenchmarkPaneKeys(b *testing.B) {
	runOn(b, func(b *testing.B, dir string) {
		id := biggestSession(b, dir)
		settled := func(m Model) bool {
			v := m.current()
			return v != nil && len(v.need) == 0 && v.needDetail == nil && !m.busy()
		}
		for _, pane := range []struct{ name, key string }{{"request", "4"}, {"compare", "5"}, {"pipeline", "6"}} {
			d, s := openDriver(b, dir, id)
			d.until(settled)
			d.finish(true) // every page read
			d.key("G")     // the last call
			d.key(pane.key)
			d.until(settled)
			for _, k := range []struct {
				name, key, reset string
				pane             bool
			}{{"j", "j", "g", true}, {"G", "G", "g", true}, {"pgdn", "f", "g", true}, {"p", "p", "", false}, {"P", "P", "", false}} {
				b.Run(pane.name+"/"+k.name, func(b *testing.B) {
					v := d.h.m.current()
					if k.pane && v.focus != focusPane {
						d.key("l")
					} else if !k.pane && v.focus == focusPane {
						d.key("esc")
					}
					d.until(settled)
					if k.pane != (v.focus == focusPane) {
						b.Fatal("cannot move the focus")
					}
					b.ReportAllocs()
					for b.Loop() {
						b.StopTimer()
						if k.reset != "" {
							d.key(k.reset)
						}
						d.until(settled)
						b.StartTimer()
						nm, cmd := d.h.m.Update(keyMsg(k.key))
						d.h.m = nm.(Model)
						if d.h.m.View().Content == "" {
							b.Fatal("empty frame")
						}
						b.StopTimer()
						d.start(cmd)
						b.StartTimer()
					}
					b.StopTimer()
					d.until(settled)
				})
			}
			d.finish(false)
			s.Close()
		}
	})
}

// BenchmarkHugeOutput: the call with the largest output of the session in
// the store named by CORREX_BENCH_HUGE (one huge output: go run
// ./testdata/gen -calls 20 -mb 47 -out DIR, shown whole; with -agent
// claude-code it is spilled) shown in Model sees (2), Wire (3), Request
// (4), Pipeline (6) and the spill viewer (o), from a freshly opened
// session to everything in: peak-MB is the largest heap seen meanwhile
// (sampled every millisecond), live-MB the heap kept after. The runtime's
// soft memory limit is main's.
func BenchmarkHugeOutput(b *testing.B) {
	dir := os.Getenv("CORREX_BENCH_HUGE")
	if dir == "" {
		b.Skip("CORREX_BENCH_HUGE is unset: generate a store with `go run ./testdata/gen -calls 20 -mb 47 -out DIR`")
	}
	asInspector()
	id := biggestSession(b, dir)
	settled := func(m Model) bool {
		v := m.current()
		return v != nil && len(v.need) == 0 && v.needDetail == nil && !m.busy() && (m.spill == nil || !m.spill.loading)
	}
	for _, view := range []struct{ name, key string }{{"sees", "2"}, {"wire", "3"}, {"request", "4"}, {"pipeline", "6"}, {"spill", "o"}} {
		b.Run(view.name, func(b *testing.B) {
			var d *benchDriver
			var peak uint64
			for b.Loop() {
				b.StopTimer()
				var s sessions.Store
				d, s = openDriver(b, dir, id)
				d.until(settled)
				d.finish(true)
				v := d.h.m.current()
				big, size := 0, int64(-1)
				for i, r := range v.list.rows {
					ci := r.info()
					n := int64(max(ci.call().OutputBytes, len(ci.call().Output)))
					if view.key == "o" { // the largest spill file
						v.list.Select(i) // its result read
						d.h.send(nil)
						d.until(settled)
						n = -1
						if t := ci.vis.Truncation; t != nil && t.SpillPath != "" && t.FullBytes != nil {
							n = int64(*t.FullBytes)
						}
					}
					if n > size {
						big, size = i, n
					}
				}
				if view.key == "o" && size < 0 {
					b.Skip("no output of the session has a spill file")
				}
				d.key("1") // a small pane while the list moves
				v.list.Select(big)
				d.h.send(nil)
				d.until(settled)
				runtime.GC()
				stop := samplePeak(&peak)
				b.StartTimer()
				d.key(view.key)
				d.until(func(m Model) bool { return settled(m) && (view.key != "o" || m.spill != nil) })
				b.StopTimer()
				stop()
				d.finish(true)
				liveHeap(b, d.h)
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
		})
	}
}

// samplePeak records in peak the largest heap (objects' bytes) seen until
// stop is called.
func samplePeak(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
