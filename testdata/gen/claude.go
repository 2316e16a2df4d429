package main

// Claude Code 2.1.332: a transcript cloned from
// testdata/claude-code/anthropic. The prelude (queue operations, the
// prompt, the attachments, the first api-request with its blob) is copied
// with fresh ids; then each step is written as Claude Code writes it: one
// assistant line per content block (thinking, text, tool_use) of one
// message.id, one user line per tool_result in the order they finished,
// the token reminder attachment, the api-request-blob of the results as
// sent (the reminder appended to the last one), and the next step's
// api-request, which names the assistant run and the blob by hash. Bash
// outputs over 30000 characters are persisted as Claude Code does
// (<persisted-output> with a 2 KB preview, the output in
// <session>/tool-results/<id>.txt).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

const (
	claudeFixture   = "claude-code/anthropic/projects/-home-user-proj/*.jsonl"
	claudeProject   = "projects/-home-user-proj"
	claudeHome      = "/home/user/.claude/"
	claudeBashLimit = 30000 // BASH_MAX_OUTPUT_LENGTH's default
	claudePreview   = 2000
)

// claudeTemplates are the recorded lines the session is cloned from.
type claudeTemplates struct {
	id       string   // the recorded session's
	prelude  [][]byte // up to and including the first api-request
	firstReq *obj
	thinking *obj // assistant lines, one block each
	text     *obj
	toolUse  *obj
	results  map[string]*obj // "Bash", "Bash/error", "Bash/persisted", "Read", "Read/error", …
	uses     map[string]*obj // tool_use block of each tool
	reminder *obj            // total_tokens_reminder attachment
	blob     *obj
	request  *obj // an api-request with a base
	last     *obj // last-prompt
}

func (g *gen) claudeTemplates(ids map[string]string) *claudeTemplates {
	t := &claudeTemplates{results: map[string]*obj{}, uses: map[string]*obj{}}
	toolOf := map[string]string{}
	path, lines := g.fixture(claudeFixture)
	t.id = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	for _, raw := range lines {
		raw = g.remap(ids, raw)
		l := parseObj(raw)
		typ := l.str("type")
		if t.firstReq == nil {
			t.prelude = append(t.prelude, raw)
			if typ == "api-request" {
				t.firstReq = l
			}
			continue
		}
		switch typ {
		case "assistant":
			b := onlyBlock(l)
			if b == nil {
				continue
			}
			switch b.str("type") {
			case "thinking":
				t.thinking = first(t.thinking, l)
			case "text":
				t.text = first(t.text, l)
			case "tool_use":
				t.toolUse = first(t.toolUse, l)
				toolOf[b.str("id")] = b.str("name")
				t.uses[b.str("name")] = first(t.uses[b.str("name")], b)
			}
		case "user":
			b := onlyBlock(l)
			if b == nil || b.str("type") != "tool_result" {
				continue
			}
			key := toolOf[b.str("tool_use_id")]
			switch {
			case string(b.vals["is_error"]) == "true":
				key += "/error"
			case strings.HasPrefix(b.str("content"), "<persisted-output>"):
				key += "/persisted"
			}
			t.results[key] = first(t.results[key], l)
		case "attachment":
			if l.sub("attachment").str("type") == "total_tokens_reminder" {
				t.reminder = first(t.reminder, l)
			}
		case "api-request-blob":
			t.blob = first(t.blob, l)
		case "api-request":
			t.request = first(t.request, l)
		case "last-prompt":
			t.last = first(t.last, l)
		}
	}
	for _, k := range []string{"Bash", "Bash/error", "Bash/persisted", "Read", "Read/error", "Grep", "Glob", "Edit", "Edit/error"} {
		if t.results[k] == nil {
			panic("claude-code fixture: no " + k + " result to clone")
		}
	}
	if t.thinking == nil || t.text == nil || t.toolUse == nil || t.reminder == nil || t.blob == nil || t.request == nil || t.last == nil {
		panic("claude-code fixture: a record type to clone is missing")
	}
	return t
}

func first(have, o *obj) *obj {
	if have != nil {
		return have
	}
	return o.clone()
}

// claudeHash is the hash Claude Code names a message by in api-request
// records: sha256 of the message with sorted keys, cache_control left out.
func claudeHash(role string, blocks []json.RawMessage) string {
	var b bytes.Buffer
	b.WriteString(`{"content":[`)
	for i, raw := range blocks {
		if i > 0 {
			b.WriteByte(',')
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			panic(err)
		}
		b.WriteString(marshal(v)) // map keys sorted; no cache_control is written
	}
	b.WriteString(`],"role":` + marshal(role) + `}`)
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

func (g *gen) claude(calls int, total int64) error {
	ids := map[string]string{}
	t := g.claudeTemplates(ids)
	g.sid = ids[t.id]
	g.setClock(t.firstReq.str("timestamp"))
	w, err := createJSONL(filepath.Join(g.dir, claudeProject, g.sid+".jsonl"))
	if err != nil {
		return err
	}
	for _, raw := range t.prelude {
		w.put(raw)
	}
	parent := parseObj(t.prelude[len(t.prelude)-1]).str("uuid")
	for i := len(t.prelude) - 1; parent == ""; i-- {
		parent = parseObj(t.prelude[i]).str("uuid")
	}
	reqID := t.firstReq.str("id")
	tokensLeft := 15000000
	steps := g.steps(g.plans(calls, total))
	for k := 0; k <= len(steps); k++ {
		if k > 0 {
			// the request of step k: the previous one's 2k-1 messages, then
			// the last assistant message and the results
			g.tick(20)
			prev := reqID
			reqID = g.uuid()
			req := t.request.clone().set("id", reqID).set("timestamp", g.ts()).set("base", prev).set("keep", 2*k-1)
			req.set("tail", []string{g.claudeAsstHash, g.claudeBlobHash})
			var cc []map[string]any
			_ = json.Unmarshal(req.vals["cacheControl"], &cc)
			if n := len(cc); n > 0 {
				cc[n-1]["path"] = []any{"messages", 2 * k, "content", g.claudeLastBlock}
			}
			req.set("cacheControl", cc)
			w.put(req)
		}
		g.tick(300 + g.rng.IntN(700))
		if k == len(steps) {
			parent = g.claudeAssistant(w, t, parent, reqID, nil, true)
			break
		}
		parent = g.claudeAssistant(w, t, parent, reqID, steps[k], false)
		parent, tokensLeft = g.claudeResults(w, t, parent, steps[k], tokensLeft)
	}
	w.put(t.last.clone().set("lastPrompt", t.last.str("lastPrompt")).set("leafUuid", parent))
	return w.close()
}

// claudeStep is the step being written: its calls, and what the next
// api-request names (the assistant message's and the blob's hashes, the
// last block for the cache mark).
type claudeStep struct {
	claudeUses                     []claudeUse
	claudeAsstHash, claudeBlobHash string
	claudeLastBlock                int
}

// claudeUse is one tool_use and what it produced.
type claudeUse struct {
	id, name, uuid string
	input          any
	out            output
	p              plan
}

// claudeAssistant writes one assistant message, a line per block; the
// last step is one text with stop_reason end_turn.
func (g *gen) claudeAssistant(w *jsonl, t *claudeTemplates, parent, reqID string, ps []plan, last bool) string {
	msgID := "msg_01" + g.alnum(22, base62)
	var blocks []json.RawMessage
	var lines []*obj
	add := func(tmpl *obj, block any) {
		b := json.RawMessage(marshal(block))
		blocks = append(blocks, b)
		l := tmpl.clone()
		l.edit("message", func(m *obj) {
			m.set("id", msgID).set("content", []json.RawMessage{b})
			if last {
				m.set("stop_reason", "end_turn")
			}
		})
		lines = append(lines, l)
	}
	if last {
		add(t.text, onlyBlock(t.text).set("text", "Done: the build passes and the call sites are fixed."))
	} else {
		if g.rng.IntN(2) == 0 {
			tb := onlyBlock(t.thinking)
			add(t.thinking, tb.set("thinking", "I should look at more of the "+g.word()+" code.").set("signature", g.alnum(120, base62+"+/")))
		}
		if g.rng.IntN(3) == 0 {
			add(t.text, onlyBlock(t.text).set("text", "Next I will look at more of the code."))
		}
		g.claudeUses = g.claudeUses[:0]
		for _, p := range ps {
			u := g.claudeUse(t, p)
			add(t.toolUse, onlyBlock(t.toolUse).set("id", u.id).set("name", u.name).set("input", u.input))
			g.claudeUses = append(g.claudeUses, u)
		}
	}
	off := len(lines) - len(ps) // the tool_use lines are the last ones
	for i, l := range lines {
		uuid := g.uuid()
		g.tick(1 + g.rng.IntN(5))
		l.set("parentUuid", parent).set("requestRef", reqID).set("uuid", uuid).set("timestamp", g.ts())
		if i >= off {
			g.claudeUses[i-off].uuid = uuid
		}
		w.put(l)
		parent = uuid
	}
	g.claudeAsstHash = claudeHash("assistant", blocks)
	g.msgs++
	return parent
}

// onlyBlock is the content block of a line whose message has one, else nil.
func onlyBlock(l *obj) *obj {
	var blocks []json.RawMessage
	_ = json.Unmarshal(l.sub("message").vals["content"], &blocks)
	if len(blocks) != 1 {
		return nil
	}
	return parseObj(blocks[0])
}

// claudeUse draws one call: its tool_use input and its output.
func (g *gen) claudeUse(t *claudeTemplates, p plan) claudeUse {
	u := claudeUse{id: g.callID(), p: p, out: g.output(p)}
	o := u.out
	in := func(name string) *obj { u.name = name; return t.uses[name].sub("input") }
	switch p.tool {
	case "bash":
		u.input = in("Bash").set("command", g.bashCommand(p)).set("description", "Run "+g.word()+" checks")
	case "read":
		u.input = in("Read").set("file_path", o.path)
	case "grep":
		u.input = in("Grep").set("pattern", o.pattern)
	case "glob":
		u.input = in("Glob").set("pattern", o.pattern)
	case "edit":
		u.input = in("Edit").set("file_path", o.path).set("old_string", o.pattern).set("new_string", o.pattern+"2")
	}
	return u
}

// claudeResults writes the results of the step's calls (in a shuffled
// order, as parallel calls finish), the reminder and the blob.
func (g *gen) claudeResults(w *jsonl, t *claudeTemplates, parent string, ps []plan, left int) (string, int) {
	uses := append([]claudeUse(nil), g.claudeUses...)
	g.rng.Shuffle(len(uses), func(i, j int) { uses[i], uses[j] = uses[j], uses[i] })
	var blocks []*obj
	for _, u := range uses {
		g.tick(20 + g.rng.IntN(300))
		l, block := g.claudeResult(t, u)
		uuid := g.uuid()
		l.set("parentUuid", parent).set("uuid", uuid).set("timestamp", g.ts()).set("sourceToolAssistantUUID", u.uuid)
		w.put(l)
		blocks = append(blocks, block)
		parent = uuid
	}
	left -= 200 + g.rng.IntN(5000)
	g.tick(5)
	note := fmt.Sprintf("<total_tokens>%d tokens left</total_tokens>", left)
	uuid := g.uuid()
	rem := t.reminder.clone().set("parentUuid", parent).set("uuid", uuid).set("timestamp", g.ts())
	rem.edit("attachment", func(a *obj) { a.set("text", note) })
	rem.set("rendered", []map[string]string{{"content": "<system-reminder>\n" + note + "\n</system-reminder>"}})
	w.put(rem)
	// as sent: the reminder appended to the last result
	sent := make([]json.RawMessage, len(blocks))
	for i, b := range blocks {
		if i == len(blocks)-1 {
			b = b.clone().set("content", b.str("content")+"\n\n<system-reminder>\n"+note+"\n</system-reminder>")
		}
		sent[i] = json.RawMessage(marshal(b))
	}
	g.claudeBlobHash = claudeHash("user", sent)
	g.claudeLastBlock = len(sent) - 1
	msg := t.blob.sub("message").set("content", sent)
	w.put(t.blob.clone().set("hash", g.claudeBlobHash).set("message", msg))
	return uuid, left
}

// claudeResult is one user line with its tool_result block, cloned from
// the recorded result of the same tool and kind.
func (g *gen) claudeResult(t *claudeTemplates, u claudeUse) (*obj, *obj) {
	o := u.out
	key, content := "", ""
	var tur any
	switch u.p.tool {
	case "bash":
		stdout := strings.TrimRight(o.text, "\n")
		switch {
		case len(stdout) > claudeBashLimit:
			key = "Bash/persisted"
			name := g.alnum(9, "0123456789abcdefghijklmnopqrstuvwxyz") + ".txt"
			rel := filepath.Join(claudeProject, g.sid, "tool-results", name)
			writeFile(filepath.Join(g.dir, rel), o.text)
			preview := o.text[:claudePreview]
			if i := strings.LastIndexByte(preview, '\n'); i > 0 {
				preview = preview[:i]
			}
			content = fmt.Sprintf("<persisted-output>\nOutput too large (%s). Full output saved to: %s\n\nPreview (first 2KB):\n%s\n...\n</persisted-output>", sizeMB(len(o.text)), claudeHome+filepath.ToSlash(rel), preview)
			tur = t.results[key].sub("toolUseResult").set("stdout", stdout[:claudeBashLimit]).set("persistedOutputPath", claudeHome+filepath.ToSlash(rel)).set("persistedOutputSize", len(o.text))
			g.truncated++
		case o.exit != 0:
			key = "Bash/error"
			content = fmt.Sprintf("Exit code %d\n%s", o.exit, stdout)
			tur = "Error: " + content
		default:
			key = "Bash"
			content = stdout
			if content == "" {
				content = "(Bash completed with no output)"
			}
			tur = t.results[key].sub("toolUseResult").set("stdout", stdout)
		}
	case "read":
		if u.p.err {
			key = "Read/error"
			break
		}
		key = "Read"
		var b strings.Builder
		for i, l := range o.lines {
			fmt.Fprintf(&b, "%d\t%s\n", i+1, l)
		}
		fmt.Fprintf(&b, "%d\t", len(o.lines)+1)
		content = b.String()
		file := strings.Join(o.lines, "\n") + "\n"
		tur = t.results[key].sub("toolUseResult").edit("file", func(f *obj) {
			f.set("filePath", o.path).set("content", file).set("numLines", len(o.lines)+1).set("totalLines", len(o.lines)+1)
		})
	case "grep":
		key = "Grep"
		var b []string
		for _, h := range o.hits {
			b = append(b, fmt.Sprintf("%s:%d:%s", h.file, h.line, h.text))
		}
		content = strings.Join(b, "\n")
		tr := t.results[key].sub("toolUseResult").set("content", content)
		if _, ok := tr.vals["numLines"]; ok {
			tr.set("numLines", len(b))
		}
		tur = tr
	case "glob":
		key = "Glob"
		content = strings.Join(o.files, "\n")
		tur = t.results[key].sub("toolUseResult").set("filenames", o.files).set("numFiles", len(o.files))
	case "edit":
		key = "Edit"
		if u.p.err {
			key = "Edit/error"
		}
	}
	l := t.results[key].clone()
	block := onlyBlock(l).set("tool_use_id", u.id)
	if content != "" {
		block.set("content", content)
	}
	if tur != nil {
		l.set("toolUseResult", tur)
	}
	if u.p.tool == "edit" {
		// the recorded edit's file and strings, replaced with this one's
		rep := strings.NewReplacer("/home/user/proj/new.txt", o.path, "no such text", o.pattern)
		block.set("content", rep.Replace(block.str("content")))
		l.set("toolUseResult", json.RawMessage(rep.Replace(string(l.vals["toolUseResult"]))))
	}
	l.edit("message", func(m *obj) { m.set("content", []*obj{block}) })
	g.count(string(block.vals["is_error"]) == "true", len(block.str("content")))
	return l, block
}
