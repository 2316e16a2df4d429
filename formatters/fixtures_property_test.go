package formatters_test

import (
	"context"
	"os"
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
