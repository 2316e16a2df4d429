package main

// GitHub Copilot CLI 1.0.102: an events.jsonl cloned from testdata/copilot.
// The prelude (session.start, the prompt, the system message) is copied
// with fresh ids; then each step is written as Copilot writes it: the
// turn's start, its usage record, the assistant.message with its
// toolRequests, a tool.execution_start per call and their
// tool.execution_complete events (in the order they finished), the turn's
// end; each event's parentId is the one before it. A result of 20,480
// bytes or more (large_output_threshold_bytes) is spilled as Copilot's
// shell does: the model gets the "Output too large to read at once"
// header and a 500-character preview, and the spill file, which Copilot
// deletes when it exits, is not written.

import (
	"fmt"
	"path/filepath"
	"strings"
)

const (
	copilotFixtures  = "copilot/*/data/session-state/*/events.jsonl"
	copilotThreshold = 20480 // large_output_threshold_bytes
	copilotPreview   = 500
)

// copilotKind names an event: its type, and a tool event's tool and
// outcome ("tool.execution_complete/bash/spill").
func copilotKind(l *obj, tools map[string]string) string {
	k := l.str("type")
	d := l.sub("data")
	switch k {
	case "tool.execution_start":
		tools[d.str("toolCallId")] = d.str("toolName")
		if _, ok := d.vals["shellToolInfo"]; ok {
			k += "/bash"
		}
	case "tool.execution_complete":
		k += "/" + tools[d.str("toolCallId")]
		switch {
		case strings.Contains(string(d.vals["toolTelemetry"]), `"largeOutputHandled":"true"`):
			k += "/spill"
		case string(d.vals["success"]) != "true":
			k += "/error"
		}
	}
	return k
}

func (g *gen) copilot(calls int, total int64) error {
	ids := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(g.fixtures, copilotFixtures))
	tmpl := map[string]*obj{}
	var prelude [][]byte
	for i, f := range files {
		_, lines := g.fixture(strings.TrimPrefix(f, g.fixtures+"/"))
		tools := map[string]string{}
		for j, raw := range lines {
			raw = g.remap(ids, raw)
			if i == 0 && j < 3 { // session.start, user.message, system.message
				prelude = append(prelude, raw)
				continue
			}
			l := parseObj(raw)
			if !strings.Contains(string(raw), `"agentId"`) {
				k := copilotKind(l, tools)
				tmpl[k] = first(tmpl[k], l)
			}
		}
	}
	for _, k := range []string{"assistant.turn_start", "session.usage_record", "assistant.message", "tool.execution_start", "tool.execution_start/bash",
		"tool.execution_complete/bash", "tool.execution_complete/bash/spill", "tool.execution_complete/view", "tool.execution_complete/view/error",
		"tool.execution_complete/grep", "tool.execution_complete/glob", "tool.execution_complete/edit", "tool.execution_complete/edit/error",
		"assistant.turn_end", "session.shutdown"} {
		if tmpl[k] == nil {
			panic("copilot fixtures: no " + k + " event to clone")
		}
	}
	start := parseObj(prelude[0])
	g.sid = start.sub("data").str("sessionId")
	g.setClock(parseObj(prelude[len(prelude)-1]).str("timestamp"))
	j, err := createJSONL(filepath.Join(g.dir, "session-state", g.sid, "events.jsonl"))
	if err != nil {
		return err
	}
	parent := parseObj(prelude[len(prelude)-1]).str("id")
	for _, raw := range prelude {
		j.put(raw)
	}
	put := func(k string, f func(d *obj)) {
		l := tmpl[k].clone()
		id := g.uuid()
		g.tick(1 + g.rng.IntN(20))
		l.edit("data", f).set("id", id).set("timestamp", g.ts()).set("parentId", parent)
		parent = id
		j.put(l)
	}
	shell := 0
	steps := g.steps(g.plans(calls, total))
	for k := 0; k <= len(steps); k++ {
		turn := fmt.Sprint(k)
		put("assistant.turn_start", func(d *obj) { d.set("turnId", turn) })
		api := "chatcmpl-" + g.alnum(29, base62)
		put("session.usage_record", func(d *obj) { d.edit("usage", func(u *obj) { u.set("apiCallId", api) }) })
		text := ""
		if k == len(steps) {
			text = "Done: the build passes and the call sites are fixed."
		} else if g.rng.IntN(3) == 0 {
			text = "Next I will look at more of the " + g.word() + " code."
		}
		type req struct {
			id, tool string
			args     *obj
			p        plan
		}
		var rs []req
		if k < len(steps) {
			for _, p := range steps[k] {
				rs = append(rs, req{id: "call_" + g.alnum(24, base62), p: p, tool: p.tool})
				r := &rs[len(rs)-1]
				switch p.tool {
				case "bash":
					r.args = kv("command", g.bashCommand(p), "description", "Run the tests")
				case "read":
					r.tool, r.args = "view", kv("path", worktree+"/"+g.file())
				case "grep":
					r.args = kv("pattern", g.word())
				case "glob":
					r.args = kv("pattern", "**/*"+g.word()+"*.go")
				case "edit":
					r.args = kv("path", worktree+"/"+g.file(), "old_str", g.word(), "new_str", g.word()+"2")
				}
			}
		}
		var treqs []*obj
		for _, r := range rs {
			treqs = append(treqs, kv("toolCallId", r.id, "name", r.tool, "arguments", r.args, "type", "function",
				"intentionSummary", r.tool+" "+g.word(), "toolTitle", "Running "+r.tool))
		}
		put("assistant.message", func(d *obj) {
			d.set("messageId", g.uuid()).set("content", text).set("toolRequests", append([]*obj{}, treqs...)).set("turnId", turn).set("apiCallId", api)
			d.del("reasoningText")
		})
		g.msgs++
		for _, r := range rs {
			kind := "tool.execution_start"
			if r.tool == "bash" {
				kind += "/bash"
			}
			put(kind, func(d *obj) {
				d.set("toolCallId", r.id).set("toolName", r.tool).set("arguments", r.args).set("turnId", turn)
			})
		}
		g.rng.Shuffle(len(rs), func(a, b int) { rs[a], rs[b] = rs[b], rs[a] })
		for _, r := range rs {
			g.tick(20 + g.rng.IntN(300))
			kind, content, detailed := g.copilotResult(r.tool, r.args, r.p, &shell)
			put(kind, func(d *obj) {
				d.set("toolCallId", r.id).set("turnId", turn)
				if _, ok := d.vals["result"]; ok {
					d.edit("result", func(res *obj) {
						res.set("content", content)
						if _, ok := res.vals["detailedContent"]; ok {
							res.set("detailedContent", detailed)
						}
					})
				}
				if kind == "tool.execution_complete/bash/spill" {
					size := fmt.Sprint(len(detailed))
					d.edit("toolTelemetry", func(t *obj) { t.edit("properties", func(p *obj) { p.set("largeOutputOriginalSizeBytes", size) }) })
				}
			})
			g.count(strings.HasSuffix(kind, "/error"), len(content))
		}
		put("assistant.turn_end", func(d *obj) { d.set("turnId", turn) })
	}
	put("session.shutdown", func(*obj) {})
	return j.close()
}

// copilotResult is the kind of a call's completion event, the result's
// content as the model got it and, for a spill, the whole output
// (detailedContent otherwise).
func (g *gen) copilotResult(tool string, args *obj, p plan, shell *int) (kind, content, detailed string) {
	o := g.output(p)
	kind = "tool.execution_complete/" + tool
	switch tool {
	case "bash":
		*shell++
		status := fmt.Sprintf("<shellId: %d completed with exit code %d>", *shell, o.exit)
		whole := strings.TrimSuffix(o.text, "\n") + "\n" + status
		if len(whole) < copilotThreshold {
			return kind, whole, ""
		}
		preview, n := o.text, 0
		for i := range preview {
			if n == copilotPreview {
				preview = preview[:i]
				break
			}
			n++
		}
		if i := strings.LastIndexByte(preview, '\n'); i >= 0 {
			preview = preview[:i]
		}
		g.truncated++
		path := fmt.Sprintf("/home/user/tmp/%d-copilot-tool-output-%d-%s.txt", g.clock, 1000+g.rng.IntN(60000), g.uuid())
		return kind + "/spill", fmt.Sprintf("Output too large to read at once (%.1f KB). Saved to: %s\nConsider using tools like grep (for searching), head/tail (for viewing start/end), view with view_range (for specific sections), or jq (for JSON) to examine portions of the output.\n\nPreview (first %d chars):\n%s\n\n%s",
			float64(len(o.text))/1024, path, copilotPreview, preview, status), o.text
	case "view":
		if p.err {
			return kind + "/error", "", ""
		}
		text := strings.Join(o.lines, "\n") + "\n"
		path := args.str("path")
		return kind, text, fmt.Sprintf("\ndiff --git a%s b%s\nindex 0000000..0000000 100644\n--- a%s\n+++ b%s\n@@ -1,%d +1,%d @@\n %s\n", path, path, path, path,
			len(o.lines), len(o.lines), strings.Join(o.lines, "\n "))
	case "grep", "glob":
		return kind, strings.TrimSuffix(o.text, "\n"), ""
	}
	if p.err {
		return kind + "/error", "", ""
	}
	path := args.str("path")
	return kind, "File " + path + " updated with changes.", fmt.Sprintf("\ndiff --git a%s b%s\nindex 0000000..0000000 100644\n--- a%s\n+++ b%s\n@@ -1,1 +1,1 @@\n-%s\n+%s\n", path, path, path, path, args.str("old_str"), args.str("new_str"))
}
