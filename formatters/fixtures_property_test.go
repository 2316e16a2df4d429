package formatters_test

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"correx/formatters"
	"correx/internal/fixtures"
	"correx/model"
	"correx/sessions"
)

// The truncation facts, stated as properties over every call of every
// recorded fixture of every agent: the model-visible text splits exactly
// into markers, seen ranges and added pieces; what the model saw is no more
// than the full output; every seen range of a call whose spill file is
// there is placed in it, byte for byte and in order; and correx flags a
// truncation exactly when the agent's own record says it cut.
func TestTruncationFactsOnEveryFixture(t *testing.T) {
	kinds, placed := map[model.TruncationKind]int{}, 0
	for _, f := range fixtures.All(t) {
		st, err := sessions.Open(f.Source)
		if err != nil {
			t.Fatalf("%s: %v", f.ID(), err)
		}
		list, err := st.List(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", f.ID(), err)
		}
		for _, info := range list {
			s, err := st.Load(context.Background(), info.ID)
			if err != nil {
				t.Fatalf("%s %s: %v", f.ID(), info.ID, err)
			}
			flaggedN, detectedN := 0, 0
			for _, m := range s.Messages {
				for _, p := range m.Parts {
					if p.Tool == nil {
						continue
					}
					name := f.ID() + " " + p.Tool.Tool + " " + p.Tool.CallID
					v := formatters.Visible(p.Tool, sessions.SpillsFor(s.Info))
					flagged := formatters.AgentFlagged(p.Tool)
					checkFlag(t, name, flagged, v.Truncation)
					if flagged != nil && *flagged {
						flaggedN++
					}
					if v.Truncation == nil {
						continue
					}
					detectedN++
					kinds[v.Truncation.Kind]++
					placed += checkFacts(t, name, v.Text, v.Truncation, os.ReadFile)
				}
			}
			// the session list counts one way or the other, and says which
			want := map[string]int{"flagged": flaggedN, "detected": detectedN}[info.TruncatedBy()]
			if info.Truncated != want {
				t.Errorf("%s %s: the list counts %d truncated calls (%s), the calls say %d", f.ID(), info.ID, info.Truncated, info.TruncatedBy(), want)
			}
		}
		st.Close()
	}
	names := make([]string, 0, len(kinds))
	for k, n := range kinds {
		names = append(names, string(k)+" "+strconv.Itoa(n))
	}
	sort.Strings(names)
	t.Logf("truncated calls checked per kind: %s; seen ranges placed in spill files: %d", strings.Join(names, ", "), placed)
}

// checkFlag: an agent that records whether it cut agrees with correx.
// opencode's read does not flag a line it cut to 2000 characters
// (read.ts: truncated = more || cut, the byte cap), so a read-line
// truncation alone is detected but not flagged.
func checkFlag(t *testing.T, name string, flagged *bool, tr *model.Truncation) {
	t.Helper()
	switch {
	case flagged == nil:
	case *flagged && tr == nil:
		t.Errorf("%s: the agent flagged a truncation correx does not detect", name)
	case !*flagged && tr != nil && tr.Kind != model.TruncReadLine:
		t.Errorf("%s: correx detects a %s truncation the agent did not flag", name, tr.Kind)
	}
}

// checkFacts checks one truncation's facts and returns how many seen
// ranges were placed in the spill file.
func checkFacts(t *testing.T, name, text string, tr *model.Truncation, readFile func(string) ([]byte, error)) int {
	t.Helper()
	type piece struct {
		span model.Span
		what string
	}
	var all []piece
	for _, m := range tr.Markers {
		all = append(all, piece{m, "marker"})
	}
	for _, a := range tr.Added {
		all = append(all, piece{a.Span, "added " + a.What})
	}
	for _, r := range tr.Seen {
		all = append(all, piece{r.Text, "seen"})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].span.Start < all[j].span.Start })
	at := 0
	for _, p := range all {
		if p.span.Start != at || p.span.End <= p.span.Start || p.span.End > len(text) {
			t.Errorf("%s: %s at %d–%d: the pieces must cover the text exactly, next expected at %d (text %d bytes)", name, p.what, p.span.Start, p.span.End, at, len(text))
			return 0
		}
		at = p.span.End
	}
	if at != len(text) {
		t.Errorf("%s: the pieces end at %d of %d bytes", name, at, len(text))
	}
	if len(tr.Markers) == 0 {
		t.Errorf("%s: a truncation without a marker", name)
	}

	fullLines, fullBytes := tr.Full()
	if (fullLines < 0 || fullBytes < 0) && tr.FullUnknown == "" {
		t.Errorf("%s: full size unknown without a reason", name)
	}
	if fullLines >= 0 && tr.SeenLines > fullLines || fullBytes >= 0 && tr.SeenBytes > fullBytes {
		t.Errorf("%s: saw %d lines / %d bytes of %d / %d", name, tr.SeenLines, tr.SeenBytes, fullLines, fullBytes)
	}
	// nothing seen of a spilled output only when the tail opencode's bash
	// kept was empty (one last line over the byte cap)
	if tr.SpillFound != "" && len(tr.Seen) == 0 && !(tr.Kind == model.TruncBashTail && len(tr.Added) == 1 && text[tr.Added[0].Start:] == "(no output)") {
		t.Errorf("%s: a spill file and nothing seen", name)
	}

	placed, lastEnd := 0, 0
	var spill []byte
	for _, r := range tr.Seen {
		piece := text[r.Text.Start:r.Text.End]
		if r.Numbered {
			checkNumbered(t, name, piece, r)
			continue
		}
		if r.JSONString {
			var content string
			if err := json.Unmarshal([]byte(`"`+piece+`"`), &content); err != nil || r.Lines == nil || r.Lines.Last-r.Lines.First+1 != max(formatters.CountLines(content), 1) {
				t.Errorf("%s: a JSON string range %d–%d that is not its lines %+v (%v)", name, r.Text.Start, r.Text.End, r.Lines, err)
			}
			continue
		}
		if tr.SpillFound == "" {
			continue
		}
		if !r.Placed {
			t.Errorf("%s: seen range %d–%d not placed in its spill file %s", name, r.Text.Start, r.Text.End, tr.SpillFound)
			continue
		}
		if spill == nil {
			var err error
			if spill, err = readFile(tr.SpillFound); err != nil {
				t.Fatal(err)
			}
		}
		if r.Bytes.Start < lastEnd || string(spill[r.Bytes.Start:r.Bytes.End]) != piece {
			t.Errorf("%s: seen range %d–%d is not at %d–%d of the spill file, in order", name, r.Text.Start, r.Text.End, r.Bytes.Start, r.Bytes.End)
		}
		lastEnd = r.Bytes.End
		first := strings.Count(string(spill[:r.Bytes.Start]), "\n") + 1
		last := first + strings.Count(strings.TrimSuffix(piece, "\n"), "\n")
		if r.Lines == nil || *r.Lines != (model.LineRange{First: first, Last: last}) {
			t.Errorf("%s: seen range %d–%d: lines %+v, the spill file says %d–%d", name, r.Text.Start, r.Text.End, r.Lines, first, last)
		}
		startsLine := r.Bytes.Start == 0 || spill[r.Bytes.Start-1] == '\n'
		endsLine := r.Bytes.End == len(spill) || strings.HasSuffix(piece, "\n") || spill[r.Bytes.End] == '\n'
		if r.PartialFirst == startsLine || r.PartialLast == endsLine {
			t.Errorf("%s: seen range %d–%d: partial first %v, last %v", name, r.Text.Start, r.Text.End, r.PartialFirst, r.PartialLast)
		}
		placed++
	}
	return placed
}

// checkNumbered: a read range's lines are numbered from its first line to
// its last, one by one.
func checkNumbered(t *testing.T, name, piece string, r model.SeenRange) {
	t.Helper()
	if r.Lines == nil {
		t.Errorf("%s: read range %d–%d without line numbers", name, r.Text.Start, r.Text.End)
		return
	}
	for i, line := range strings.Split(piece, "\n") {
		if want := strconv.Itoa(r.Lines.First+i) + ": "; !strings.HasPrefix(line, want) {
			t.Errorf("%s: read range line %d does not start %q", name, i, want)
			return
		}
		if r.Lines.First+i > r.Lines.Last {
			t.Errorf("%s: read range runs past line %d", name, r.Lines.Last)
			return
		}
	}
}
