package main

// Qwen Code 0.24.4: a chat cloned from testdata/qwen-code/qwen3.8-plus (and
// the tool results of the other recordings). The prelude (the prompt, the
// attribution snapshot) is copied with fresh ids; then each step is written
// as Qwen Code writes it, every line's parentUuid the line before: the
// api_response telemetry, the assistant line (a thought, a text, the
// functionCalls), a tool_call telemetry per call and a tool_result line per
// call, with its toolCallResult (the shell's resultDisplay holds the whole
// output). A shell output over 30,000 characters is cut as Qwen Code does
// (truncateAndSaveToFile: the header, a fifth of 4,000 characters of head
// and the rest of tail around "... [CONTENT TRUNCATED] ..."), the whole
// text in DIR/tmp/<sha256 of the project>/run_shell_command_<12 hex>.output.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

const (
	qwenFixtures = "qwen-code/*/data/projects/*/chats/*.jsonl"
	qwenShellMax = 30000 // run_shell_command's budget
	qwenPreview  = 4000
	qwenGrepMax  = 20000
)

// qwenKind names a line: its type, a system line's event, a tool result's
// tool and outcome ("tool_result/run_shell_command/error").
func qwenKind(l *obj) string {
	k := l.str("type")
	switch k {
	case "system":
		k += "/" + l.str("subtype")
		if l.str("subtype") == "ui_telemetry" {
			k += "/" + l.sub("systemPayload").sub("uiEvent").str("event.name")
		}
	case "tool_result":
		var parts []json.RawMessage
		_ = json.Unmarshal(l.sub("message").vals["parts"], &parts)
		k += "/" + parseObj(parts[0]).sub("functionResponse").str("name")
		if l.sub("toolCallResult").str("status") == "error" {
			k += "/error"
		}
	}
	return k
}

func (g *gen) qwen(calls int, total int64) error {
	ids := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(g.fixtures, qwenFixtures))
	tmpl := map[string]*obj{}
	var prelude []*obj
	for i := len(files) - 1; i >= 0; i-- { // qwen3.8-plus last: its lines win
		_, lines := g.fixture(strings.TrimPrefix(files[i], g.fixtures+"/"))
		for j, raw := range lines {
			l := parseObj(g.remap(ids, raw))
			if i == 0 && j < 2 {
				prelude = append(prelude, l)
			}
			tmpl[qwenKind(l)] = l
		}
	}
	for _, k := range []string{"system/ui_telemetry/qwen-code.api_response", "assistant", "system/ui_telemetry/qwen-code.tool_call",
		"tool_result/run_shell_command", "tool_result/run_shell_command/error", "tool_result/read_file", "tool_result/read_file/error",
		"tool_result/grep_search", "tool_result/glob", "tool_result/edit", "tool_result/edit/error"} {
		if tmpl[k] == nil {
			panic("qwen-code fixtures: no " + k + " line to clone")
		}
	}
	g.sid = prelude[0].str("sessionId")
	cwd := prelude[0].str("cwd")
	hash := sha256.Sum256([]byte(cwd))
	tmpDir := "tmp/" + hex.EncodeToString(hash[:])
	g.setClock(prelude[len(prelude)-1].str("timestamp"))
	j, err := createJSONL(filepath.Join(g.dir, "projects", strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, cwd), "chats", g.sid+".jsonl"))
	if err != nil {
		return err
	}
	parent := ""
	put := func(l *obj) {
		id := g.uuid()
		if parent == "" {
			id = l.str("uuid")
		}
		g.tick(1 + g.rng.IntN(50))
		l.set("uuid", id).set("parentUuid", parent).set("timestamp", g.ts())
		if parent == "" {
			l.set("parentUuid", nil)
		}
		parent = id
		j.put(l)
	}
	for _, l := range prelude {
		put(l)
	}
	telemetry := func(k string, f func(ev *obj)) {
		l := tmpl[k].clone()
		l.edit("systemPayload", func(p *obj) {
			p.edit("uiEvent", func(ev *obj) {
				ev.set("event.timestamp", g.ts())
				f(ev)
			})
		})
		put(l)
	}
	steps := g.steps(g.plans(calls, total))
	for k := 0; k <= len(steps); k++ {
		resp := "chatcmpl-" + g.alnum(29, base62)
		telemetry("system/ui_telemetry/qwen-code.api_response", func(ev *obj) { ev.set("response_id", resp) })
		var parts []*obj
		if g.rng.IntN(2) == 0 {
			parts = append(parts, kv("text", "I should look at more of the "+g.word()+" code.", "thought", true))
		}
		if k == len(steps) {
			parts = append(parts, kv("text", "Done: the build passes and the call sites are fixed."))
		} else if g.rng.IntN(3) == 0 {
			parts = append(parts, kv("text", "Next I will look at more of the code."))
		}
		type call struct {
			id, name string
			args     *obj
			p        plan
		}
		var cs []call
		if k < len(steps) {
			for _, p := range steps[k] {
				c := call{id: "call_" + g.alnum(24, base62), p: p}
				switch p.tool {
				case "bash":
					c.name, c.args = "run_shell_command", kv("command", g.bashCommand(p), "description", "Run the tests")
				case "read":
					c.name, c.args = "read_file", kv("file_path", worktree+"/"+g.file())
				case "grep":
					c.name, c.args = "grep_search", kv("pattern", g.word())
				case "glob":
					c.name, c.args = "glob", kv("pattern", "**/*"+g.word()+"*.go")
				case "edit":
					c.name, c.args = "edit", kv("file_path", worktree+"/"+g.file(), "old_string", g.word(), "new_string", g.word()+"2")
				}
				cs = append(cs, c)
				parts = append(parts, kv("functionCall", kv("id", c.id, "name", c.name, "args", c.args)))
			}
		}
		a := tmpl["assistant"].clone()
		a.edit("message", func(m *obj) { m.set("parts", parts) })
		put(a)
		g.msgs++
		g.rng.Shuffle(len(cs), func(a, b int) { cs[a], cs[b] = cs[b], cs[a] })
		var results []*obj
		for _, c := range cs {
			g.tick(20 + g.rng.IntN(300))
			text, isErr, display := g.qwenResult(c.name, c.args, c.p, tmpDir)
			key, kind := "output", "tool_result/"+c.name
			if isErr {
				key, kind = "error", kind+"/error"
			}
			telemetry("system/ui_telemetry/qwen-code.tool_call", func(ev *obj) {
				ev.set("call_id", c.id).set("function_name", c.name).set("function_args", c.args).set("response_id", resp).set("content_length", len(text))
			})
			r := tmpl[kind].clone()
			r.edit("message", func(m *obj) {
				m.set("parts", []*obj{kv("functionResponse", kv("id", c.id, "name", c.name, "response", kv(key, text)))})
			})
			r.edit("toolCallResult", func(t *obj) {
				t.set("callId", c.id)
				if display != nil {
					t.set("resultDisplay", display)
				}
			})
			results = append(results, r)
			g.count(isErr, len(text))
		}
		for _, r := range results {
			put(r)
		}
	}
	return j.close()
}

// qwenResult is a call's result text as the model got it, whether it is
// an error, and its resultDisplay (nil: the template's).
func (g *gen) qwenResult(name string, args *obj, p plan, tmpDir string) (string, bool, any) {
	o := g.output(p)
	switch name {
	case "run_shell_command":
		out := strings.TrimSuffix(o.text, "\n")
		shown := out
		if shown == "" {
			shown = "(empty)"
		}
		text := fmt.Sprintf("Command: %s\nDirectory: (root)\nOutput: %s\nError: (none)\nExit Code: %d\nSignal: (none)\nProcess Group PGID: (none)", args.str("command"), shown, o.exit)
		display := kv("type", "shell_result", "version", 1, "directory", worktree, "exitCode", o.exit, "signal", nil, "pid", nil,
			"outcome", map[bool]string{true: "failed", false: "completed"}[o.exit != 0], "outputFiles", []string{}, "output", out, "text", text,
			"error", nil, "notices", []any{}, "truncated", false)
		if len(text) > qwenShellMax {
			file := "run_shell_command_" + g.alnum(12, "0123456789abcdef") + ".output"
			writeFile(filepath.Join(g.dir, tmpDir, file), text)
			path := "/home/user/.qwen/" + tmpDir + "/" + file
			display.set("outputFiles", []string{path})
			text = "Tool output was too large and has been truncated.\nThe full output has been saved to: " + path +
				"\nTo read the complete output, use the read_file tool with the absolute file path above.\nThe truncated output below shows the beginning and end of the content. The marker '... [CONTENT TRUNCATED] ...' indicates where content was removed.\n\nTruncated part of the output:\n" +
				qwenCut(text, qwenPreview/5, qwenPreview-qwenPreview/5)
			g.truncated++
		}
		return text, o.exit != 0, display
	case "read_file":
		if p.err {
			return "File not found: " + args.str("file_path"), true, "File not found: " + args.str("file_path")
		}
		return strings.Join(o.lines, "\n") + "\n", false, ""
	case "grep_search":
		var b strings.Builder
		n := 0
		for _, h := range o.hits {
			l := fmt.Sprintf("%s/%s:%d:%s\n", worktree, h.file, h.line, h.text)
			if b.Len()+len(l) > qwenGrepMax-200 {
				break
			}
			b.WriteString(l)
			n++
		}
		return fmt.Sprintf("Found %d matches for pattern %q in the workspace directory:\n---\n%s", n, o.pattern, strings.TrimSuffix(b.String(), "\n")), false, nil
	case "glob":
		return fmt.Sprintf("Found %d file(s) matching %q in the workspace directory, sorted by modification time (newest first):\n---\n%s/%s", len(o.files), args.str("pattern"), worktree,
			strings.Join(o.files, "\n"+worktree+"/")), false, nil
	}
	path := args.str("file_path")
	if p.err {
		msg := "Failed to edit, 0 occurrences found for old_string in " + path + ". No edits made. The exact text in old_string was not found. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify."
		return msg, true, msg
	}
	return "The file: " + path + " has been updated. Showing lines 1-3 of 3 from the edited file:\n\n---\n\npackage x\n" + args.str("new_string") + "\n}\n", false, nil
}

// qwenCut is text's head and tail of about head and tail characters
// around Qwen Code's separator, a line cut inside ending or starting with
// "...".
func qwenCut(text string, head, tail int) string {
	h := text[:head]
	if i := strings.LastIndexByte(h, '\n'); i >= 0 && i+1 < len(h) {
		h = h[:len(h)-3] + "..."
	}
	t := text[len(text)-tail:]
	if i := strings.IndexByte(t, '\n'); i > 0 {
		t = "..." + t[3:]
	}
	return h + "\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n" + t
}
