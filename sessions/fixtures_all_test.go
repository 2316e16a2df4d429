package sessions_test

// Properties of every recorded fixture of every agent, with every driver
// registered (an internal test cannot import sessions/all).

import (
	"context"
	"slices"
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

// eachLazySession calls fn with every session of every fixture that its
// store reads lazily, the whole session Load gives, and (outline) its
// outline in one page.
func eachLazySession(t *testing.T, fn func(f fixtures.Fixture, id string, l sessions.Lazy, whole, outline *model.Session)) {
	t.Helper()
	ctx := context.Background()
	for _, f := range fixtures.All(t) {
		st, infos := listFixture(t, f)
		for _, in := range infos {
			l := sessions.LazyFor(st, in.ID)
			if l == nil {
				continue
			}
			whole, err := st.Load(ctx, in.ID)
			require.NoError(t, err, f.ID())
			page, err := l.LoadOutline(ctx, in.ID, 0, 0)
			require.NoError(t, err, f.ID())
			fn(f, in.ID, l, whole, page.Session)
		}
		st.Close()
	}
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

// TestLazyOutlineEqualsLoad: for every session of every fixture a store
// reads lazily (sessions.Lazy), the outline's pages, of any size, with
// every elided call read again by LoadOutput (and elided logged request
// by LoadRequest), are the messages Load gives.
func TestLazyOutlineEqualsLoad(t *testing.T) {
	ctx := context.Background()
	lazy, elided := map[string]int{}, map[string]int{}
	eachLazySession(t, func(f fixtures.Fixture, id string, l sessions.Lazy, whole, _ *model.Session) {
		want := outlineFields(whole.Messages)
		for _, size := range []int{1, 2, 7, 0} {
			var got []model.Message
			standIn := map[int]bool{} // messages with an elided call
			for more := true; more; {
				p, err := l.LoadOutline(ctx, id, len(got), size)
				require.NoError(t, err, "%s: session %s, page size %d", f.ID(), id, size)
				require.Equal(t, len(got), p.From, "%s: page start", f.ID())
				if size > 0 && (p.More || p.From > 0) { // a session that cannot be paged comes whole
					require.LessOrEqual(t, len(p.Session.Messages), size, "%s: page size", f.ID())
				}
				require.True(t, len(p.Session.Messages) > 0 || !p.More, "%s: an empty page with more to come", f.ID())
				for _, m := range p.Session.Messages {
					if m.Request != nil && m.Request.Elided { // a logged request left in the store
						rl, ok := l.(sessions.RequestLoader)
						require.True(t, ok, "%s: an elided request, and no RequestLoader", f.ID())
						req, err := rl.LoadRequest(ctx, id, len(got))
						require.NoError(t, err, "%s: LoadRequest %d", f.ID(), len(got))
						m.Request = req
					}
					m.Parts = append([]model.Part(nil), m.Parts...)
					for i, pt := range m.Parts {
						if pt.Tool != nil && pt.Tool.Elided {
							elided[f.Agent]++
							standIn[len(got)] = true
							tc, err := l.LoadOutput(ctx, id, pt.ID)
							require.NoError(t, err, "%s: LoadOutput %s", f.ID(), pt.ID)
							m.Parts[i].Tool = tc
						}
					}
					got = append(got, m)
				}
				more = p.More
			}
			got, want := outlineFields(got), slices.Clone(want)
			for i := range standIn {
				// the records of an elided call the Stored of an outline may
				// stand in for (sessions.Filler): TestLazyJSONLIsLoad
				// compares the wires they make
				got[i].Stored, want[i].Stored = nil, nil
			}
			require.Equal(t, want, got, "%s: session %s, pages of %d messages", f.ID(), id, size)
		}
		lazy[f.Agent]++
	})
	t.Logf("lazy sessions checked, by agent: %v; elided calls read again (over the four page sizes): %v", lazy, elided)
	require.NotZero(t, elided["opencode"], "opencode's store is lazy")
}

// outlineFields are msgs without what only an outline sets
// (model.ToolCall.OutputBytes), as copies.
func outlineFields(msgs []model.Message) []model.Message {
	out := make([]model.Message, len(msgs))
	for i, m := range msgs {
		m.Parts = append([]model.Part(nil), m.Parts...)
		for j, pt := range m.Parts {
			if pt.Tool != nil {
				tc := *pt.Tool
				tc.OutputBytes = 0
				m.Parts[j].Tool = &tc
			}
		}
		out[i] = m
	}
	return out
}
