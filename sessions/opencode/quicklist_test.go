package opencode

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/model"
	"correx/sessions"
)

// TestListQuickIsListUncounted: on every fixture whose store can list
// quickly, the quick list is List's sessions, in List's order, with the
// same facts but the counts (pipeline included), each marked Uncounted.
func TestListQuickIsListUncounted(t *testing.T) {
	ctx := context.Background()
	quick, v2 := 0, 0
	for _, f := range fixtures.All(t) {
		if f.Agent != "opencode" {
			continue
		}
		st, err := sessions.Open(f.Source)
		require.NoError(t, err, f.ID())
		got, ok, err := sessions.ListQuick(ctx, st)
		require.NoError(t, err, f.ID())
		if !ok {
			st.Close()
			continue
		}
		quick++
		want, err := st.List(ctx)
		require.NoError(t, err, f.ID())
		require.Len(t, got, len(want), f.ID())
		for i := range want {
			require.True(t, got[i].Uncounted, f.ID())
			w := want[i]
			w.Messages, w.ToolCalls, w.Truncated, w.Errors, w.Uncounted = 0, 0, 0, 0, true
			require.Equal(t, w, got[i], "%s: session %d", f.ID(), i)
			if w.Pipeline == model.PipelineV2 {
				v2++
			}
		}
		st.Close()
	}
	require.Positive(t, quick, "no fixture lists quickly")
	require.Positive(t, v2, "no v2 session listed quickly")
}
