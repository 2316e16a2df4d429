package tui

import (
	"os"
	"runtime"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

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

// runOn runs f as a sub-benchmark on the demo fixture and on the big store
// (skipped with a message when CORREX_BENCH_BIG is unset).
func runOn(b *testing.B, f func(b *testing.B, dir string)) {
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
	s, err := sessions.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	m := New(Options{Stores: []sessions.Store{s}, SessionID: id})
	m.now = func() time.Time { return fakeNow }
	m.picker.now = m.now
	h = &harness{t: b, m: m}
	nm, _ := h.m.Update(tea.WindowSizeMsg{Width: benchW, Height: benchH})
	h.m = nm.(Model)
	ch := make(chan tea.Msg, 1<<12)
	var inflight atomic.Int64 // commands whose message is not in ch yet
	var start func(cmd tea.Cmd)
	start = func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		inflight.Add(1)
		go func() {
			defer inflight.Add(-1)
			ch <- cmd()
		}()
	}
	start(h.m.Init())
	for !ready(h.m) {
		switch msg := (<-ch).(type) {
		case nil, spinner.TickMsg, liveTickMsg, tea.QuitMsg:
		case tea.BatchMsg:
			for _, c := range msg {
				start(c)
			}
		default:
			nm, cmd := h.m.Update(msg)
			h.m = nm.(Model)
			start(cmd)
		}
	}
	frame = h.m.View().Content
	finish = func(apply bool) {
		for {
			select {
			case msg := <-ch:
				switch msg := msg.(type) {
				case nil, spinner.TickMsg, liveTickMsg, tea.QuitMsg:
				case tea.BatchMsg:
					for _, c := range msg {
						start(c)
					}
				default:
					if apply {
						nm, cmd := h.m.Update(msg)
						h.m = nm.(Model)
						start(cmd)
					}
				}
			case <-time.After(time.Millisecond):
				if inflight.Load() == 0 && len(ch) == 0 {
					return
				}
			}
		}
	}
	return h, s, frame, finish
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
func BenchmarkFirstFrame(b *testing.B) {
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
