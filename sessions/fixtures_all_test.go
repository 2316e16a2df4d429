package sessions_test

// Properties of every recorded fixture of every agent, with every driver
// registered (an internal test cannot import sessions/all).

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/formatters"
	"correx/internal/fixtures"
	"correx/internal/props"
	"correx/model"
	"correx/sessions"
	_ "correx/sessions/all"
)

func listFixture(t *testing.T, f fixtures.Fixture) (sessions.Store, []model.SessionInfo) {
	t.Helper()
	return props.OpenList(t, sessions.Open, f.Source)
}

// TestTitlesOneLine: every session title of every fixture is one line (a
// Gemini CLI subagent's summary is indented JSON; a title with a newline
// breaks the rows of `correx ls` and the picker).
func TestTitlesOneLine(t *testing.T) {
	for _, f := range fixtures.All(t) {
		_, infos := listFixture(t, f)
		for _, in := range infos {
			if strings.ContainsAny(in.Title, "\r\n") {
				t.Errorf("%s: session %s: title %q is not one line", f.ID(), in.ID, in.Title)
			}
		}
	}
}

// TestOneDriverPerFixture: a registered driver claims its own fixtures
// and no other agent's, so the order drivers are asked in never matters;
// every session it lists is of its agent.
func TestOneDriverPerFixture(t *testing.T) {
	for _, f := range fixtures.All(t) {
		var claimed []model.Agent
		for _, d := range sessions.Drivers() {
			st, ok, err := d.Open(f.Source, sessions.IsDir(f.Source))
			if ok || err != nil {
				claimed = append(claimed, d.Agent)
			}
			if st != nil {
				st.Close()
			}
		}
		if _, registered := model.Agent(f.Agent).Spec(); registered {
			require.Equal(t, []model.Agent{model.Agent(f.Agent)}, claimed, "%s: drivers claiming it", f.ID())
			_, infos := listFixture(t, f)
			for _, in := range infos {
				require.Equal(t, model.Agent(f.Agent), in.Agent, "%s: session %s", f.ID(), in.ID)
			}
		} else {
			require.Empty(t, claimed, "%s: drivers claiming another agent's fixture", f.ID())
		}
	}
}

// TestFixtureSpillsInside: every spill of every recorded fixture is in its
// agent's spill folder, so correx opens real spills without asking.
func TestFixtureSpillsInside(t *testing.T) {
	agentHomes(t)
	ctx := context.Background()
	byAgent := map[model.Agent]int{}
	for _, fx := range fixtures.All(t) {
		st, infos := listFixture(t, fx)
		for _, info := range infos {
			sess, err := st.Load(ctx, info.ID)
			require.NoError(t, err, fx.ID())
			spills := sessions.SpillsFor(sess.Info)
			for _, ref := range sess.ToolCalls() {
				tr := formatters.Visible(ref.Call, spills).Truncation
				if tr == nil || tr.SpillFound == "" {
					continue
				}
				require.True(t, sessions.SpillsInside(spills, tr.SpillFound), "%s: %s is outside %s's spill folder", fx.ID(), tr.SpillFound, sess.Info.Agent.Name())
				require.NotNil(t, tr.FullLines, "%s: %s was measured", fx.ID(), tr.SpillFound)
				byAgent[sess.Info.Agent]++
			}
		}
	}
	for _, a := range []model.Agent{model.AgentOpencode, model.AgentClaudeCode, model.AgentGeminiCLI} {
		require.Positive(t, byAgent[a], "no %s fixture has a spill", a.Name())
	}
}
