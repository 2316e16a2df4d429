package claudecode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/model"
	"correx/sessions"
)

func claudeFixtures(t *testing.T) []fixtures.Fixture {
	var out []fixtures.Fixture
	for _, f := range fixtures.All(t) {
		if f.Agent == string(model.AgentClaudeCode) {
			out = append(out, f)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// outlineWhole reads session id through the outline in pages of limit
// messages, each elided call and request read again: what Load gives.
func outlineWhole(t *testing.T, st sessions.Store, id string, limit int) *model.Session {
	ctx := context.Background()
	l := sessions.LazyFor(st, id)
	require.NotNil(t, l, "the store reads Claude Code lazily")
	var out *model.Session
	for from := 0; ; {
		page, err := l.LoadOutline(ctx, id, from, limit)
		require.NoError(t, err)
		require.Equal(t, from, page.From)
		if out == nil {
			out = page.Session
		} else {
			assert.Empty(t, page.Session.Warnings, "later pages carry no warnings")
			out.Info = page.Session.Info
			out.Messages = append(out.Messages, page.Session.Messages...)
		}
		from += len(page.Session.Messages)
		if !page.More {
			break
		}
		require.True(t, limit > 0 && len(page.Session.Messages) > 0 || page.More, "a page reads on")
	}
	for i := range out.Messages {
		m := &out.Messages[i]
		if m.Request != nil && m.Request.Elided {
			req, err := st.(sessions.RequestLoader).LoadRequest(ctx, id, i)
			require.NoError(t, err)
			require.Equal(t, m.Request.Rebuilt, req.Rebuilt)
			m.Request = req
		}
		for j, p := range m.Parts {
			if p.Tool != nil && p.Tool.Elided {
				full, err := l.LoadOutput(ctx, id, p.ID)
				require.NoError(t, err)
				m.Parts[j].Tool = full
			}
		}
	}
	return out
}

// TestClaudeOutlineIsLoad: on every Claude Code fixture, Load and the
// outline's pages of every size, with every elided result and logged
// request read again, give exactly the session read with nothing left
// out (every result kept as the scan read it); with a low threshold,
// every result goes through the lazy path.
func TestClaudeOutlineIsLoad(t *testing.T) {
	defer func(n int) { elideBytes = n }(elideBytes)
	ctx := context.Background()
	for _, f := range claudeFixtures(t) {
		elideBytes = 1 << 30
		ref, err := sessions.Open(f.Source)
		require.NoError(t, err)
		infos, err := ref.List(ctx)
		require.NoError(t, err)
		want := map[string]*model.Session{}
		for _, in := range infos {
			want[in.ID], err = ref.Load(ctx, in.ID)
			require.NoError(t, err)
		}
		ref.Close()
		for _, elide := range []int{1024, 16} {
			elideBytes = elide
			st, err := sessions.Open(f.Source)
			require.NoError(t, err)
			for _, in := range infos {
				w := want[in.ID]
				loaded, err := st.Load(ctx, in.ID)
				require.NoError(t, err)
				require.Equal(t, w, loaded, "%s %s: Load, elided over %d bytes", f.ID(), in.ID, elide)
				for _, limit := range []int{1, 2, 7, 0} {
					fresh, err := sessions.Open(f.Source) // no List: the file is guessed
					require.NoError(t, err)
					got := outlineWhole(t, fresh, in.ID, limit)
					require.Equal(t, len(w.Messages), len(got.Messages), "%s %s pages of %d", f.ID(), in.ID, limit)
					for i := range w.Messages {
						require.Equal(t, w.Messages[i], got.Messages[i], "%s %s pages of %d: message %d", f.ID(), in.ID, limit, i)
					}
					assert.Equal(t, w.Info, got.Info, "%s %s pages of %d", f.ID(), in.ID, limit)
					if limit == 0 {
						assert.Equal(t, w.Warnings, got.Warnings, "%s %s", f.ID(), in.ID)
					}
					fresh.Close()
				}
				page, err := sessions.LazyFor(st, in.ID).LoadOutline(ctx, in.ID, 0, 0)
				require.NoError(t, err)
				elided := 0
				for _, r := range page.Session.ToolCalls() {
					if r.Call.Elided {
						elided++
						assert.Empty(t, r.Call.Output+r.Call.Error, "an elided call holds no output")
						assert.Nil(t, r.Call.Sent)
						assert.Positive(t, r.Call.OutputBytes)
					}
				}
				if elide == 16 && in.ToolCalls > 0 {
					assert.Positive(t, elided, "%s %s: calls elided", f.ID(), in.ID)
				}
			}
			st.Close()
		}
	}
}

// TestClaudeOutlineFirstPageReadsLittle: the first page of a session whose
// steps are logged reads the file only as far as its messages are stable.
func TestClaudeOutlineFirstPageReadsLittle(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "claude-code", "anthropic")
	st, err := sessions.Open(dir)
	require.NoError(t, err)
	defer st.Close()
	infos, err := st.List(context.Background())
	require.NoError(t, err)
	fresh, err := sessions.Open(dir)
	require.NoError(t, err)
	defer fresh.Close()
	for _, in := range infos {
		if in.ParentID != "" {
			continue
		}
		page, err := sessions.LazyFor(fresh, in.ID).LoadOutline(context.Background(), in.ID, 0, 2)
		require.NoError(t, err)
		assert.True(t, page.More)
		f := fresh.(*claudeStore).open[0]
		all := 0
		require.NoError(t, sessions.ReadJSONL(f.path, func(int, []byte, bool) { all++ }, func(int, string, ...any) {}))
		assert.Less(t, len(f.index.Lines()), all/2, "the first page read %d of %d lines", len(f.index.Lines()), all)
	}
}

// TestClaudeAppendReadsTheNewLine: a line appended to a transcript read
// before is read alone (the reader goes on), and the next outline has it.
func TestClaudeAppendReadsTheNewLine(t *testing.T) {
	src := fixtures.ClaudeCopy(t, filepath.Join("..", "..", "testdata", "claude-code", "anthropic"), func(_ string, l []string) []string { return l })
	st, err := sessions.Open(src)
	require.NoError(t, err)
	defer st.Close()
	infos, err := st.List(context.Background())
	require.NoError(t, err)
	var root model.SessionInfo
	for _, in := range infos {
		if in.ParentID == "" {
			root = in
		}
	}
	ctx := context.Background()
	_, err = sessions.LazyFor(st, root.ID).LoadOutline(ctx, root.ID, 0, 0)
	require.NoError(t, err)
	cs := st.(*claudeStore)
	f := cs.file(root.Source)
	r, lines := f.r, len(f.index.Lines())
	w, err := os.OpenFile(root.Source, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintf(w, `{"type":"custom-title","customTitle":"renamed","sessionId":%q}`+"\n", root.ID)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	page, err := sessions.LazyFor(st, root.ID).LoadOutline(ctx, root.ID, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, "renamed", page.Session.Info.Title)
	assert.Same(t, r, f.r, "the reader went on, not read again")
	assert.Equal(t, lines+1, len(f.index.Lines()), "one line more was read")
	assert.True(t, strings.HasSuffix(root.Source, ".jsonl"))
}
