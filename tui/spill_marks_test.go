package tui

import (
	"context"
	"os"
	"testing"

	"correx/formatters"
	"correx/internal/fixtures"
	"correx/model"
	"correx/sessions"
)

// The spill viewer marks exactly the seen ranges: on every spill file of
// every fixture of every agent, each line's gutter mark is what the bytes
// of the placed seen ranges say of it (▌ all of the line, ▖ some of it,
// nothing when none), computed here from the file itself.
func TestSpillViewMarksExactlyTheSeenRanges(t *testing.T) {
	files, marked := 0, 0
	for _, f := range fixtures.All(t) {
		st, err := sessions.Open(f.Source)
		if err != nil {
			t.Fatalf("%s: %v", f.ID(), err)
		}
		list, _ := st.List(context.Background())
		for _, info := range list {
			s, err := st.Load(context.Background(), info.ID)
			if err != nil {
				t.Fatalf("%s: %v", info.ID, err)
			}
			for _, ref := range s.ToolCalls() {
				tr := formatters.Visible(ref.Call, sessions.SpillsFor(s.Info)).Truncation
				if tr == nil || tr.SpillFound == "" {
					continue
				}
				b, err := os.ReadFile(tr.SpillFound)
				if err != nil {
					t.Fatal(err)
				}
				sv := newSpillView(&app{st: NewStyles(true)}, ref.Call.Tool, tr)
				files++
				marked += checkMarks(t, f.ID()+" "+ref.Call.CallID, b, tr, sv)
			}
		}
		st.Close()
	}
	if files == 0 {
		t.Fatal("no fixture has a spill file")
	}
	t.Logf("%d spill files, %d lines marked", files, marked)
}

func checkMarks(t *testing.T, name string, b []byte, tr *model.Truncation, sv *spillView) int {
	t.Helper()
	var ranges []model.Span
	for _, r := range tr.Seen {
		if r.Placed {
			ranges = append(ranges, *r.Bytes)
		}
	}
	covered := func(start, end int) (all, some bool) {
		n := 0
		for _, r := range ranges {
			n += max(0, min(end, r.End)-max(start, r.Start))
		}
		return n == end-start, n > 0
	}
	marked := 0
	for line, start := 1, 0; start < len(b); line++ {
		end := start
		for end < len(b) && b[end] != '\n' {
			end++
		}
		var want rune
		all, some := covered(start, end)
		if end == start { // an empty line: seen when its newline is
			all, some = covered(start, start+1)
		}
		switch {
		case all:
			want = '▌'
		case some:
			want = '▖'
		}
		if got := sv.tv.seen(line - 1); got != want {
			t.Errorf("%s: line %d marked %q, its bytes say %q", name, line, got, want)
			return marked
		}
		if want != 0 {
			marked++
		}
		start = end + 1
	}
	return marked
}

// A cut inside a line (v2's byte stage: the head ends and the tail starts
// in line 3) marks line 3 as seen in part, once, not as two runs.
func TestSeenTextOfALineCutInside(t *testing.T) {
	tr := &model.Truncation{Seen: []model.SeenRange{
		{Placed: true, Lines: &model.LineRange{First: 1, Last: 3}, PartialLast: true},
		{Placed: true, Lines: &model.LineRange{First: 3, Last: 8}, PartialFirst: true},
		{Lines: &model.LineRange{First: 9, Last: 9}}, // not placed: not marked
	}}
	marks, unplaced := seenMarks(tr)
	if got := seenText(marks); got != "lines 1–2, part of line 3 and lines 4–8" || unplaced != 1 {
		t.Errorf("%q, %d unplaced", got, unplaced)
	}
	if markOf(marks, 3) != '▖' || markOf(marks, 2) != '▌' || markOf(marks, 9) != 0 {
		t.Errorf("marks %v", marks)
	}
}
