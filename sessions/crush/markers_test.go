package crush

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/formatters"
	"correx/model"
	"correx/sessions"
	_ "correx/sessions/claudecode" // its lines cut is matched by Crush's marker too
)

// The recorded middle cut (`seq 1 8000`, 30,893 columns) is Crush's kind,
// not Claude Code's lines cut, and splits as Crush cut it: 15,000 columns
// before the marker, 15,000 after it, then bash's <cwd> line, added.
func TestMiddleCutOfRecordedOutput(t *testing.T) {
	st, err := sessions.Open("../../testdata/crush/crush/data")
	require.NoError(t, err)
	defer st.Close()
	infos, err := st.List(context.Background())
	require.NoError(t, err)
	cuts := 0
	for _, in := range infos {
		sess, err := st.Load(context.Background(), in.ID)
		require.NoError(t, err)
		for _, r := range sess.ToolCalls() {
			v := formatters.Visible(r.Call, nil)
			if v.Truncation == nil {
				continue
			}
			cuts++
			tr := v.Truncation
			require.Equal(t, TruncMiddle, tr.Kind)
			require.Len(t, tr.Markers, 1)
			require.Len(t, tr.Added, 1)
			assert.Equal(t, "\n\n<cwd>/home/user/proj</cwd>", v.Text[tr.Added[0].Start:tr.Added[0].End])
			assert.Equal(t, len(v.Text), tr.Added[0].End)
			columns := func(s string) int { return utf8.RuneCountInString(s) - strings.Count(s, "\n") } // ASCII digits
			assert.Equal(t, 15000, columns(v.Text[:tr.Markers[0].Start]))
			assert.Equal(t, 15000, columns(v.Text[tr.Markers[0].End:tr.Added[0].Start]))
			assert.Nil(t, tr.FullBytes)
			assert.Contains(t, tr.FullUnknown, "no spill file")
			require.Len(t, tr.Seen, 2)
			assert.True(t, tr.Seen[0].PartialLast, "cut mid-line")
			assert.True(t, tr.Seen[1].PartialFirst, "cut mid-line")
		}
	}
	assert.Equal(t, 1, cuts)
}

// Crush's marker holds Claude Code's older lines cut, whose rule is
// registered too: a Crush shell output is Crush's cut, a Claude Code Bash
// output Claude's, another tool's text neither of Crush's.
func TestMiddleCutOnlyInShellTools(t *testing.T) {
	text := "head\n\n... [3 lines truncated] ...\n\ntail\n\n<cwd>/p</cwd>"
	assert.Equal(t, TruncMiddle, formatters.Detect("bash", text, nil, nil).Kind)
	if tr := formatters.Detect("view", text, nil, nil); tr != nil {
		assert.NotEqual(t, TruncMiddle, tr.Kind)
	}
	assert.Equal(t, model.TruncClaudeLines, formatters.Detect("Bash", "head\n\n... [3 lines truncated] ...", nil, nil).Kind)
}
