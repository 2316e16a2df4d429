package sessions_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/internal/parallel"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// TestLeftStringsAreLoad: on every fixture of every agent read lazily,
// the wire of every step on every provider, written with every string its
// store can leave in the file left there (sessions.Leaver) and copied
// from it as it is written, is byte for byte the wire of the session Load
// reads. Strings the scan found are left without being read again
// (sessions.LinesAt.ReadWithout). The records of a request are read one
// at a time by each reader, side by side (parallel.InRuns).
func TestLeftStringsAreLoad(t *testing.T) {
	defer parallel.ForceRun(1)()
	defer func(n int) { sessions.LeaveBytes = n }(sessions.LeaveBytes)
	sessions.LeaveBytes = 2
	ctx := context.Background()
	left, unread, shared := map[string]int64{}, map[string]int64{}, map[string]int{}
	eachLazySession(t, func(f fixtures.Fixture, id string, l sessions.Lazy, whole, outline *model.Session) {
		for step := 1; step <= len(whole.AssistantSteps()); step++ {
			// every provider at once, each written and closed in turn:
			// what they share is read again after a Close
			wants := map[render.Provider]string{}
			lcs, err := render.ConversationsLazy(ctx, l, outline, render.Providers, step, render.Model{})
			for _, p := range render.Providers {
				wantJSON, ok := wholeJSON(t, whole, p, step)
				if !ok {
					continue
				}
				before, unreadBefore := sessions.SpanWrites(), sessions.Unread()
				lc, err := render.ConversationLazy(ctx, l, outline, p, step, render.Model{})
				require.NoError(t, err)
				got, err := lc.MarshalIndent(ctx, lc.Value)
				require.NoError(t, err)
				require.NoError(t, lc.Close())
				require.Equal(t, string(wantJSON), string(got), "%s %s, %s, step %d", f.ID(), id, p, step)
				left[f.Agent] += sessions.SpanWrites() - before
				unread[f.Agent] += sessions.Unread() - unreadBefore
				wants[p] = string(wantJSON)
			}
			if len(wants) < len(render.Providers) {
				continue // a provider the session cannot be lowered to
			}
			require.NoError(t, err)
			require.Len(t, lcs, len(render.Providers))
			for i, p := range render.Providers {
				got, err := lcs[i].MarshalIndent(ctx, lcs[i].Value)
				require.NoError(t, err)
				require.NoError(t, lcs[i].Close())
				require.Equal(t, wants[p], string(got), "%s %s, %s of all, step %d", f.ID(), id, p, step)
				shared[f.Agent]++
			}
		}
	})
	for _, agent := range []model.Agent{model.AgentClaudeCode, model.AgentGeminiCLI} {
		require.Greater(t, left[string(agent)], int64(100), "%s: strings left in the file and copied from it", agent)
	}
	require.Greater(t, shared[string(model.AgentClaudeCode)], 100, "Claude Code's conversations lowered together")
	t.Logf("left in the file: %v; strings left or dropped, never read again: %v", left, unread)
	// lines read without the strings the scan found, for the wire to leave
	// or drop
	for _, agent := range []model.Agent{model.AgentClaudeCode, model.AgentGeminiCLI} {
		require.Greater(t, unread[string(agent)], int64(100), "%s: strings never read for the wire", agent)
	}
}

// wholeJSON is the indented JSON of the conversation of step of whole on
// p; false when it cannot be lowered there.
func wholeJSON(t *testing.T, whole *model.Session, p render.Provider, step int) ([]byte, bool) {
	want, err := render.Conversation(whole, p, step, render.Model{})
	if err != nil {
		return nil, false
	}
	b, err := render.MarshalIndent(want)
	require.NoError(t, err)
	return b, true
}

// TestHeadIsTheWholesStart: on every fixture of every agent read lazily,
// the head of every step's conversation on every provider, where one can
// be lowered in a moment (render.ConversationHead: from the first messages
// of a logged request, or an earlier request the step's starts with),
// starts the whole conversation's JSON byte for byte
// (render.LazyConversation.WriteHead), whatever the number of messages it
// is lowered from.
func TestHeadIsTheWholesStart(t *testing.T) {
	defer func(n int) { sessions.LeaveBytes = n }(sessions.LeaveBytes)
	sessions.LeaveBytes = 2
	ctx := context.Background()
	heads := map[string]int{}
	eachLazySession(t, func(f fixtures.Fixture, id string, l sessions.Lazy, whole, outline *model.Session) {
		for step := 1; step <= len(whole.AssistantSteps()); step++ {
			for _, p := range render.Providers {
				wantJSON, ok := wholeJSON(t, whole, p, step)
				if !ok {
					continue
				}
				for _, n := range []int{2, 3, 8, 32} {
					at := fmt.Sprintf("%s %s, %s, step %d: the head of %d messages", f.ID(), id, p, step, n)
					head, exact, err := render.ConversationHead(ctx, l, outline, p, step, render.Model{}, n)
					require.NoError(t, err)
					if head == nil {
						continue
					}
					require.Positive(t, exact, at)
					var got strings.Builder
					require.NoError(t, head.WriteHead(ctx, &got, exact))
					require.NoError(t, head.Close())
					require.True(t, strings.HasPrefix(string(wantJSON), got.String()+",\n"), "%s is not the whole's start:\n%s", at, got.String())
					heads[f.Agent]++
				}
			}
		}
	})
	require.Greater(t, heads[string(model.AgentClaudeCode)], 100, "Claude Code's heads")
	require.Greater(t, heads[string(model.AgentGeminiCLI)], 20, "Gemini CLI's heads")
	require.Greater(t, heads["qwen-code"], 10, "Qwen Code's heads")
	t.Logf("heads checked: %v", heads)
}

// TestTailIsTheWholesEnd: on every fixture of every agent read lazily,
// the tail of every step's conversation on every provider at once, where
// one can be lowered in a moment (render.ConversationsTail: from the last
// messages of a logged request, or of the session from where its own
// wire says), is the whole conversation's last items byte for byte, and
// each call and result placed in it sits in the whole as many items from
// the end, whatever the number of messages it is lowered from.
func TestTailIsTheWholesEnd(t *testing.T) {
	defer func(n int) { sessions.LeaveBytes = n }(sessions.LeaveBytes)
	sessions.LeaveBytes = 2
	ctx := context.Background()
	tails, placed := map[string]int{}, 0
	eachLazySession(t, func(f fixtures.Fixture, id string, l sessions.Lazy, whole, outline *model.Session) {
		for step := 1; step <= len(whole.AssistantSteps()); step++ {
			for _, low := range []model.Lowering{"", model.LoweringNative, model.LoweringAISDK} {
				tailsOf(t, ctx, f, id, l, whole, outline, step, render.Model{Lowering: low}, tails, &placed)
			}
		}
	})
	for _, agent := range []model.Agent{model.AgentClaudeCode, model.AgentGeminiCLI, "qwen-code", "opencode"} {
		require.Greater(t, tails[string(agent)], 40, "%s's tails", agent)
	}
	require.Greater(t, placed, 1000, "calls placed in the tails")
	t.Logf("tails checked: %v; calls placed: %d", tails, placed)
}

// tailsOf checks the tails of step of a session lowered with m, of
// several sizes, on every provider at once (TestTailIsTheWholesEnd).
func tailsOf(t *testing.T, ctx context.Context, f fixtures.Fixture, id string, l sessions.Lazy, whole, outline *model.Session, step int, m render.Model, tails map[string]int, placed *int) {
	wants := map[render.Provider]*render.Rendered{}
	for _, p := range render.Providers {
		if r, err := render.Render(whole, p, step, m); err == nil {
			wants[p] = r
		}
	}
	if len(wants) < len(render.Providers) {
		return
	}
	for _, n := range []int{1, 2, 3, 6} {
		lcs, err := render.ConversationsTail(ctx, l, outline, render.Providers, step, m, n)
		require.NoError(t, err)
		if lcs == nil {
			continue
		}
		require.Len(t, lcs, len(render.Providers))
		for i, p := range render.Providers {
			at := fmt.Sprintf("%s %s, %s (%s), step %d, the last %d messages", f.ID(), id, p, m.Lowering, step, n)
			items := lcs[i].Value.([]render.Value)
			wantItems := wants[p].Value.([]render.Value)
			require.NotEmpty(t, items, at)
			require.LessOrEqual(t, len(items), len(wantItems), at)
			off := len(wantItems) - len(items)
			for j, it := range items {
				got, err := lcs[i].MarshalIndent(ctx, it)
				require.NoError(t, err)
				want, err := render.MarshalIndent(wantItems[off+j])
				require.NoError(t, err)
				require.Equal(t, string(want), string(got), "%s: item %d of %d", at, off+j, len(wantItems))
			}
			for call, pl := range lcs[i].Places {
				w := wants[p].Places[call]
				require.NotNil(t, w, "%s: call %s", at, call)
				if pl.Call.Item >= 0 {
					require.Equal(t, w.Call.Item, off+pl.Call.Item, "%s: call %s", at, call)
					require.Equal(t, w.Call.Part, pl.Call.Part, "%s: call %s", at, call)
				}
				for k, r := range pl.Results {
					require.Equal(t, w.Results[len(w.Results)-len(pl.Results)+k].Item, off+r.Item, "%s: result of %s", at, call)
				}
				*placed++
			}
			require.NoError(t, lcs[i].Close())
		}
		tails[f.Agent]++
	}
}
