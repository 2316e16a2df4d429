package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/sessions"
	"correx/sessions/opencode"
)

// The Wire pane says what the model was declared to take and where that
// was read (the local recording's global JSONC config), and I cycles the
// override, which the rendered request follows.
func TestInputsHeaderAndOverride(t *testing.T) {
	const dir = "../testdata/opencode/local"
	var rec struct {
		Env []string `json:"env"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "record.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rec))
	s, err := sessions.Open(filepath.Join(dir, "data"))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	mc := opencode.FixtureMachine(filepath.Join(dir, "root"), rec.Env)
	h := newHarness(t, Options{Stores: []sessions.Store{s}, Machine: mc}, 200, 30)
	for k, i := range h.m.picker.shown {
		if h.m.picker.all[i].ParentID == "" {
			h.m.picker.sel = k
		}
	}
	h.key("enter")
	v := h.m.current()
	require.NotNil(t, v)
	i, ok := findRow(v, func(ci *callInfo) bool { return ci.call().Tool == "read" && len(ci.call().Attachments) > 0 })
	require.True(t, ok, "no image read")
	v.list.Select(i)
	h.key("3")
	require.Contains(t, h.plain(), "inputs: text-only · from ~/.config/opencode/opencode.jsonc")
	require.Contains(t, requestJSON(t, h), "ERROR: Cannot read image")
	h.key("I")
	require.Contains(t, h.plain(), "inputs: text-only · overridden (declared: text-only")
	h.key("I")
	require.Contains(t, h.plain(), "inputs: all inputs · overridden (declared: text-only")
	require.NotContains(t, requestJSON(t, h), "ERROR: Cannot read image")
	require.Contains(t, requestJSON(t, h), `"image_url"`)
	h.key("I")
	require.Contains(t, h.plain(), "inputs: text-only · from ~/.config/opencode/opencode.jsonc")
}

// requestJSON is the JSON the Wire pane shows of the selected call's
// request, under the current override.
func requestJSON(t *testing.T, h *harness) string {
	v := h.m.current()
	r, _ := v.list.Selected()
	for k, res := range h.m.convs.convs {
		if k.sess == v.data.sess && k.p == v.provider && k.inputs == h.m.inputs && res.rendered {
			return res.excerpts[r.info().call().CallID].wire
		}
	}
	t.Fatal("no rendered conversation under the current override")
	return ""
}
