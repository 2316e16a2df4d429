package claudecode

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// placeCounter is a store whose deferred requests count their
// placeholders.
type placeCounter struct {
	sessions.Lazy
	placed *int
}

func (c placeCounter) LoadRequestDeferred(ctx context.Context, id string, msg int, place func(func(context.Context, func(string) error) error) []byte) (*model.LoggedRequest, func() error, error) {
	return c.Lazy.(sessions.DeferringRequestLoader).LoadRequestDeferred(ctx, id, msg, func(body func(context.Context, func(string) error) error) []byte {
		*c.placed++
		return place(body)
	})
}

func (c placeCounter) LoadRequest(ctx context.Context, id string, msg int) (*model.LoggedRequest, error) {
	return c.Lazy.(sessions.RequestLoader).LoadRequest(ctx, id, msg)
}

// TestClaudeDeferredIsLoad: on every Claude Code fixture, the wire of
// every step, its logged request read with (nearly) every result left in
// the transcript and copied from it as the wire is written, is byte for
// byte the wire of the session Load reads, on every provider.
func TestClaudeDeferredIsLoad(t *testing.T) {
	defer func(n int) { deferBytes = n }(deferBytes)
	deferBytes = 2 // every result that is a string
	ctx := context.Background()
	placed, steps := 0, 0
	for _, f := range claudeFixtures(t) {
		st, err := sessions.Open(f.Source)
		require.NoError(t, err)
		infos, err := st.List(ctx)
		require.NoError(t, err)
		for _, in := range infos {
			whole, err := st.Load(ctx, in.ID)
			require.NoError(t, err)
			l := placeCounter{Lazy: sessions.LazyFor(st, in.ID), placed: &placed}
			page, err := l.LoadOutline(ctx, in.ID, 0, 0)
			require.NoError(t, err)
			for step := 1; step <= len(whole.AssistantSteps()); step++ {
				for _, p := range render.Providers {
					want, err := render.Conversation(whole, p, step, render.Model{})
					if err != nil {
						continue
					}
					wantJSON, err := render.MarshalIndent(want)
					require.NoError(t, err)
					lc, err := render.ConversationLazy(ctx, l, page.Session, p, step, render.Model{})
					require.NoError(t, err)
					got, err := lc.MarshalIndent(ctx, lc.Value)
					require.NoError(t, err)
					require.NoError(t, lc.Close())
					require.Equal(t, string(wantJSON), string(got), "%s %s, %s, step %d", f.ID(), in.ID, p, step)
					steps++
				}
			}
		}
		st.Close()
	}
	assert.Greater(t, steps, 100)
	assert.Greater(t, placed, 500, "results left in the transcripts")
}

// TestClaudeDeferredFileChanged: a result left in the transcript that is
// no longer there when the wire is written fails the write, naming the
// file; it is never written from what the file holds now.
func TestClaudeDeferredFileChanged(t *testing.T) {
	defer func(n int) { deferBytes = n }(deferBytes)
	deferBytes = 2
	ctx := context.Background()
	for _, f := range claudeFixtures(t) {
		dir := fixtures.ClaudeCopy(t, f.Source, func(_ string, l []string) []string { return l })
		st, err := sessions.Open(dir)
		require.NoError(t, err)
		infos, err := st.List(ctx)
		require.NoError(t, err)
		for _, in := range infos {
			l := sessions.LazyFor(st, in.ID)
			page, err := l.LoadOutline(ctx, in.ID, 0, 0)
			require.NoError(t, err)
			lc, err := render.ConversationLazy(ctx, l, page.Session, render.Anthropic, 0, render.Model{})
			if err != nil || len(page.Session.AssistantSteps()) == 0 {
				continue
			}
			before, err := lc.MarshalIndent(ctx, lc.Value)
			require.NoError(t, err)
			// the same bytes but one, at the same size
			b, err := os.ReadFile(in.Source)
			require.NoError(t, err)
			i := lastResultByte(b)
			if i < 0 {
				continue
			}
			b[i] = map[bool]byte{true: 'X', false: 'Y'}[b[i] != 'X']
			require.NoError(t, os.WriteFile(in.Source, b, 0o600))
			_, err = lc.MarshalIndent(ctx, lc.Value)
			if err == nil {
				t.Fatalf("%s %s: written again from a changed file (%d bytes before)", f.ID(), in.ID, len(before))
			}
			assert.Contains(t, err.Error(), in.Source)
			assert.Contains(t, err.Error(), "changed")
			require.NoError(t, lc.Close())
			st.Close()
			return
		}
		st.Close()
	}
	t.Fatal("no fixture has a result to change")
}

// lastResultByte is a byte of the text of the last tool_result of
// transcript b whose content is a string, -1 when there is none.
func lastResultByte(b []byte) int {
	i := bytes.LastIndex(b, []byte(`"type":"tool_result","content":"`))
	if i < 0 {
		return -1
	}
	return i + len(`"type":"tool_result","content":"`)
}
