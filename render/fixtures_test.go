package render_test

// Helpers of the conformance tests: the recorded fixtures (testdata/record
// writes them), their captured requests, and comparing JSON.

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

	"correx/model"
	"correx/render"
	"correx/sessions"
)

// manifestDirs returns the fixture dirs whose requests/manifest.json match
// glob (relative to a fixture's parent), sorted.
func manifestDirs(glob string) []string {
	found, _ := filepath.Glob(glob + "/requests/manifest.json")
	dirs := make([]string, 0, len(found))
	for _, m := range found {
		dirs = append(dirs, filepath.Dir(filepath.Dir(m)))
	}
	sort.Strings(dirs)
	return dirs
}

func readManifest(t *testing.T, dir string) []manifestEntry {
	var manifest []manifestEntry
	b, err := os.ReadFile(filepath.Join(dir, "requests", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &manifest); err != nil {
		t.Fatal(err)
	}
	return manifest
}

// loadOnce returns e's session from loaded, loading it on first use; fresh,
// if not nil, sees each newly loaded session.
func loadOnce(t *testing.T, st sessions.Store, loaded map[string]*model.Session, e manifestEntry, fresh func(*model.Session)) *model.Session {
	if sess := loaded[e.Session]; sess != nil {
		return sess
	}
	sess, err := st.Load(context.Background(), e.Session)
	if err != nil {
		t.Fatalf("%s: %v", e.File, err)
	}
	if fresh != nil {
		fresh(sess)
	}
	loaded[e.Session] = sess
	return sess
}

// captured is the conversation of e's captured request body.
func captured(t *testing.T, dir string, e manifestEntry, p render.Provider) any {
	body, err := os.ReadFile(filepath.Join(dir, "requests", e.File))
	if err != nil {
		t.Fatal(err)
	}
	return capturedConversation(p, decode(t, body).(map[string]any))
}

// rendered is render.Conversation decoded as generic JSON, to compare with
// a captured body.
func rendered(t *testing.T, sess *model.Session, p render.Provider, step int, m render.Model) (any, error) {
	conv, err := render.Conversation(sess, p, step, m)
	if err != nil {
		return nil, err
	}
	raw, err := render.Marshal(conv)
	if err != nil {
		t.Fatal(err)
	}
	// MarshalIndent streams (WriteIndent): it must give json.Indent's bytes
	var want bytes.Buffer
	if err := json.Indent(&want, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	if got, err := render.MarshalIndent(conv); err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("MarshalIndent differs from json.Indent of Marshal (err %v)", err)
	}
	return decode(t, raw), nil
}

type manifestEntry struct {
	File    string `json:"file"`
	Path    string `json:"path"`
	Kind    string `json:"kind"`
	Session string `json:"session"`
	Step    int    `json:"step"`
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

// checkShow compares every tool result in a captured conversation with the
// model-visible text of its call, as `correx show` prints it.
func checkShow(t *testing.T, file string, p render.Provider, sess *model.Session, conv any, l model.Lowering) int {
	n := 0
	for _, r := range wireResults(p, conv) {
		ref, ok := findWireCall(sess, r.id, l)
		if r.id == "" { // Gemini: results have no id; match by position
			ref, ok = nthCall(sess, n)
		}
		if !ok {
			t.Errorf("%s: tool result for unknown call %q", file, r.id)
			continue
		}
		v := render.Visible(ref.Call, nil, p, render.CarrierModel(sess, ref.Message, l))
		if v.Text != r.text {
			t.Errorf("%s: call %s (%s): show prints %q, the wire has %q", file, ref.Call.CallID, ref.Call.Tool, short(v.Text), short(r.text))
		}
		n++
	}
	return n
}

// findWireCall finds the call whose id went out as id: the stored id, or
// the id the AI SDK path rewrote it to for a step's model (WireCallID).
func findWireCall(sess *model.Session, id string, l model.Lowering) (model.CallRef, bool) {
	if ref, ok := sess.FindCall(id); ok || id == "" || l != model.LoweringAISDK {
		return ref, ok
	}
	for _, ref := range sess.ToolCalls() {
		for _, mi := range sess.AssistantSteps() {
			at := sess.Messages[mi]
			m := render.Model{ProviderID: at.ProviderID, ModelID: at.ModelID}
			if m.WireCallID(ref.Call.CallID) == id {
				return ref, true
			}
		}
	}
	return model.CallRef{}, false
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
		entries := []map[string]any{msg}
		switch p {
		case render.Anthropic, render.Bedrock:
			entries = blocks(msg["content"])
		case render.Gemini:
			entries = blocks(msg["parts"])
		}
		for _, e := range entries {
			if r, ok := resultEntry(p, e); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// resultEntry is the call id and text of a tool result entry on p's wire
// (a message, item, block or part); ok is false for any other entry.
// Gemini's results carry no id but on Gemini CLI's own wire.
func resultEntry(p render.Provider, e map[string]any) (r wireResult, ok bool) {
	str := func(v any) string { s, _ := v.(string); return s }
	switch p {
	case render.OpenAIChat:
		// a string, or text parts (Qwen Code's one-text-part list)
		return wireResult{str(e["tool_call_id"]), texts(e["content"], "text")}, e["role"] == "tool"
	case render.OpenAIResponses:
		t := str(e["type"])
		return wireResult{str(e["call_id"]), texts(e["output"], "input_text")}, strings.HasSuffix(t, "_output")
	case render.Anthropic:
		return wireResult{str(e["tool_use_id"]), texts(e["content"], "text")}, e["type"] == "tool_result"
	case render.Bedrock:
		tr, ok := e["toolResult"].(map[string]any)
		if bl := blocks(tr["content"]); len(bl) == 1 && bl[0]["json"] != nil {
			b, _ := json.Marshal(bl[0]["json"]) // native: a json value as one block
			return wireResult{str(tr["toolUseId"]), string(b)}, ok
		}
		return wireResult{str(tr["toolUseId"]), texts(tr["content"], "")}, ok
	case render.Gemini:
		fr, ok := e["functionResponse"].(map[string]any)
		resp, _ := fr["response"].(map[string]any)
		var v any
		for _, k := range []string{"content", "output", "error"} {
			if x, has := resp[k]; has {
				v = x
				break
			}
		}
		s, isStr := v.(string)
		if !isStr {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		return wireResult{str(fr["id"]), s}, ok
	}
	return wireResult{}, false
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
