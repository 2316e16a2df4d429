package codex

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/internal/props"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// codexFixtures are the Codex fixtures' sources.
func codexFixtures(t *testing.T) []string {
	var dirs []string
	for _, f := range fixtures.All(t) {
		if f.Agent == string(model.AgentCodex) {
			dirs = append(dirs, f.Source)
		}
	}
	require.NotEmpty(t, dirs)
	return dirs
}

// withElideBytes runs the test with outputs over n bytes elided.
func withElideBytes(t *testing.T, n int) {
	old := elideBytes
	elideBytes = n
	t.Cleanup(func() { elideBytes = old })
}

// outlineWhole reads session id through the outline in pages of size
// (0: one page), each elided call read with LoadOutput.
func outlineWhole(t *testing.T, l sessions.Lazy, id string, size int) (msgs []model.Message, elided int) {
	ctx := context.Background()
	for from := 0; ; {
		p, err := l.LoadOutline(ctx, id, from, size)
		require.NoError(t, err)
		require.Equal(t, from, p.From)
		for _, m := range p.Session.Messages {
			for i, pt := range m.Parts {
				if pt.Tool == nil || !pt.Tool.Elided {
					continue
				}
				elided++
				assert.Positive(t, pt.Tool.OutputBytes)
				tc, err := l.LoadOutput(ctx, id, pt.ID)
				require.NoError(t, err)
				m.Parts = append([]model.Part(nil), m.Parts...)
				m.Parts[i].Tool = tc
			}
			msgs = append(msgs, m)
		}
		from += len(p.Session.Messages)
		if !p.More {
			return msgs, elided
		}
	}
}

// ownWire is every step's request on Codex's own wire.
func ownWire(t *testing.T, s *model.Session) []string {
	var out []string
	for step := 1; step <= len(s.AssistantSteps()); step++ {
		r, err := render.Render(s, render.OpenAIResponses, step, render.Model{})
		require.NoError(t, err)
		b, err := render.Marshal(r.Value)
		require.NoError(t, err)
		out = append(out, string(b))
	}
	return out
}

// withoutStored is s's messages without what the agent stored (the outline
// keeps a large output's item with a hole the wire fills).
func withoutStored(msgs []model.Message) []model.Message {
	out := append([]model.Message(nil), msgs...)
	for i := range out {
		out[i].Stored = nil
	}
	return out
}

// TestLazyOutlineIsLoad: over every Codex fixture, the outline's pages of
// every size, with LoadOutput of each elided call, are what Load gives,
// and Load is what ReadRollout (the rollout read whole) gives, its wire
// too; a page never holds a message a later line changes.
func TestLazyOutlineIsLoad(t *testing.T) {
	for _, elide := range []int{1024, 40} {
		withElideBytes(t, elide)
		for _, src := range codexFixtures(t) {
			st, infos := props.OpenList(t, sessions.Open, src)
			for _, in := range infos {
				whole, err := ReadRollout(in.Source, in.DataDir)
				require.NoError(t, err)
				load, err := st.Load(context.Background(), in.ID)
				require.NoError(t, err)
				assert.Equal(t, withoutStored(whole.Messages), withoutStored(load.Messages), "%s: Load", in.Source)
				assert.Equal(t, whole.Info, load.Info, "%s: Load's info", in.Source)
				assert.Equal(t, ownWire(t, whole), ownWire(t, load), "%s: Load's wire", in.Source)
				for _, size := range []int{1, 2, 7, 0} {
					// a fresh store, so that each page reads only what it needs
					fresh, err := sessions.Open(src)
					require.NoError(t, err)
					l := sessions.LazyFor(fresh, in.ID)
					require.NotNil(t, l, "a Codex store is lazy")
					msgs, elided := outlineWhole(t, l, in.ID, size)
					assert.Equal(t, withoutStored(load.Messages), withoutStored(msgs), "%s: pages of %d", in.Source, size)
					if elide == 40 {
						assert.Positive(t, elided, "%s: nothing elided", in.Source)
					}
				}
			}
		}
	}
}

// TestLazyAppendReadsOnlyTheNewLine: a line appended to a rollout is the
// only one read again.
func TestLazyAppendReadsOnlyTheNewLine(t *testing.T) {
	rollouts, _ := filepath.Glob(codexFixture + "/sessions/*/*/*/rollout-*.jsonl")
	home := t.TempDir()
	dst := props.CopyFile(t, rollouts[0], home, "sessions/2026/01/02/"+filepath.Base(rollouts[0]))
	st, _, err := Open(home, true)
	require.NoError(t, err)
	ls := st.(*sessions.LineStore)
	lines := 0
	reader := ls.Reader
	ls.Reader = func(path string, warnf func(int, string, ...any)) sessions.LineReader {
		return countingReader{reader(path, warnf), &lines}
	}
	ctx := context.Background()
	infos, err := st.List(ctx)
	require.NoError(t, err)
	require.Len(t, infos, 1)
	id := infos[0].ID
	first, err := ls.LoadOutline(ctx, id, 0, 0)
	require.NoError(t, err)
	read := lines

	b, err := os.ReadFile(dst)
	require.NoError(t, err)
	f, err := os.OpenFile(dst, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"timestamp":"2026-12-01T20:40:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"and one more"}]}}` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	again, err := ls.LoadOutline(ctx, id, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, read+1, lines, "only the appended line of %d is read", len(b))
	assert.Len(t, again.Session.Messages, len(first.Session.Messages)+1)
	_, err = ls.LoadOutline(ctx, id, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, read+1, lines, "an unchanged rollout is not read")
}

type countingReader struct {
	sessions.LineReader
	n *int
}

func (c countingReader) Line(l sessions.Line, data []byte, last bool) {
	*c.n++
	c.LineReader.Line(l, data, last)
}

// TestLazyWireIsLoadWire: the wire written from the outline, its elided
// outputs streamed in (render.ConversationLazy), is the wire of Load, on
// Codex's own wire and on a projection, at every step.
func TestLazyWireIsLoadWire(t *testing.T) {
	withElideBytes(t, 40)
	ctx := context.Background()
	for _, src := range codexFixtures(t) {
		st, infos := props.OpenList(t, sessions.Open, src)
		for _, in := range infos {
			load, err := st.Load(ctx, in.ID)
			require.NoError(t, err)
			l := sessions.LazyFor(st, in.ID)
			page, err := l.LoadOutline(ctx, in.ID, 0, 0)
			require.NoError(t, err)
			for _, p := range []render.Provider{render.OpenAIResponses, render.Anthropic} {
				for step := 1; step <= len(load.AssistantSteps()); step++ {
					r, err := render.Render(load, p, step, render.Model{})
					require.NoError(t, err)
					want, err := render.MarshalIndent(r.Value)
					require.NoError(t, err)
					lc, err := render.ConversationLazy(ctx, l, page.Session, p, step, render.Model{})
					require.NoError(t, err)
					got, err := lc.MarshalIndent(ctx, lc.Value)
					require.NoError(t, err, "%s step %d on %s", in.Source, step, p)
					assert.Equal(t, string(want), string(got), "%s step %d on %s", in.Source, step, p)
				}
			}
		}
	}
}
