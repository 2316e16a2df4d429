package render_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"correx/formatters"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// CLI conformance: for every request an agent of a registered driver
// (sessions/all: Codex CLI, Gemini CLI, …) made in a recorded run
// (testdata/record), the conversation correx renders for the agent's own
// wire from the stored session must equal the captured body,
// and every tool result in it must equal what `correx show` prints. The
// other providers' projections must carry the same result texts.

func cliFixtureDirs(t *testing.T) []string {
	var dirs []string
	for _, a := range model.RegisteredAgents() {
		switch {
		case a.UsesOpencode():
			continue // TestConformance's: whole requests, with the capabilities decided from root/ (opencode and its forks)
		case a == model.AgentClaudeCode:
			continue // its recordings keep Claude Code's own layout: TestClaudeConformance
		}
		m := manifestDirs("../testdata/" + string(a) + "/*")
		if len(m) == 0 {
			t.Errorf("no recorded %s fixtures: run `go run ./testdata/record -flavour %s`", a, a)
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
			checked, results, opaque, projected, gaps := 0, 0, 0, 0, 0
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
				// what the store lacks, and render names: left out of the
				// comparison, counted
				named := render.OwnWireGaps(sess, p, e.Step)
				gaps += dropReminders(t, e.File, want, named)
				gaps += patchGaps(t, e.File, got, want, named)
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
			t.Logf("%s: %d requests, %d tool results compared on the agent's wire (%d thoughtSignatures the model streamed are not stored: left out; %d places the store lacks, labelled by render), %d in projections",
				name, checked, results, opaque, gaps, projected)
			if checked == 0 {
				t.Fatal("no main request in the manifest")
			}
		})
	}
}

// TestCLIStoredVsSent reads the recorder's check of every CLI fixture and
// every fork's (record.json "stored_vs_sent"): each tool result the agent stored was
// found, equal, in the first request after it and in every later one of
// its session, or there in the form Gemini CLI's context management masked
// it to ("resent_masked"); "final" counts a subagent's complete_task,
// which ends its loop and is never sent.
func TestCLIStoredVsSent(t *testing.T) {
	for _, dir := range append(cliFixtureDirs(t), forkFixtureDirs(t)...) {
		var rec struct {
			Check *struct {
				Results      int `json:"results"`
				SentNext     int `json:"sent_next"`
				ResentAll    int `json:"resent_all"`
				ResentMasked int `json:"resent_masked"`
				Final        int `json:"final"`
				// Copilot: failed calls sent in their run as a longer
				// sentence than the stored error.message, then, after a
				// resume, as stored
				SentLonger   int `json:"sent_longer"`
				ResentStored int `json:"resent_stored"`
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
		case c.SentNext+c.Final+c.SentLonger != c.Results || c.ResentAll+c.ResentMasked != c.SentNext || c.ResentStored > c.SentLonger || len(rec.Problems) > 0:
			t.Errorf("%s: stored vs sent %+v, problems %q", dir, *c, rec.Problems)
		default:
			t.Logf("%s: %d results sent as stored and re-sent unchanged (%d of them masked later), %d final, %d failed calls sent longer than stored (%d re-sent as stored after a resume)", filepath.Base(dir), c.SentNext, c.ResentMasked, c.Final, c.SentLonger, c.ResentStored)
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
		case render.OpenAIChat:
			if msg["role"] != "tool" {
				continue
			}
			// a string, or text parts (Qwen Code's one-text-part list)
			id, _ = msg["tool_call_id"].(string)
			text = texts(msg["content"], "text")
			n += cliCompare(t, file, sess, spill, id, text)
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

// dropReminders removes from the captured OpenAI Chat messages the
// <system-reminder> text parts of user messages (Qwen Code's, which it
// does not store), each where render names a gap in that message's
// content, and returns how many it removed.
func dropReminders(t *testing.T, file string, want any, gaps []render.Gap) int {
	named := map[int]bool{}
	for _, g := range gaps {
		if len(g.Path) == 1 && g.Path[0] == "content" {
			named[g.Item] = true
		}
	}
	n := 0
	msgs, _ := want.([]any)
	for i, m := range msgs {
		msg, _ := m.(map[string]any)
		parts, ok := msg["content"].([]any)
		if msg["role"] != "user" || !ok {
			continue
		}
		kept := []any{}
		for _, p := range parts {
			b, _ := p.(map[string]any)
			if s, _ := b["text"].(string); b["type"] == "text" && strings.HasPrefix(s, "<system-reminder>") && strings.HasSuffix(s, "</system-reminder>") {
				if !named[i] {
					t.Errorf("%s: message %d: a <system-reminder> part was sent and render names no gap there", file, i)
				}
				n++
				continue
			}
			kept = append(kept, p)
		}
		msg["content"] = kept
	}
	return n
}

// patchGaps puts into want, the captured conversation, what correx
// rendered (got) at each place render names as not stored as sent, and
// returns how many of them differ. An argument string there must still
// be the same JSON value.
func patchGaps(t *testing.T, file string, got, want any, gaps []render.Gap) int {
	n := 0
	for _, g := range gaps {
		gv, wv := at(got, g.Item, g.Path), at(want, g.Item, g.Path)
		if gv == nil || wv == nil || reflect.DeepEqual(gv.get(), wv.get()) {
			continue
		}
		if g.Path[len(g.Path)-1] == "arguments" && !sameJSON(gv.get(), wv.get()) {
			t.Errorf("%s: call %s: arguments %v are not the stored object %v", file, g.CallID, wv.get(), gv.get())
			continue
		}
		wv.set(gv.get())
		n++
	}
	return n
}

// slot is a place in decoded JSON: a member of an object or an entry of
// a list.
type slot struct {
	get func() any
	set func(any)
}

// at is the slot at path inside item of conv; nil when there is none.
func at(conv any, item int, path []string) *slot {
	list, _ := conv.([]any)
	if item < 0 || item >= len(list) {
		return nil
	}
	cur := &slot{get: func() any { return list[item] }, set: func(v any) { list[item] = v }}
	for _, k := range path {
		switch c := cur.get().(type) {
		case map[string]any:
			if _, ok := c[k]; !ok {
				return nil
			}
			cur = &slot{get: func() any { return c[k] }, set: func(v any) { c[k] = v }}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = &slot{get: func() any { return c[i] }, set: func(v any) { c[i] = v }}
		default:
			return nil
		}
	}
	return cur
}

func sameJSON(a, b any) bool {
	as, _ := a.(string)
	bs, _ := b.(string)
	var x, y any
	if json.Unmarshal([]byte(as), &x) != nil || json.Unmarshal([]byte(bs), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
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

// TestGeminiSetHistoryRequests: a resumed Gemini CLI 0.61.0 run whose
// context management masked a big tool output re-records the history as
// sent under new ids and `$set`s the list to those (the layout of a
// recorded probe with a 3,000-match grep_search, too big to keep). Its
// requests send those records; the next resume converts them, losing the
// main prompt merged into the session context (as Gemini CLI did); the
// call keeps the result its own run sent, and render names the masked
// form each later request re-sent. The shapes are those of the probe's
// requests after the setHistory and after the next resume.
func TestGeminiSetHistoryRequests(t *testing.T) {
	const sid = "95f21dea-abf2-4f11-8bb4-bfe27b096ce9"
	meta := `{"sessionId":"` + sid + `","projectHash":"h","startTime":"2026-12-01T21:07:10.498Z","lastUpdated":"2026-12-01T21:07:10.498Z","kind":"main"}`
	ctxText := `"<session_context>\nctx\n</session_context>"`
	ctx := `{"id":"ctx","timestamp":"2026-12-01T21:07:10.498Z","type":"user","content":[{"text":` + ctxText + `}]}`
	masked := `"<tool_output_masked>\nbig…\n</tool_output_masked>"`
	fr := func(out string) string {
		return `{"functionResponse":{"id":"grep_search__g1","name":"grep_search","response":{"output":` + out + `}}}`
	}
	recs := []string{
		`{"id":"u1","timestamp":"2026-12-01T21:07:10.630Z","type":"user","content":[{"text":"Please run it."}]}`,
		`{"id":"g1","timestamp":"2026-12-01T21:07:12.019Z","type":"gemini","content":"","model":"gemini-2.5-pro","toolCalls":[{"id":"grep_search__g1","name":"grep_search","args":{"pattern":"big"},"status":"success","timestamp":"2026-12-01T21:07:12.019Z","result":[` + fr(`"big big big"`) + `]}]}`,
		`{"id":"r1","timestamp":"2026-12-01T21:07:12.100Z","type":"user","content":[` + fr(`"big big big"`) + `]}`,
		`{"id":"g1b","timestamp":"2026-12-01T21:07:12.200Z","type":"gemini","content":"Done.","model":"gemini-2.5-pro"}`,
	}
	n := []string{
		`{"id":"n1","timestamp":"2026-12-01T21:07:34.838Z","type":"user","content":[{"text":` + ctxText + `},{"text":"Please run it."}]}`,
		`{"id":"n2","timestamp":"2026-12-01T21:07:34.838Z","type":"gemini","content":[{"functionCall":{"id":"grep_search__g1","name":"grep_search","args":{"pattern":"big"}}}]}`,
		`{"id":"n3","timestamp":"2026-12-01T21:07:34.838Z","type":"user","content":[` + fr(masked) + `,` + fr(masked) + `]}`,
		`{"id":"n4","timestamp":"2026-12-01T21:07:34.838Z","type":"gemini","content":[{"text":"Done."}]}`,
	}
	u2 := `{"id":"u2","timestamp":"2026-12-01T21:07:34.850Z","type":"user","content":[{"text":"Next."}]}`
	g2 := `{"id":"g2","timestamp":"2026-12-01T21:07:35.000Z","type":"gemini","content":"Ok.","model":"gemini-2.5-pro"}`
	u3 := `{"id":"u3","timestamp":"2026-12-01T21:07:36.000Z","type":"user","content":[{"text":"Last."}]}`
	g3 := `{"id":"g3","timestamp":"2026-12-01T21:07:37.000Z","type":"gemini","content":"Bye.","model":"gemini-2.5-pro"}`
	set := func(recs ...string) string { return `{"$set":{"messages":[` + strings.Join(recs, ",") + `]}}` }
	resume := `{"$set":{"sessionId":"` + sid + `"}}`
	lines := append([]string{meta, set(ctx)}, recs...)
	lines = append(lines, meta, set(ctx), resume, set(append([]string{ctx}, recs...)...)) // a resume
	lines = append(lines, n...)
	lines = append(lines, set(n...), u2, g2)                                                       // its setHistory
	lines = append(lines, resume, set(append(append([]string{ctx}, n[1:]...), u2, g2)...), u3, g3) // the next resume
	dir := t.TempDir()
	chats := filepath.Join(dir, "tmp", "proj", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(chats, "session-2026-12-01T21-07-95f21dea.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := sessions.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.Load(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	sentFR := func(out string) string {
		return `{"functionResponse":{"name":"grep_search","response":{"output":` + out + `},"id":"g1"}}`
	}
	call := `{"functionCall":{"name":"grep_search","args":{"pattern":"big"},"id":"g1"}}`
	run2 := `[{"role":"user","parts":[{"text":` + ctxText + `},{"text":"Please run it."}]},{"role":"model","parts":[` + call + `]},` +
		`{"role":"user","parts":[` + sentFR(masked) + `,` + sentFR(masked) + `]},{"role":"model","parts":[{"text":"Done."}]},{"role":"user","parts":[{"text":"Next."}]}]`
	run3 := `[{"role":"user","parts":[{"text":` + ctxText + `}]},{"role":"model","parts":[` + call + `]},` +
		`{"role":"user","parts":[` + sentFR(masked) + `,` + sentFR(masked) + `]},{"role":"model","parts":[{"text":"Done."}]},{"role":"user","parts":[{"text":"Next."}]},` +
		`{"role":"model","parts":[{"text":"Ok."}]},{"role":"user","parts":[{"text":"Last."}]}]`
	for _, c := range []struct {
		step int
		want string
	}{{3, run2}, {4, run3}} {
		got, err := rendered(t, sess, render.Gemini, c.step, render.Model{})
		if err != nil {
			t.Fatal(err)
		}
		if path, g, w := firstDiff("", got, decode(t, []byte(c.want))); path != "-" {
			t.Errorf("step %d differs at %s:\n got: %s\nwant: %s", c.step, path, short(g), short(w))
		}
		var m string
		_ = json.Unmarshal([]byte(masked), &m)
		if r := render.GeminiResentResults(sess, c.step)["g1"]; len(r) != 2 || r[0] != m {
			t.Errorf("step %d: re-sent results %q, want the masked form twice", c.step, r)
		}
	}
	ref, ok := sess.FindCall("g1")
	if !ok {
		t.Fatal("call g1 (the first run's step) is not in the session")
	}
	if v := formatters.Visible(ref.Call, nil); v.Text != "big big big" {
		t.Errorf("g1 shows %q, want the result its run sent", v.Text)
	}
}
