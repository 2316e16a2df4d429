package render_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"correx/formatters"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// CLI conformance: for every request Codex CLI or Gemini CLI made in a
// recorded run (testdata/record), the conversation correx renders for the
// agent's own wire from the stored session must equal the captured body,
// and every tool result in it must equal what `correx show` prints. The
// other providers' projections must carry the same result texts.

func cliFixtureDirs(t *testing.T) []string {
	var dirs []string
	for _, agent := range []string{"codex", "gemini-cli"} {
		m, _ := filepath.Glob("../testdata/" + agent + "/*/requests/manifest.json")
		if len(m) == 0 {
			t.Errorf("no recorded %s fixtures: run `go run ./testdata/record -flavour %s`", agent, agent)
		}
		for _, f := range m {
			dirs = append(dirs, filepath.Dir(filepath.Dir(f)))
		}
	}
	sort.Strings(dirs)
	return dirs
}

func TestCLIConformance(t *testing.T) {
	for _, dir := range cliFixtureDirs(t) {
		name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
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
			checked, results, opaque, projected := 0, 0, 0, 0
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
					for _, w := range sess.Warnings {
						t.Errorf("load warning: %s", w)
					}
					loaded[e.Session] = sess
				}
				body, err := os.ReadFile(filepath.Join(dir, "requests", e.File))
				if err != nil {
					t.Fatal(err)
				}
				want := capturedConversation(p, decode(t, body).(map[string]any))
				conv, err := render.Conversation(sess, p, e.Step, render.Model{})
				if err != nil {
					t.Errorf("%s: %v", e.File, err)
					continue
				}
				raw, err := render.Marshal(conv)
				if err != nil {
					t.Fatal(err)
				}
				got := decode(t, raw)
				if p == render.Gemini {
					opaque += dropOpaqueSignatures(got, want)
				}
				if path, g, w := firstDiff("", got, want); path != "-" {
					t.Errorf("%s (session %s step %d, %s): differs at %s:\n got: %s\nwant: %s", e.File, e.Session, e.Step, p, path, short(g), short(w))
				}
				results += checkCLIShow(t, e.File, p, sess, want)
				checked++
				// the projections carry the same results
				for _, q := range render.Providers {
					if q == p {
						continue
					}
					pc, err := render.Conversation(sess, q, e.Step, render.Model{})
					if err != nil {
						t.Errorf("%s: %s projection: %v", e.File, q, err)
						continue
					}
					pr, _ := render.Marshal(pc)
					projected += checkProjection(t, e.File+" ("+string(q)+" projection)", q, sess, decode(t, pr))
				}
			}
			t.Logf("%s: %d requests, %d tool results compared on the agent's wire (%d thoughtSignatures the model streamed are not stored: left out), %d in projections",
				name, checked, results, opaque, projected)
			if checked == 0 {
				t.Fatal("no main request in the manifest")
			}
		})
	}
}

// dropOpaqueSignatures removes from the captured Gemini contents the
// thoughtSignatures the model streamed in the live run, which Gemini CLI
// keeps in memory only (correx renders the part without one). Sentinel
// signatures Gemini CLI adds itself are compared.
func dropOpaqueSignatures(got, want any) int {
	g, _ := got.([]any)
	w, _ := want.([]any)
	n := 0
	for i := 0; i < min(len(g), len(w)); i++ {
		gp := blocks(g[i].(map[string]any)["parts"])
		wp := blocks(w[i].(map[string]any)["parts"])
		for j := 0; j < min(len(gp), len(wp)); j++ {
			sig, ok := wp[j]["thoughtSignature"].(string)
			if _, has := gp[j]["thoughtSignature"]; ok && !has && sig != "skip_thought_signature_validator" {
				delete(wp[j], "thoughtSignature")
				n++
			}
		}
	}
	return n
}

// checkCLIShow compares each tool result on the agent's own wire with
// `correx show` (the model-visible text, spill finder as the CLI uses it).
func checkCLIShow(t *testing.T, file string, p render.Provider, sess *model.Session, conv any) int {
	n := 0
	spill := sessions.SpillsFor(sess.Info)
	for _, m := range conv.([]any) {
		msg := m.(map[string]any)
		var id, text string
		switch p {
		case render.OpenAIResponses:
			typ, _ := msg["type"].(string)
			if !strings.HasSuffix(typ, "_call_output") {
				continue
			}
			id, text = msg["call_id"].(string), texts(msg["output"], "input_text")
			n += cliCompare(t, file, sess, spill, id, text)
		case render.Gemini:
			for _, part := range blocks(msg["parts"]) {
				fr, ok := part["functionResponse"].(map[string]any)
				if !ok {
					continue
				}
				resp, _ := fr["response"].(map[string]any)
				s, ok := resp["output"].(string)
				if !ok {
					s, ok = resp["error"].(string)
				}
				if !ok || len(resp) != 1 {
					b, _ := json.Marshal(resp)
					s = string(b)
				}
				id, _ = fr["id"].(string)
				n += cliCompare(t, file, sess, spill, id, s)
			}
		}
	}
	return n
}

func cliCompare(t *testing.T, file string, sess *model.Session, spill formatters.SpillFinder, id, text string) int {
	ref, ok := sess.FindCall(id)
	if !ok {
		t.Errorf("%s: tool result for unknown call %q", file, id)
		return 0
	}
	v := formatters.Visible(ref.Call, spill)
	if v.Text != text {
		t.Errorf("%s: call %s (%s): show prints %q, the wire has %q", file, id, ref.Call.Tool, short(v.Text), short(text))
	}
	return 1
}

// checkProjection compares the tool results of a projection with `correx
// show` (Gemini results carry no id there: matched by position).
func checkProjection(t *testing.T, file string, p render.Provider, sess *model.Session, conv any) int {
	calls := sess.ToolCalls()
	n := 0
	check := func(id, text string) {
		var ref model.CallRef
		ok := false
		if id == "" {
			if n < len(calls) {
				ref, ok = calls[n], true
			}
		} else {
			ref, ok = sess.FindCall(id)
		}
		if !ok {
			t.Errorf("%s: tool result for unknown call %q", file, id)
			return
		}
		if v := formatters.Visible(ref.Call, nil); v.Text != text {
			t.Errorf("%s: call %s (%s): show prints %q, the wire has %q", file, ref.Call.CallID, ref.Call.Tool, short(v.Text), short(text))
		}
		n++
	}
	for _, m := range conv.([]any) {
		msg := m.(map[string]any)
		switch p {
		case render.OpenAIChat:
			if msg["role"] == "tool" {
				check(msg["tool_call_id"].(string), msg["content"].(string))
			}
		case render.OpenAIResponses:
			if msg["type"] == "function_call_output" {
				check(msg["call_id"].(string), texts(msg["output"], "input_text"))
			}
		case render.Anthropic:
			for _, c := range blocks(msg["content"]) {
				if c["type"] == "tool_result" {
					check(c["tool_use_id"].(string), texts(c["content"], "text"))
				}
			}
		case render.Bedrock:
			for _, c := range blocks(msg["content"]) {
				if tr, ok := c["toolResult"].(map[string]any); ok {
					check(tr["toolUseId"].(string), texts(tr["content"], ""))
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
					check("", s)
				}
			}
		}
	}
	return n
}
