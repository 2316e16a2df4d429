package render_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"correx/formatters"
	"correx/internal/fixtures"
	"correx/model"
	"correx/render"
	"correx/sessions"
	"correx/sessions/opencode"
)

// TestPlacementsEveryFixture: for every call of every session of every
// fixture of every agent, on every provider and lowering, the request
// that carried its result places the call and the result, and the result
// there is what `correx show` prints for that lowering. Opencode's SQLite
// sessions are also rendered lazily (render.ConversationLazy), which must
// place them the same.
func TestPlacementsEveryFixture(t *testing.T) {
	ctx := context.Background()
	total := map[string]int{}
	for _, f := range fixtures.All(t) {
		t.Run(f.ID(), func(t *testing.T) {
			st, err := sessions.Open(f.Source)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			infos, err := st.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			calls, checked, placed, lazyRenders := 0, 0, 0, 0
			for _, in := range infos {
				sess, err := st.Load(ctx, in.ID)
				if err != nil {
					t.Fatal(err)
				}
				var outline *model.Session
				lazy := sessions.LazyFor(st, in.ID)
				if lazy != nil {
					page, err := lazy.LoadOutline(ctx, in.ID, 0, 0)
					if err != nil {
						t.Fatal(err)
					}
					outline = page.Session
				}
				caps, _ := opencode.Capabilities(sess, opencode.FixtureMachine(filepath.Join(f.Dir, "root"), f.Record.Env))
				steps := sess.AssistantSteps()
				stepOf := map[int]int{}
				for i, mi := range steps {
					stepOf[mi] = i + 1
				}
				for _, low := range lowerings(sess.Info) {
					for _, p := range render.Providers {
						m := render.Model{Lowering: low, Caps: caps}
						convs := map[int]*render.Rendered{}
						for _, ref := range sess.ToolCalls() {
							step := stepOf[ref.Message] + 1
							if low == lowerings(sess.Info)[0] && p == render.Providers[0] {
								calls++
							}
							if step > len(steps) {
								continue // the session ended before the result was sent
							}
							r := convs[step]
							if r == nil {
								if r, err = render.Render(sess, p, step, m); err != nil {
									t.Fatalf("%s step %d %s %s: %v", in.ID, step, p, low, err)
								}
								convs[step] = r
								b, err := render.MarshalIndent(r.Value)
								if err != nil {
									t.Fatal(err)
								}
								checkStringified(t, b, fmt.Sprintf("%s step %d %s %s", in.ID, step, p, low))
								if outline != nil {
									checkLazySame(t, ctx, lazy, outline, p, step, m, r, b)
									lazyRenders++
								}
							}
							checked++
							if checkPlacement(t, p, sess, ref, r, m) {
								placed++
							}
						}
						for step := 1; step <= len(steps); step++ {
							if convs[step] != nil {
								continue // checked above
							}
							r, err := render.Render(sess, p, step, m)
							if err != nil {
								t.Fatalf("%s step %d %s %s: %v", in.ID, step, p, low, err)
							}
							b, err := render.MarshalIndent(r.Value)
							if err != nil {
								t.Fatal(err)
							}
							checkStringified(t, b, fmt.Sprintf("%s step %d %s %s", in.ID, step, p, low))
						}
					}
				}
			}
			t.Logf("%s: %d calls; %d call×provider×lowering checked, %d results placed; %d lazy conversations placed the same", f.ID(), calls, checked, placed, lazyRenders)
			total["calls"] += calls
			total["checked"] += checked
			total["placed"] += placed
			if checked == 0 {
				t.Fatal("no call checked")
			}
		})
	}
	t.Logf("all fixtures: %d calls; %d call×provider×lowering checked, %d placements found", total["calls"], total["checked"], total["placed"])
}

// checkStringified fails when a conversation as written is not, but for
// its indentation, what JSON.stringify writes of its value: an escape
// JSON.stringify does not write (\u003c, \u003e, \u0026, \/, \u00e9, an
// upper-case hex digit). Every request a real agent sent is in that form.
func checkStringified(t *testing.T, b []byte, what string) {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	v, err := render.OrderedJSON(b)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	want, err := formatters.Stringify(v)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got := compact.Bytes(); !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Errorf("%s: written %q, JSON.stringify writes %q", what, got[max(0, i-40):min(len(got), i+40)], want[max(0, i-40):min(len(want), i+40)])
	}
}

// lowerings are the lowerings a session can be rendered under.
func lowerings(in model.SessionInfo) []model.Lowering {
	if render.SessionLowering(in, "") != model.LoweringAISDK {
		return []model.Lowering{render.SessionLowering(in, "")}
	}
	return []model.Lowering{model.LoweringAISDK, model.LoweringNative}
}

func checkLazySame(t *testing.T, ctx context.Context, l render.OutputLoader, outline *model.Session, p render.Provider, step int, m render.Model, want *render.Rendered, wantJSON []byte) {
	t.Helper()
	lc, err := render.ConversationLazy(ctx, l, outline, p, step, m)
	if err != nil {
		t.Fatalf("lazy step %d %s: %v", step, p, err)
	}
	defer lc.Close()
	if !reflect.DeepEqual(lc.Places, want.Places) {
		t.Errorf("lazy step %d %s %s: placements differ from the eager conversation's", step, p, m.Lowering)
	}
	b, err := lc.MarshalIndent(ctx, lc.Value)
	if err != nil {
		t.Fatalf("lazy step %d %s: %v", step, p, err)
	}
	if !bytes.Equal(b, wantJSON) {
		t.Errorf("lazy step %d %s %s: the written conversation is not the eager one's", step, p, m.Lowering)
	}
	checkStringified(t, b, fmt.Sprintf("lazy step %d %s %s", step, p, m.Lowering))
}

// checkPlacement checks the placement in r of ref's call, rendered for
// m, and reports whether it places a result.
func checkPlacement(t *testing.T, p render.Provider, sess *model.Session, ref model.CallRef, r *render.Rendered, m render.Model) bool {
	t.Helper()
	call, low := ref.Call, m.Lowering
	where := sess.Info.ID + " " + string(p) + " " + string(low) + " call " + call.CallID + " (" + call.Tool + ")"
	pl := r.Places[call.CallID]
	if pl == nil {
		t.Errorf("%s: not placed", where)
		return false
	}
	if pl.Lowering != low || r.Lowering != low {
		t.Errorf("%s: placed under lowering %q, rendered %q", where, pl.Lowering, low)
	}
	items := generic(t, r.Value)
	if e := entries(items, p, pl.Call, true); len(e) != 1 || callName(p, e[0]) != call.Tool && callName(p, e[0]) != "" {
		t.Errorf("%s: the call spot %+v holds %s", where, pl.Call, short(e))
	}
	for _, s := range pl.Media {
		// the media, or opencode's error text for a text-only model
		if it, _ := items[s.Item].(map[string]any); it["role"] != "user" || len(entries(items, p, s, false)) != s.Parts {
			t.Errorf("%s: media spot %+v is not in a user message", where, s)
		}
	}
	if call.IsV2() && !formatters.V2Settled(call) {
		if len(pl.Results) > 0 {
			t.Errorf("%s: an unsettled v2 call has a result placed", where)
		}
		return false
	}
	if len(pl.Results) == 0 {
		t.Errorf("%s: no result placed", where)
		return false
	}
	cm := render.CarrierModel(sess, ref.Message, low)
	cm.Caps = m.Caps
	vis := render.Visible(call, nil, p, cm)
	for _, s := range pl.Results {
		got, ok := resultText(p, entries(items, p, s, false))
		switch {
		case !ok || got == vis.Text:
		case vis.Result.Type == model.ResultContent:
			got = contentText(got) // the content value, sent as its JSON
		case vis.Result.Type == model.ResultJSON && canonical(got) == canonical(vis.Text):
			got = vis.Text // a json value sent as one (Bedrock's json block)
		}
		if !ok || got != vis.Text {
			t.Errorf("%s: the result at %+v is %s, show prints %s", where, s, short(got), short(vis.Text))
		}
	}
	return true
}

// canonical is a JSON text with its keys sorted.
func canonical(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// contentText is the text items of a content value's JSON, joined by
// newlines.
func contentText(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	return texts(v, "text")
}

func generic(t *testing.T, v render.Value) []any {
	b, err := render.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var items []any
	if err := json.Unmarshal(b, &items); err != nil {
		t.Fatal(err)
	}
	return items
}

// entries are the JSON values a spot names: the item itself (Part -1), or
// Parts entries of its list (tool_calls for a call on OpenAI Chat).
func entries(items []any, p render.Provider, s render.Spot, call bool) []any {
	if s.Item < 0 || s.Item >= len(items) {
		return nil
	}
	if s.Part < 0 {
		return []any{items[s.Item]}
	}
	it, _ := items[s.Item].(map[string]any)
	key := "content"
	switch {
	case p == render.Gemini:
		key = "parts"
	case p == render.OpenAIChat && call:
		key = "tool_calls"
	}
	list, _ := it[key].([]any)
	if s.Part+s.Parts > len(list) {
		return nil
	}
	return list[s.Part : s.Part+s.Parts]
}

// callName is the tool name of a call entry ("" when the wire names none
// where it is looked for).
func callName(p render.Provider, e any) string {
	m, _ := e.(map[string]any)
	if f, ok := m["function"].(map[string]any); ok { // OpenAI Chat
		m = f
	}
	for _, k := range []string{"toolUse", "functionCall"} {
		if inner, ok := m[k].(map[string]any); ok {
			m = inner
		}
	}
	name, _ := m["name"].(string)
	if m["type"] == "local_shell_call" {
		return "local_shell"
	}
	return name
}

// resultText is the text of a placed result's entries as `correx show`
// prints it: a content value's text items are joined by newlines.
func resultText(p render.Provider, es []any) (string, bool) {
	var out []string
	for _, e := range es {
		m, _ := e.(map[string]any)
		r, ok := resultEntry(p, m)
		switch {
		case ok:
			out = append(out, r.text)
		case p != render.Gemini:
			return "", false
		}
	}
	// Gemini before 3 sends a content result's items as parts: a result of
	// media only has no functionResponse, and no text
	return strings.Join(out, "\n"), len(es) > 0 && (len(out) > 0 || p == render.Gemini)
}
