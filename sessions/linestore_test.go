package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/model"
)

// toyReader reads a toy agent's lines: {"call":ID,"tool":T} starts an
// assistant message with one call, {"result":ID,"out":TEXT} completes it.
// Outputs over 4 bytes are elided, kept as their line.
type toyReader struct {
	path   string
	lines  *int // Line calls, over every reader of the test
	msgs   []model.Message
	open   map[string]int // call id -> its message, until its result
	at     map[string]Line
	stable int
	warnf  func(n int, format string, args ...any)
}

func (r *toyReader) Line(l Line, data []byte, last bool) {
	*r.lines++
	var v struct{ Call, Tool, Result, Out string }
	if json.Unmarshal(data, &v) != nil {
		r.warnf(l.N, "not JSON")
		return
	}
	switch {
	case v.Call != "":
		r.open[v.Call] = len(r.msgs)
		r.msgs = append(r.msgs, model.Message{ID: "m" + v.Call, Role: model.RoleAssistant,
			Parts: []model.Part{{ID: v.Call, Type: model.PartTool, Tool: &model.ToolCall{CallID: v.Call, Tool: v.Tool, Status: model.StatusRunning}}}})
	case v.Result != "":
		i, ok := r.open[v.Result]
		if !ok {
			return
		}
		delete(r.open, v.Result)
		tc := *r.msgs[i].Parts[0].Tool
		tc.Status, tc.Output = model.StatusCompleted, v.Out
		if len(v.Out) > 4 {
			tc.Output, tc.Elided, tc.OutputBytes = "", true, len(v.Out)
			r.at[v.Result] = l
		}
		r.msgs[i].Parts[0].Tool = &tc
	}
	r.stable = len(r.msgs)
	for _, i := range r.open {
		r.stable = min(r.stable, i)
	}
}

func (r *toyReader) Stable() int { return r.stable }

func (r *toyReader) Session() (*model.Session, error) {
	s := &model.Session{Info: model.SessionInfo{ID: "toy", Source: r.path}, Messages: append([]model.Message(nil), r.msgs...)}
	CountCalls(&s.Info, s.Messages)
	return s, nil
}

func (r *toyReader) Output(id string, read func(Line) ([]byte, error)) (*model.ToolCall, error) {
	i, ok := r.open[id]
	if ok {
		return r.msgs[i].Parts[0].Tool, nil
	}
	for _, m := range r.msgs {
		if m.Parts[0].ID != id {
			continue
		}
		tc := *m.Parts[0].Tool
		if l, ok := r.at[id]; ok {
			data, err := read(l)
			if err != nil {
				return nil, err
			}
			var v struct{ Out string }
			if err := json.Unmarshal(data, &v); err != nil {
				return nil, err
			}
			tc.Output, tc.Elided, tc.OutputBytes = v.Out, false, 0
		}
		return &tc, nil
	}
	return nil, fmt.Errorf("no call %s", id)
}

func toyStore(path string, lines *int) *LineStore {
	return &LineStore{
		FileStore: &FileStore{Root: path, Files: func() ([]string, []string) { return []string{path}, nil }},
		Reader: func(p string, warnf func(int, string, ...any)) LineReader {
			return &toyReader{path: p, lines: lines, open: map[string]int{}, at: map[string]Line{}, warnf: warnf}
		},
		Guess: func(string) []string { return []string{path} },
	}
}

func TestLineStorePagesReadOnlyWhatTheyShow(t *testing.T) {
	p := filepath.Join(t.TempDir(), "toy.jsonl")
	var b []byte
	for i := range 10 {
		b = fmt.Appendf(b, "{\"call\":\"c%d\",\"tool\":\"bash\"}\n{\"result\":\"c%d\",\"out\":\"output %d\"}\n", i, i, i)
	}
	require.NoError(t, os.WriteFile(p, append(b, "not json\n"...), 0o644))
	lines := 0
	s := toyStore(p, &lines)
	ctx := context.Background()

	page, err := s.LoadOutline(ctx, "toy", 0, 2)
	require.NoError(t, err)
	assert.Len(t, page.Session.Messages, 2)
	assert.True(t, page.More)
	assert.Equal(t, 4, lines, "the first page reads the lines of its two messages, and no more")
	assert.True(t, page.Session.Messages[1].Parts[0].Tool.Elided)

	assert.Empty(t, page.Session.Warnings)
	var all []model.Message
	var warned []string
	all = append(all, page.Session.Messages...)
	for page.More {
		page, err = s.LoadOutline(ctx, "toy", len(all), 3)
		require.NoError(t, err)
		assert.Equal(t, len(all), page.From)
		all = append(all, page.Session.Messages...)
		warned = append(warned, page.Session.Warnings...)
	}
	assert.Equal(t, 21, lines, "each line is read once")
	assert.Equal(t, []string{p + ":21: not JSON"}, warned, "the page whose lines warned says so, once")
	again, err := s.LoadOutline(ctx, "toy", 2, 3)
	require.NoError(t, err)
	assert.Empty(t, again.Session.Warnings, "a page read again does not warn again")

	whole, err := s.Load(ctx, "toy")
	require.NoError(t, err)
	assert.Contains(t, whole.Warnings, p+":21: not JSON")
	require.Len(t, all, len(whole.Messages))
	for i, m := range all {
		tc, err := s.LoadOutput(ctx, "toy", m.Parts[0].ID)
		require.NoError(t, err)
		assert.Equal(t, whole.Messages[i].Parts[0].Tool, tc, "LoadOutput of %s is what Load gives", m.Parts[0].ID)
		assert.Equal(t, fmt.Sprintf("output %d", i), tc.Output)
	}
	assert.Equal(t, 21, lines, "Load reads nothing again")

	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("{\"call\":\"c10\",\"tool\":\"read\"}\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	page, err = s.LoadOutline(ctx, "toy", 0, 0)
	require.NoError(t, err)
	assert.Len(t, page.Session.Messages, 11)
	assert.Equal(t, 22, lines, "only the appended line is read")
	infos, err := s.List(ctx)
	require.NoError(t, err)
	require.Len(t, infos, 1)
	assert.Equal(t, 11, infos[0].ToolCalls)
	assert.Equal(t, 22, lines)
}

// TestLineStoreGuessesOnce: a session found through Guess is not looked
// for again by every LoadOutput (each would build the session anew).
func TestLineStoreGuessesOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "toy.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("{\"call\":\"c1\",\"tool\":\"bash\"}\n{\"result\":\"c1\",\"out\":\"output 1\"}\n"), 0o644))
	var lines int
	st := toyStore(p, &lines)
	guesses := 0
	st.Guess = func(string) []string { guesses++; return []string{p} }
	ctx := context.Background()
	_, err := st.LoadOutline(ctx, "toy", 0, 0)
	require.NoError(t, err)
	for range 3 {
		_, err := st.LoadOutput(ctx, "toy", "c1")
		require.NoError(t, err)
	}
	assert.Equal(t, 1, guesses)
}
