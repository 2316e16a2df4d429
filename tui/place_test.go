package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// The Wire, Compare and Pipeline panes show the items render placed each
// call and its result in (render.Placement); these walk every call of
// every fixture of every agent.

// openEach opens every top-level session of fixture f in turn and calls
// each with its view.
func openEach(t *testing.T, f fixtures.Fixture, each func(h *harness, v *sessionView)) {
	st, err := sessions.Open(f.Source)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	h := newHarness(t, Options{Stores: []sessions.Store{st}}, 140, 40)
	var ids []string
	for _, in := range h.m.picker.all {
		if in.ParentID == "" {
			ids = append(ids, in.ID)
		}
	}
	require.NotEmpty(t, ids, "no session in %s", f.ID())
	for _, id := range ids {
		for k, i := range h.m.picker.shown {
			if h.m.picker.all[i].ID == id {
				h.m.picker.sel = k
			}
		}
		h.key("enter")
		v := h.m.current()
		require.NotNil(t, v, "session %s did not open", id)
		each(h, v)
		for h.m.current() != nil {
			h.key("esc")
		}
	}
}

// TestWireShowsEveryResult: on every provider (and both lowerings of
// opencode v1 sessions), the Wire pane of every call whose result was sent
// shows it, never "not found".
func TestWireShowsEveryResult(t *testing.T) {
	shown, withMedia := 0, 0
	for _, f := range fixtures.All(t) {
		t.Run(f.ID(), func(t *testing.T) {
			openEach(t, f, func(h *harness, v *sessionView) {
				lows := []model.Lowering{model.LoweringAISDK}
				if render.SessionLowering(v.data.sess.Info, "") == model.LoweringAISDK {
					lows = append(lows, model.LoweringNative)
				}
				h.key("l", "3")
				for _, low := range lows {
					h.m.lowering = low
					for _, p := range render.Providers {
						v.provider = p
						for i, r := range v.list.rows {
							v.list.Select(i)
							h.send(nil)
							ci := r.info()
							c := ci.call()
							head := strings.Join(v.headers[paneWire], "\n")
							where := f.ID() + " " + string(p) + " " + string(low) + " call " + c.CallID + " (" + c.Tool + ")"
							require.NotContains(t, head, "not found", where)
							require.NotContains(t, head, "not in this conversation", where)
							if requestStep(ci, r.data.sess) == 0 {
								continue // no later request
							}
							require.Contains(t, head, "carried", where)
							text := v.raw[paneWire]
							require.NotEmpty(t, text, where)
							vis := ci.visFor(render.SessionLowering(r.data.sess.Info, low), p)
							if vis.Result.Type == model.ResultText || vis.Result.Type == model.ResultError {
								// a string of the excerpt is the result's text
								var items any
								require.NoError(t, json.Unmarshal([]byte(text), &items), where)
								require.True(t, holds(items, vis.Text), "%s: the result is not in the pane:\n%s", where, text)
							}
							if p == render.OpenAIChat && low == model.LoweringAISDK && hasImage(c) {
								// the synthetic user message with the images
								// follows the tool message
								tool, media := strings.Index(text, `"role": "tool"`), strings.LastIndex(text, `"role": "user"`)
								require.True(t, tool >= 0 && media > tool, "%s: no media message after the tool message:\n%s", where, text)
								withMedia++
							}
							shown++
						}
					}
				}
			})
		})
	}
	t.Logf("%d call×provider×lowering Wire panes showed their result, %d OpenAI Chat ones with their media message", shown, withMedia)
	require.NotZero(t, withMedia, "no image result on OpenAI Chat")
}

// hasImage reports an opencode v1 call with an image attachment.
func hasImage(c *model.ToolCall) bool {
	for _, a := range c.Attachments {
		if strings.HasPrefix(a.Mime, "image/") {
			return true
		}
	}
	return false
}

// holds reports whether s is a string of the JSON value v.
func holds(v any, s string) bool {
	switch x := v.(type) {
	case string:
		return x == s
	case []any:
		for _, it := range x {
			if holds(it, s) {
				return true
			}
		}
	case map[string]any:
		for _, it := range x {
			if holds(it, s) {
				return true
			}
		}
	}
	return false
}

// TestCompareDefaultShowsBothSides: Compare, on the providers it opens
// with, shows the call on both sides for every call whose result was
// sent (Gemini places results by position: it is never half empty).
func TestCompareDefaultShowsBothSides(t *testing.T) {
	for _, f := range fixtures.All(t) {
		t.Run(f.ID(), func(t *testing.T) {
			openEach(t, f, func(h *harness, v *sessionView) {
				h.key("l", "5")
				for i, r := range v.list.rows {
					v.list.Select(i)
					h.send(nil)
					if requestStep(r.info(), r.data.sess) == 0 {
						continue
					}
					where := f.ID() + " " + string(v.provider) + " vs " + string(v.compare) + " call " + r.info().call().CallID
					left, right := false, false
					for _, row := range v.cmp.rows {
						left, right = left || row.hasL && row.left != "", right || row.hasR && row.right != ""
					}
					require.True(t, left && right, "%s: one side is empty: %s", where, strings.Join(v.headers[paneCompare], " "))
				}
			})
		})
	}
}
