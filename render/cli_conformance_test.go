package render_test

import (
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
		m := manifestDirs("../testdata/" + agent + "/*")
		if len(m) == 0 {
			t.Errorf("no recorded %s fixtures: run `go run ./testdata/record -flavour %s`", agent, agent)
		}
		dirs = append(dirs, m...)
	}
	sort.Strings(dirs)
	return dirs
}

func TestCLIConformance(t *testing.T) {
	for _, dir := range cliFixtureDirs(t) {
		name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			st := openStore(t, dir)
			loaded := map[string]*model.Session{}
			checked, results, opaque, projected := 0, 0, 0, 0
			for _, e := range readManifest(t, dir) {
				if e.Kind != "main" {
					continue
				}
				p := providerOf(e.Path)
				sess := loadOnce(t, st, loaded, e, func(sess *model.Session) {
					for _, w := range sess.Warnings {
						t.Errorf("load warning: %s", w)
					}
				})
				want := captured(t, dir, e, p)
				got, err := rendered(t, sess, p, e.Step, render.Model{})
				if err != nil {
					t.Errorf("%s: %v", e.File, err)
					continue
				}
				if p == render.Gemini {
					// correx says how many turns lack their streamed
					// signatures: every dropped one is in such a turn
					dropped, turns := dropOpaqueSignatures(got, want)
					if n := render.GeminiStreamedSignatures(sess, p, e.Step); turns > n || dropped > 0 && render.GeminiStreamedSignaturesNote(n) == "" {
						t.Errorf("%s: %d streamed signatures left out in %d turns, but correx names %d turns", e.File, dropped, turns, n)
					}
					opaque += dropped
				}
				if path, g, w := firstDiff("", got, want); path != "-" {
					t.Errorf("%s (session %s step %d, %s): differs at %s:\n got: %s\nwant: %s", e.File, e.Session, e.Step, p, path, short(g), short(w))
				}
				results += checkCLIShow(t, e.File, p, sess, want, render.GeminiResentResults(sess, e.Step))
				checked++
				// the projections carry the same results
				for _, q := range render.Providers {
					if q == p {
						continue
					}
					pc, err := rendered(t, sess, q, e.Step, render.Model{})
					if err != nil {
						t.Errorf("%s: %s projection: %v", e.File, q, err)
						continue
					}
					projected += checkShow(t, e.File+" ("+string(q)+" projection)", q, sess, pc, "")
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

// TestCLIStoredVsSent reads the recorder's check of every CLI fixture
// (record.json "stored_vs_sent"): each tool result the agent stored was
// found, equal, in the first request after it and in every later one of
// its session; "final" counts a subagent's complete_task, which ends its
// loop and is never sent.
func TestCLIStoredVsSent(t *testing.T) {
	for _, dir := range cliFixtureDirs(t) {
		var rec struct {
			Check *struct {
				Results   int `json:"results"`
				SentNext  int `json:"sent_next"`
				ResentAll int `json:"resent_all"`
				Final     int `json:"final"`
			} `json:"stored_vs_sent"`
			Problems []string `json:"problems"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "record.json"))
		if err == nil {
			err = json.Unmarshal(b, &rec)
		}
		switch c := rec.Check; {
		case err != nil:
			t.Errorf("%s: %v", dir, err)
		case c == nil || c.Results == 0:
			t.Errorf("%s: record.json has no stored_vs_sent check", dir)
		case c.SentNext+c.Final != c.Results || c.ResentAll != c.SentNext || len(rec.Problems) > 0:
			t.Errorf("%s: stored vs sent %+v, problems %q", dir, *c, rec.Problems)
		default:
			t.Logf("%s: %d results sent as stored and re-sent unchanged, %d final", filepath.Base(dir), c.SentNext, c.Final)
		}
	}
}

// dropOpaqueSignatures removes from the captured Gemini contents the
// thoughtSignatures the model streamed in the live run, which Gemini CLI
// keeps in memory only (correx renders the part without one), and returns
// how many it removed and from how many contents. Sentinel signatures
// Gemini CLI adds itself are compared.
func dropOpaqueSignatures(got, want any) (dropped, contents int) {
	g, _ := got.([]any)
	w, _ := want.([]any)
	for i := 0; i < min(len(g), len(w)); i++ {
		gp := blocks(g[i].(map[string]any)["parts"])
		wp := blocks(w[i].(map[string]any)["parts"])
		before := dropped
		for j := 0; j < min(len(gp), len(wp)); j++ {
			sig, ok := wp[j]["thoughtSignature"].(string)
			if _, has := gp[j]["thoughtSignature"]; ok && !has && sig != "skip_thought_signature_validator" {
				delete(wp[j], "thoughtSignature")
				dropped++
			}
		}
		if dropped > before {
			contents++
		}
	}
	return dropped, contents
}

// checkCLIShow compares each tool result on the agent's own wire with
// `correx show` (the model-visible text, spill finder as the CLI uses it),
// or, for a result this request re-sent shrunk (a Gemini CLI resume's
// setHistory), with the form render says it sent.
func checkCLIShow(t *testing.T, file string, p render.Provider, sess *model.Session, conv any, resent map[string][]string) int {
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
				if rs := resent[id]; len(rs) > 0 {
					r := rs[0]
					resent[id] = rs[1:]
					if r != s {
						t.Errorf("%s: call %s: render says it re-sent %q, the wire has %q", file, id, short(r), short(s))
					}
					n++
					continue
				}
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
