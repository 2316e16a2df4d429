package claudecode

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/render"
	"correx/sessions"
)

// TestClaudeDeferredFileChanged: a result left in the transcript that is
// no longer there when the wire is written fails the write, naming the
// file; it is never written from what the file holds now.
func TestClaudeDeferredFileChanged(t *testing.T) {
	defer func(n int) { sessions.LeaveBytes = n }(sessions.LeaveBytes)
	sessions.LeaveBytes = 2
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
