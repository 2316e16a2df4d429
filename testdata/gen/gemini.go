package main

// Gemini CLI 0.61.0: a chat file cloned from
// testdata/gemini-cli/gemini-3.8-flash. The prelude (the session record,
// the context $set, the prompt) is copied with fresh ids; then each step
// is written as Gemini CLI writes it: the gemini record, its lastUpdated
// $set, the record again with its toolCalls (each with its
// functionResponse and resultDisplay), the user record of the responses
// and its $set. Shell outputs over 40000 characters are cut as Gemini CLI
// does ("Output too large. Showing first 8,000 and last 32,000
// characters. For full output see: …"), the whole output in
// tmp/proj/tool-outputs/session-<id>/<call id>.txt.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

const (
	geminiFixture = "gemini-cli/gemini-3.8-flash/data"
	geminiChats   = "tmp/proj/chats/session-*.jsonl"
	geminiTmp     = "/home/user/.gemini/tmp/proj/"
	geminiHead    = 8000
	geminiTail    = 32000
)

type geminiTemplates struct {
	name       string // the chat file's name
	prelude    [][]byte
	model      *obj // a gemini record without toolCalls, with thoughts
	text       *obj // the last gemini record: a text
	user       *obj // a user record of functionResponses
	lastUpdate *obj
	calls      map[string]*obj // a toolCalls entry by "name" or "name/error"
}

func (g *gen) geminiTemplates(ids map[string]string) *geminiTemplates {
	t := &geminiTemplates{calls: map[string]*obj{}}
	path, lines := g.fixture(filepath.Join(geminiFixture, geminiChats))
	for i, raw := range lines {
		if i == 0 {
			// session-<time>-<first 8 of the id>.jsonl
			id := parseObj(raw).str("sessionId")
			t.name = strings.Replace(filepath.Base(path), "-"+id[:8]+".jsonl", "-"+string(g.remap(ids, []byte(id)))[:8]+".jsonl", 1)
		}
		raw = g.remap(ids, raw)
		l := parseObj(raw)
		if i < 4 {
			t.prelude = append(t.prelude, raw)
			continue
		}
		switch l.str("type") {
		case "gemini":
			var tcs []json.RawMessage
			_ = json.Unmarshal(l.vals["toolCalls"], &tcs)
			for _, raw := range tcs {
				tc := parseObj(raw)
				k := tc.str("name")
				if tc.str("status") == "error" {
					k += "/error"
				}
				t.calls[k] = first(t.calls[k], tc)
			}
			if len(tcs) == 0 && string(l.vals["thoughts"]) != "[]" {
				if t.model == nil {
					t.model = l.clone()
				} else if l.str("content") != "" {
					t.text = l.clone()
				}
			}
		case "user":
			if strings.Contains(string(l.vals["content"]), "functionResponse") {
				t.user = first(t.user, l)
			}
		default:
			if _, ok := l.vals["$set"]; ok && strings.HasPrefix(string(raw), `{"$set":{"lastUpdated"`) {
				t.lastUpdate = first(t.lastUpdate, l)
			}
		}
	}
	for _, k := range []string{"run_shell_command", "read_file", "read_file/error", "grep_search", "glob", "replace", "replace/error"} {
		if t.calls[k] == nil {
			panic("gemini-cli fixture: no " + k + " call to clone")
		}
	}
	if t.model == nil || t.text == nil || t.user == nil || t.lastUpdate == nil {
		panic("gemini-cli fixture: a record to clone is missing")
	}
	return t
}

func (g *gen) gemini(calls int, total int64) error {
	ids := map[string]string{}
	t := g.geminiTemplates(ids)
	g.sid = parseObj(t.prelude[0]).str("sessionId")
	g.setClock(parseObj(t.prelude[len(t.prelude)-1]).sub("$set").str("lastUpdated"))
	b, err := os.ReadFile(filepath.Join(g.fixtures, geminiFixture, "projects.json"))
	if err != nil {
		return err
	}
	writeFile(filepath.Join(g.dir, "projects.json"), string(b))
	w, err := createJSONL(filepath.Join(g.dir, "tmp/proj/chats", t.name))
	if err != nil {
		return err
	}
	for _, raw := range t.prelude {
		w.put(raw)
	}
	updated := func() {
		w.put(t.lastUpdate.clone().edit("$set", func(s *obj) { s.set("lastUpdated", g.ts()) }))
	}
	input := 12000
	steps := g.steps(g.plans(calls, total))
	for k := 0; k <= len(steps); k++ {
		g.tick(300 + g.rng.IntN(700))
		rec := t.model.clone().set("id", g.uuid()).set("timestamp", g.ts())
		input += 200 + g.rng.IntN(3000)
		rec.edit("tokens", func(tk *obj) { tk.set("input", input).set("total", input+50) })
		tk := rec.vals["tokens"]
		if k == len(steps) {
			w.put(t.text.clone().set("id", rec.str("id")).set("timestamp", g.ts()).set("tokens", tk))
			updated()
			g.msgs++
			break
		}
		content := ""
		if g.rng.IntN(3) == 0 {
			content = "Next I will look at more of the code."
		}
		rec.set("content", content)
		if g.rng.IntN(2) == 0 {
			rec.set("thoughts", []*obj{kv("subject", "", "description", "I should look at more of the "+g.word()+" code.", "timestamp", g.ts())})
		} else {
			rec.set("thoughts", []any{})
		}
		w.put(rec)
		updated()
		var tcs []*obj
		var responses []json.RawMessage
		for i, p := range steps[k] {
			tc := g.geminiCall(t, p, i)
			tcs = append(tcs, tc)
			var res []json.RawMessage
			_ = json.Unmarshal(tc.vals["result"], &res)
			responses = append(responses, res...)
		}
		w.put(rec.set("toolCalls", tcs))
		g.tick(5)
		w.put(t.user.clone().set("id", g.uuid()).set("timestamp", g.ts()).set("content", responses))
		updated()
		g.msgs++
	}
	return w.close()
}

// geminiCall is one toolCalls entry, cloned from the recorded call of the
// same tool and status.
func (g *gen) geminiCall(t *geminiTemplates, p plan, idx int) *obj {
	o := g.output(p)
	start := g.clock
	g.tick(20 + g.rng.IntN(300))
	name, key := "", ""
	rel := strings.TrimPrefix(o.path, worktree+"/")
	var args *obj
	response := map[string]string{}
	var display any = ""
	description := ""
	switch p.tool {
	case "bash":
		name = "run_shell_command"
		cmd := g.bashCommand(p)
		args = t.calls[name].sub("args").set("command", cmd).set("description", "Run "+g.word()+" checks")
		description = cmd
		body := strings.TrimSuffix(o.text, "\n")
		display = body
		if body == "" {
			body = "(empty)"
		}
		wrapped := "<untrusted_context>\nOutput: " + body
		if o.exit != 0 {
			wrapped += fmt.Sprintf("\nExit Code: %d", o.exit)
		}
		wrapped += fmt.Sprintf("\nProcess Group PGID: %d\n</untrusted_context>", 1000+g.rng.IntN(60000))
		response["output"] = wrapped
		if len(wrapped) > geminiHead+geminiTail {
			id := fmt.Sprintf("%s__%s_%d_%d", name, name, start, idx)
			rel := "tool-outputs/session-" + g.sid + "/" + id + ".txt"
			writeFile(filepath.Join(g.dir, "tmp/proj", rel), wrapped)
			response["output"] = fmt.Sprintf("Output too large. Showing first %s and last %s characters. For full output see: %s\n%s\n\n... [%s characters omitted] ...\n\n%s",
				commas(geminiHead), commas(geminiTail), geminiTmp+rel, wrapped[:geminiHead], commas(len(wrapped)-geminiHead-geminiTail), wrapped[len(wrapped)-geminiTail:])
			g.truncated++
		}
	case "read":
		name = "read_file"
		args = t.calls[name].sub("args").set("file_path", o.path)
		description = rel
		if p.err {
			key = "/error"
			response["error"] = "File not found: " + o.path
			display = "File not found."
			break
		}
		response["output"] = strings.Join(o.lines, "\n") + "\n"
	case "grep":
		name = "grep_search"
		args = t.calls[name].sub("args").set("pattern", o.pattern)
		description = "'" + o.pattern + "' within ./"
		var b strings.Builder
		fmt.Fprintf(&b, "Found %d matches for pattern %q in path \".\":\n---", len(o.hits), o.pattern)
		var matches []*obj
		for _, h := range o.hits {
			fmt.Fprintf(&b, "\nFile: %s\nL%d: %s\n---", h.file, h.line, h.text)
			matches = append(matches, kv("filePath", h.file, "absolutePath", worktree+"/"+h.file, "lineNumber", h.line, "line", h.text))
		}
		response["output"] = b.String()
		display = kv("summary", fmt.Sprintf("Found %d matches", len(o.hits)), "matches", matches)
	case "glob":
		name = "glob"
		args = t.calls[name].sub("args").set("pattern", o.pattern)
		description = "'" + o.pattern + "' within ./"
		abs := make([]string, len(o.files))
		for i, f := range o.files {
			abs[i] = worktree + "/" + f
		}
		response["output"] = fmt.Sprintf("Found %d file(s) matching %q within %s, sorted by modification time (newest first):\n%s", len(abs), o.pattern, worktree, strings.Join(abs, "\n"))
		display = fmt.Sprintf("Found %d matching file(s)", len(abs))
	case "edit":
		name = "replace"
		if p.err {
			key = "/error"
		}
		args = t.calls[name+key].sub("args").set("file_path", o.path).set("old_string", o.pattern).set("new_string", o.pattern+"2")
	}
	tc := t.calls[name+key].clone()
	id := fmt.Sprintf("%s__%s_%d_%d", name, name, start, idx)
	tc.set("id", id).set("args", args).set("timestamp", g.ts())
	if p.tool == "edit" {
		// the recorded edit's file and strings, replaced with this one's
		rep := strings.NewReplacer("/home/user/proj/new.txt", o.path, "new.txt", rel, "no such text", o.pattern, "beta", o.pattern, "BETA", o.pattern+"2")
		for _, k := range []string{"result", "resultDisplay", "description"} {
			tc.set(k, json.RawMessage(rep.Replace(string(tc.vals[k]))))
		}
		var res []map[string]map[string]any
		_ = json.Unmarshal(tc.vals["result"], &res)
		res[0]["functionResponse"]["id"] = id
		tc.set("result", res)
		g.count(p.err, len(tc.vals["result"]))
		return tc
	}
	tc.set("result", []*obj{kv("functionResponse", kv("id", id, "name", name, "response", response))})
	tc.set("resultDisplay", display).set("description", description)
	g.count(p.err || o.exit != 0, len(response["output"])+len(response["error"]))
	return tc
}
