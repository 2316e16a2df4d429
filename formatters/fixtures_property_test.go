package formatters_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"correx/formatters"
	"correx/internal/fixtures"
	"correx/internal/props"
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
	eachFixtureSession(t, func(f fixtures.Fixture, info model.SessionInfo, s *model.Session) {
		flaggedN, detectedN := 0, 0
		for _, m := range s.Messages {
			for _, p := range m.Parts {
				if p.Tool == nil {
					continue
				}
				name := f.ID() + " " + p.Tool.Tool + " " + p.Tool.CallID
				v := formatters.Visible(p.Tool, sessions.SpillsFor(s.Info))
				if r := formatters.Result(p.Tool); !reflect.DeepEqual(r, v.Result) {
					t.Errorf("%s: Result (what a lowering writes) is %+v, Visible's %+v", name, r, v.Result)
				}
				flagged := formatters.AgentFlagged(p.Tool)
				checkFlag(t, name, flagged, v.Truncation)
				if v.Truncation != nil && fmtFlag(v.Truncation.AgentFlagged) != fmtFlag(flagged) {
					t.Errorf("%s: the truncation says the agent flagged it %s, AgentFlagged (calls, the picker) %s", name, fmtFlag(v.Truncation.AgentFlagged), fmtFlag(flagged))
				}
				if flagged != nil && *flagged {
					flaggedN++
				}
				if v.Truncation == nil {
					continue
				}
				detectedN++
				kinds[v.Truncation.Kind]++
				placed += props.CheckFacts(t, name, v.Text, v.Truncation, os.ReadFile)
			}
		}
		// the session list counts one way or the other, and says which
		want := map[string]int{"flagged": flaggedN, "detected": detectedN}[info.TruncatedBy()]
		if info.Truncated != want {
			t.Errorf("%s %s: the list counts %d truncated calls (%s), the calls say %d", f.ID(), info.ID, info.Truncated, info.TruncatedBy(), want)
		}
	})
	names := make([]string, 0, len(kinds))
	for k, n := range kinds {
		names = append(names, string(k)+" "+strconv.Itoa(n))
	}
	sort.Strings(names)
	t.Logf("truncated calls checked per kind: %s; seen ranges placed in spill files: %d", strings.Join(names, ", "), placed)
}

// eachFixtureSession calls fn for every session of every fixture, as
// listed and as loaded.
func eachFixtureSession(t testing.TB, fn func(f fixtures.Fixture, info model.SessionInfo, s *model.Session)) {
	t.Helper()
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
			fn(f, info, s)
		}
		st.Close()
	}
}

// fmtFlag is a flag for a message: "yes", "no" or "unknown".
func fmtFlag(f *bool) string {
	if f == nil {
		return "unknown"
	}
	return map[bool]string{true: "yes", false: "no"}[*f]
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

// Claude Code's Read over its token cap keeps the first lines that fit and
// records it in toolUseResult.file (truncatedByTokenCap, startLine,
// numLines, totalLines); it tells the model in a notice of its own, not in
// the result. On every call of every fixture: such a call is a
// claude-partial truncation whose seen lines and full size are the
// record's, its model-visible text stays the result as sent, and the notice
// is either a marker in that text (when the agent appended it there) or the
// truncation's Notice, saying where the model saw it; no other call is
// claude-partial.
func TestClaudePartialReadOnEveryFixture(t *testing.T) {
	n := 0
	eachFixtureSession(t, func(f fixtures.Fixture, _ model.SessionInfo, s *model.Session) {
		for _, ref := range s.ToolCalls() {
			c := ref.Call
			name := f.ID() + " " + c.Tool + " " + c.CallID
			v := formatters.Visible(c, sessions.SpillsFor(s.Info))
			var rec struct {
				File *struct {
					TruncatedByTokenCap             bool
					StartLine, NumLines, TotalLines int
				} `json:"file"`
			}
			_ = json.Unmarshal(c.Metadata, &rec)
			if rec.File == nil || !rec.File.TruncatedByTokenCap {
				if v.Truncation != nil && v.Truncation.Kind == model.TruncClaudePartial {
					t.Errorf("%s: claude-partial without truncatedByTokenCap", name)
				}
				continue
			}
			n++
			tr := v.Truncation
			if tr == nil || tr.Kind != model.TruncClaudePartial {
				t.Errorf("%s: the agent recorded a partial read (truncatedByTokenCap), correx says %+v", name, tr)
				continue
			}
			if c.Sent == nil || v.Text != formatters.ResultText(*c.Sent) {
				t.Errorf("%s: the model-visible text is not the result as sent", name)
			}
			want := model.LineRange{First: rec.File.StartLine, Last: rec.File.StartLine + rec.File.NumLines - 1}
			if len(tr.Seen) != 1 || tr.Seen[0].Lines == nil || *tr.Seen[0].Lines != want || tr.SeenLines != rec.File.NumLines {
				t.Errorf("%s: seen %+v (%d lines), the record says lines %d–%d", name, tr.Seen, tr.SeenLines, want.First, want.Last)
			}
			if tr.FullLines == nil || *tr.FullLines != rec.File.TotalLines || tr.FullUnknown == "" {
				t.Errorf("%s: full lines %v (%q), the record says %d", name, tr.FullLines, tr.FullUnknown, rec.File.TotalLines)
			}
			inText := c.Notice != nil && c.Notice.Text != "" && strings.Contains(v.Text, c.Notice.Text)
			switch {
			case inText && (tr.Notice != nil || len(tr.Markers) != 1 || v.Text[tr.Markers[0].Start:tr.Markers[0].End] != c.Notice.Text):
				t.Errorf("%s: the notice is in the result as sent but not its marker: %+v", name, tr.Markers)
			case !inText && (len(tr.Markers) != 0 || tr.Notice == nil || tr.Notice.Where == ""):
				t.Errorf("%s: the notice is outside the result: want no marker and a notice saying where, got %+v %+v", name, tr.Markers, tr.Notice)
			case !inText && c.Notice != nil && tr.Notice.Text != c.Notice.Text:
				t.Errorf("%s: notice %q, the agent recorded %q", name, tr.Notice.Text, c.Notice.Text)
			}
			if c.Notice != nil && !strings.HasPrefix(c.Notice.Text, "[Truncated: PARTIAL view — ") {
				t.Errorf("%s: a read_truncation_notice that is not Claude Code's banner: %q", name, c.Notice.Text)
			}
		}
	})
	t.Logf("partial reads checked: %d", n)
}

// Every call a driver loads names the agent whose markers are looked for
// in it (its session's, or the parent's of a fork that reads through
// opencode), and looking for that agent's markers only finds exactly what
// looking for every agent's does: no recorded result needs another
// agent's rules.
func TestCallsNameTheirAgent(t *testing.T) {
	n := 0
	eachFixtureSession(t, func(f fixtures.Fixture, info model.SessionInfo, s *model.Session) {
		for _, ref := range s.ToolCalls() {
			c := ref.Call
			name := f.ID() + " " + c.Tool + " " + c.CallID
			want := info.Agent
			if want.UsesOpencode() {
				want = model.AgentOpencode
			}
			if c.Agent != want {
				t.Errorf("%s: the call names agent %q, its session is %q's", name, c.Agent, want)
			}
			any := *c
			any.Agent = ""
			own, all := formatters.Visible(c, nil).Truncation, formatters.Visible(&any, nil).Truncation
			if (own == nil) != (all == nil) || own != nil && own.Kind != all.Kind {
				t.Errorf("%s: its own agent's markers find %v, every agent's %v", name, own, all)
			}
			n++
		}
	})
	t.Logf("%d calls checked", n)
}
