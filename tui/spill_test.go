//go:build unix

package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"correx/model"
	"correx/sessions"
)

// spillStore is a store of one opencode session in dataDir with one
// tail-truncated bash call whose transcript names recorded as its spill.
func spillStore(dataDir, recorded string) Options {
	out := "...output truncated...\n\nFull output saved to: " + recorded + "\n\nlast line\n"
	in, _ := json.Marshal(map[string]string{"command": "seq 1 3000"})
	sess := &model.Session{
		Info: model.SessionInfo{ID: "ses_spill", Agent: model.AgentOpencode, Title: "spill", Updated: fakeNow,
			Messages: 1, ToolCalls: 1, Truncated: 1, DataDir: dataDir},
		Messages: []model.Message{{ID: "msg_1", Role: model.RoleAssistant, Created: fakeNow, Completed: fakeNow,
			Parts: []model.Part{{ID: "prt_1", Type: model.PartTool, Tool: &model.ToolCall{
				CallID: "call_spill", Tool: "bash", Status: model.StatusCompleted, Input: in, Output: out,
				Metadata: json.RawMessage(`{"truncated":true}`), Start: fakeNow, End: fakeNow}}}}},
	}
	return Options{Stores: []sessions.Store{&fakeStore{
		infos: []model.SessionInfo{sess.Info},
		sess:  map[string]*model.Session{sess.Info.ID: sess},
	}}}
}

// TestSpillOutsideAsksFirst: a transcript that names a file outside the
// agent's spill folder as its spill does not get it read: o says where it
// is and opens it only when pressed again.
func TestSpillOutsideAsksFirst(t *testing.T) {
	tmp := t.TempDir()
	outside := filepath.Join(tmp, "elsewhere", "secret.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(outside), 0o755))
	require.NoError(t, os.WriteFile(outside, []byte("the secret line\n"), 0o644))
	h := newHarness(t, spillStore(filepath.Join(tmp, "data"), outside), 220, 30)
	h.key("enter")
	h.selectCall("call_spill")
	require.Contains(t, h.plain(), "full output: "+outside)

	h.key("o")
	require.Nil(t, h.m.spill)
	require.Equal(t, "outside opencode's spill folder: press o again to open", h.m.status.text)
	require.NotContains(t, h.plain(), "the secret line")
	h.key("o")
	require.NotNil(t, h.m.spill)
	require.False(t, h.m.spill.loading)
	require.Contains(t, h.plain(), "the secret line")
	h.key("esc")

	// asked once is not asked for ever
	h.key("O")
	require.Equal(t, "outside opencode's spill folder: press O again to open", h.m.status.text)
	h.key("o")
	require.NotNil(t, h.m.spill, "o after O: asked")
	h.key("esc", "o")
	require.Nil(t, h.m.spill, "asked again after it was opened")
}

// TestSpillFIFONeverLoads: a FIFO where a spill goes never blocks loading
// the session nor the viewer, which says why it shows nothing.
func TestSpillFIFONeverLoads(t *testing.T) {
	data := t.TempDir()
	fifo := filepath.Join(data, "tool-output", "tool_fifo")
	require.NoError(t, os.MkdirAll(filepath.Dir(fifo), 0o755))
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	done := make(chan *harness, 1)
	go func() {
		h := newHarness(t, spillStore(data, fifo), 220, 30)
		h.key("enter")
		h.selectCall("call_spill")
		h.key("o")
		done <- h
	}()
	var h *harness
	select {
	case h = <-done:
	case <-time.After(2 * time.Minute): // a hang guard, not a timing assert
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close() // lets the blocked reader go
		}
		t.Fatal("opening a FIFO spill blocked")
	}
	require.NotNil(t, h.m.spill)
	require.False(t, h.m.spill.loading)
	require.Zero(t, h.m.loading)
	require.Contains(t, h.plain(), "could not read the spill file: not a regular file: "+fifo+" (a named pipe)")
}
