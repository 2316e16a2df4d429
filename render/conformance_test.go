package render_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"correx/formatters"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// Conformance: for every request opencode made in a recorded run, correx's
// Conversation must equal the conversation in the captured body, and every
// tool result in that body must equal what `correx show` prints.
//
// The fixtures are real runs (testdata/record); a flavour is a directory of
// testdata/opencode.

type manifestEntry struct {
	File    string `json:"file"`
	Path    string `json:"path"`
	Kind    string `json:"kind"`
	Session string `json:"session"`
	Step    int    `json:"step"`
}

// fixtureDirs returns the recorded flavours.
func fixtureDirs(t *testing.T) []string {
	dirs, _ := filepath.Glob("../testdata/opencode/*/requests/manifest.json")
	if len(dirs) == 0 {
		t.Fatal("no recorded fixtures under testdata/opencode: run `go run ./testdata/record`")
	}
	for i, d := range dirs {
		dirs[i] = filepath.Dir(filepath.Dir(d))
	}
	sort.Strings(dirs)
	return dirs
}

// providerOf names the wire API of a captured request by its endpoint.
func providerOf(path string) render.Provider {
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return render.OpenAIChat
	case strings.HasSuffix(path, "/responses"):
		return render.OpenAIResponses
	case strings.HasSuffix(path, "/messages"):
		return render.Anthropic
	case strings.Contains(path, ":streamGenerateContent"):
		return render.Gemini
	case strings.Contains(path, "/converse"):
		return render.Bedrock
	}
	return ""
}

// capturedConversation cuts the conversation out of a request body, the
// way `correx wire` documents it.
func capturedConversation(p render.Provider, body map[string]any) any {
	switch p {
	case render.OpenAIChat:
		return without(body["messages"], "role", "system")
	case render.OpenAIResponses:
		return without(without(body["input"], "role", "system"), "role", "developer")
	case render.Gemini:
		return body["contents"]
	}
	return body["messages"]
}

func without(list any, key, val string) []any {
	out := []any{}
	for _, v := range list.([]any) {
		if m, ok := v.(map[string]any); ok && m[key] == val {
			continue
		}
		out = append(out, v)
	}
	return out
}

// recordOpts reads what the recorder says about a flavour (record.json):
// text_only, the model declared without image input, decides how images
// are sent; lowering ("ai-sdk", "native" for OPENCODE_EXPERIMENTAL_NATIVE_LLM=1,
// "v2" for the v2 loop; absent means ai-sdk) which lowering built the
// requests. v2 sessions are lowered natively by default.
func recordOpts(t *testing.T, dir string) render.Model {
	var rec struct {
		TextOnly bool   `json:"text_only"`
		Lowering string `json:"lowering"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "record.json"))
	_ = json.Unmarshal(b, &rec)
	m := render.Model{TextOnly: rec.TextOnly}
	switch rec.Lowering {
	case "", "ai-sdk":
		m.Lowering = model.LoweringAISDK
	case "native":
		m.Lowering = model.LoweringNative
	case "v2":
		// the session's own default: native
	default:
		t.Fatalf("%s: unknown lowering %q in record.json", dir, rec.Lowering)
	}
	return m
}

func openStore(t *testing.T, dir string) sessions.Store {
	src := filepath.Join(dir, "data")
	st, err := sessions.Open(src)
	if err != nil {
		t.Fatalf("open %s: %v", src, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func decode(t *testing.T, b []byte) any {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return v
}

func TestConformance(t *testing.T) {
	for _, dir := range fixtureDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var manifest []manifestEntry
			b, err := os.ReadFile(filepath.Join(dir, "requests", "manifest.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &manifest); err != nil {
				t.Fatal(err)
			}
			st := openStore(t, dir)
			loaded := map[string]*model.Session{}
			opts := recordOpts(t, dir)
			checked, results := 0, 0
			for _, e := range manifest {
				if e.Kind != "main" {
					continue
				}
				p := providerOf(e.Path)
				sess := loaded[e.Session]
				if sess == nil {
					if sess, err = st.Load(context.Background(), e.Session); err != nil {
						t.Fatalf("%s: %v", e.File, err)
					}
					loaded[e.Session] = sess
				}
				body, err := os.ReadFile(filepath.Join(dir, "requests", e.File))
				if err != nil {
					t.Fatal(err)
				}
				want := capturedConversation(p, decode(t, body).(map[string]any))
				if opts.Lowering == "" && sess.Info.Pipeline != model.PipelineV2 {
					t.Fatalf("%s: a v2 flavour whose session %s did not load as v2", e.File, e.Session)
				}
				conv, err := render.Conversation(sess, p, e.Step, opts)
				if err != nil {
					t.Errorf("%s: %v", e.File, err)
					continue
				}
				raw, err := render.Marshal(conv)
				if err != nil {
					t.Fatal(err)
				}
				got := decode(t, raw)
				if path, g, w := firstDiff("", got, want); path != "-" {
					t.Errorf("%s (session %s step %d, %s): differs at %s:\n got: %s\nwant: %s", e.File, e.Session, e.Step, p, path, short(g), short(w))
				}
				results += checkShow(t, e.File, p, sess, want, opts.Lowering)
				checked++
			}
			t.Logf("%s: %d requests, %d tool results compared", filepath.Base(dir), checked, results)
			if checked == 0 {
				t.Fatal("no main request in the manifest")
			}
		})
	}
}

// checkShow compares every tool result in a captured conversation with the
// model-visible text of its call, as `correx show` prints it.
func checkShow(t *testing.T, file string, p render.Provider, sess *model.Session, conv any, l model.Lowering) int {
	n := 0
	for _, r := range wireResults(p, conv) {
		ref, ok := sess.FindCall(r.id)
		if r.id == "" { // Gemini: results have no id; match by position
			ref, ok = nthCall(sess, n)
		}
		if !ok {
			t.Errorf("%s: tool result for unknown call %q", file, r.id)
			continue
		}
		v := formatters.Visible(ref.Call, nil, formatters.WithLowering(l))
		if v.Text != r.text {
			t.Errorf("%s: call %s (%s): show prints %q, the wire has %q", file, ref.Call.CallID, ref.Call.Tool, short(v.Text), short(r.text))
		}
		n++
	}
	return n
}

func nthCall(sess *model.Session, n int) (model.CallRef, bool) {
	calls := sess.ToolCalls()
	if n < len(calls) {
		return calls[n], true
	}
	return model.CallRef{}, false
}

type wireResult struct{ id, text string }

// wireResults pulls (call id, text) out of each tool result on the wire.
func wireResults(p render.Provider, conv any) []wireResult {
	var out []wireResult
	for _, m := range conv.([]any) {
		msg := m.(map[string]any)
		switch p {
		case render.OpenAIChat:
			if msg["role"] == "tool" {
				out = append(out, wireResult{msg["tool_call_id"].(string), msg["content"].(string)})
			}
		case render.OpenAIResponses:
			if msg["type"] == "function_call_output" {
				out = append(out, wireResult{msg["call_id"].(string), texts(msg["output"], "input_text")})
			}
		case render.Anthropic:
			for _, c := range blocks(msg["content"]) {
				if c["type"] == "tool_result" {
					out = append(out, wireResult{c["tool_use_id"].(string), texts(c["content"], "text")})
				}
			}
		case render.Bedrock:
			for _, c := range blocks(msg["content"]) {
				if tr, ok := c["toolResult"].(map[string]any); ok {
					out = append(out, wireResult{tr["toolUseId"].(string), texts(tr["content"], "")})
				}
			}
		case render.Gemini:
			for _, c := range blocks(msg["parts"]) {
				if fr, ok := c["functionResponse"].(map[string]any); ok {
					content := fr["response"].(map[string]any)["content"]
					s, ok := content.(string)
					if !ok {
						b, _ := json.Marshal(content)
						s = string(b)
					}
					out = append(out, wireResult{"", s})
				}
			}
		}
	}
	return out
}

func blocks(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, b := range list {
		if m, ok := b.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// texts is a string value, or the text items of a content array joined by
// newlines (kind "" matches Bedrock's {"text"} blocks).
func texts(v any, kind string) string {
	if s, ok := v.(string); ok {
		return s
	}
	var parts []string
	for _, b := range blocks(v) {
		if s, ok := b["text"].(string); ok && (kind == "" || b["type"] == kind) {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// firstDiff returns the JSON path of the first difference, or "-".
func firstDiff(path string, got, want any) (string, any, any) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, got, want
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if p, a, b := firstDiff(path+"."+k, g[k], w[k]); p != "-" {
				return p, a, b
			}
		}
		return "-", nil, nil
	case []any:
		g, ok := got.([]any)
		if !ok {
			return path, got, want
		}
		for i := 0; i < min(len(g), len(w)); i++ {
			if p, a, b := firstDiff(fmt.Sprintf("%s[%d]", path, i), g[i], w[i]); p != "-" {
				return p, a, b
			}
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s (length %d, want %d)", path, len(g), len(w)), nil, nil
		}
		return "-", nil, nil
	}
	if !reflect.DeepEqual(got, want) {
		return path, got, want
	}
	return "-", nil, nil
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if s, ok := v.(string); ok {
		b = []byte(fmt.Sprintf("%q", s))
	}
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}
