package tui

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/model"
	"correx/render"
	"correx/sessions"
)

// TestLazyConversationSpooled checks the Request pane's conversation of a
// lazy session, read through a real store's outline (large outputs left
// in the store) and spooled to a file or kept in memory: byte for byte the
// JSON of the whole session, its line index right, and the Wire and
// Pipeline excerpts the same as from the whole conversation.
func TestLazyConversationSpooled(t *testing.T) {
	t.Cleanup(func() {
		spools.Lock()
		dir := spools.dir
		spools.dir = ""
		spools.Unlock()
		os.RemoveAll(dir)
	})
	ctx := context.Background()
	elided, excerpted := 0, 0
	for _, dir := range fixtureFlavours(t) {
		st, err := sessions.Open(dir)
		require.NoError(t, err)
		defer st.Close()
		infos, err := st.List(ctx)
		require.NoError(t, err)
		for _, in := range infos {
			l := sessions.LazyFor(st, in.ID)
			if l == nil || in.Pipeline == model.PipelineV2 {
				continue
			}
			full, err := st.Load(ctx, in.ID)
			require.NoError(t, err)
			p, err := l.LoadOutline(ctx, in.ID, 0, 0)
			require.NoError(t, err)
			for _, r := range p.Session.ToolCalls() {
				if r.Call.Elided {
					elided++
				}
			}
			step := len(full.AssistantSteps())
			for _, prov := range render.Providers {
				r, err := render.Render(full, prov, step, render.Model{})
				require.NoError(t, err)
				val := r.Value
				want, err := render.MarshalIndent(val)
				require.NoError(t, err)
				for _, mem := range []int64{0, 1 << 30} {
					res := convSpool(ctx, convKey{p: prov, step: step}, p.Session, l, model.SessionCapabilities{}, mem)
					require.NoError(t, res.err)
					got := res.json
					if res.file != nil {
						b, err := os.ReadFile(res.file.f.Name())
						require.NoError(t, err)
						got = string(b)
						lines, _ := splitLines(got)
						require.Equal(t, len(lines), len(res.file.starts))
						for i, s := range res.file.starts {
							require.Equal(t, lines[i], res.file.prefix(i, len(lines[i])+1), "line %d", i)
							require.True(t, s == 0 || got[s-1] == '\n')
						}
						res.file.Close()
					}
					require.Equal(t, string(want), got, "%s %s %s", dir, in.ID, prov)
					require.Equal(t, int64(len(want)), res.size)
				}
				res := convSpool(ctx, convKey{p: prov, step: step}, p.Session, l, model.SessionCapabilities{}, 1<<30)
				ids := stepCallIDs(full, step)
				wantEx := excerpts(val, r.Places, ids, render.MarshalIndent)
				for _, id := range ids {
					require.True(t, wantEx[id].wireOK && wantEx[id].resultOK, "%s %s: call %s not in the request of step %d", dir, prov, id, step)
					require.Equal(t, wantEx[id], res.excerpts[id], "%s %s call %s", dir, prov, id)
					excerpted++
				}
			}
		}
	}
	require.NotZero(t, excerpted)
	require.NotZero(t, elided, "no fixture call was elided by its outline")
}
