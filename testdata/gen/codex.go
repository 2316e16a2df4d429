package main

// Codex CLI 0.171.0: a rollout cloned from testdata/codex/gpt-5.5. The
// prelude (session_meta, the turn's start, the developer and user messages,
// world_state, turn_context, the prompt) is copied with fresh ids; then
// each step is written as Codex writes it: maybe a reasoning item and an
// assistant message (each after its item_completed event), the calls
// (function_call exec_command, or custom_tool_call apply_patch), a
// token_usage_record, each call's item_completed event and its output, and
// a token_count. Outputs over 10000 tokens are truncated in the model's
// text as Codex does (a warning, "... N bytes omitted ..." past its 1 MiB
// buffer, and head and tail of 20000 bytes around "…N tokens
// truncated…"); the item_completed event holds the output whole up to 64
// KiB (aggregated_output), else its head and tail around a note, which is
// why a rollout holds far less than -mb; Codex keeps no spill file.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

const (
	codexFixture = "codex/gpt-5.5/data/sessions/*/*/*/rollout-*.jsonl"
	codexTokens  = 10000   // the default max_output_tokens
	codexBuffer  = 1 << 20 // the head and tail it keeps of an output
	codexEdge    = 20000   // bytes kept on each side of a token truncation
	codexEvent   = 65536   // aggregated_output of the item_completed event
	// codexPersisted is where the event's aggregated_output is cut
	codexPersisted = "\n... command output truncated for persistence ...\n"
)

// codexTemplates are the recorded lines the rollout is cloned from, by
// what they are.
type codexTemplates struct {
	rel     string // the rollout's path under sessions/, with its id
	id      string
	prelude [][]byte
	lines   map[string]*obj
}

// codexKind names a rollout line: its type and payload type, and an
// event's item type ("event_msg/item_completed/CommandExecution").
func codexKind(l *obj) string {
	k := l.str("type")
	p := l.sub("payload")
	if t := p.str("type"); t != "" {
		k += "/" + t
	}
	if it, ok := p.vals["item"]; ok {
		item := parseObj(it)
		k += "/" + item.str("type")
		if item.str("type") == "FileChange" {
			var changes map[string]struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(item.vals["changes"], &changes)
			for _, c := range changes {
				k += "/" + c.Type
			}
		}
	}
	if strings.HasSuffix(k, "_output") && strings.HasPrefix(p.str("output"), "apply_patch verification failed") {
		k += "/error"
	}
	return k
}

func (g *gen) codexTemplates(ids map[string]string) *codexTemplates {
	t := &codexTemplates{lines: map[string]*obj{}}
	inPrelude := true
	path, lines := g.fixture(codexFixture)
	// sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl, the id mapped as the records' are
	defer func() { t.rel = string(g.remap(ids, []byte(path[strings.LastIndex(path, "/sessions/")+1:]))) }()
	for _, raw := range lines {
		raw = g.remap(ids, raw)
		l := parseObj(raw)
		k := codexKind(l)
		if k == "event_msg/item_completed/Reasoning" {
			inPrelude = false
		}
		if inPrelude {
			t.prelude = append(t.prelude, raw)
			continue
		}
		if t.lines[k] == nil {
			t.lines[k] = l
		}
	}
	for _, k := range []string{
		"event_msg/item_completed/Reasoning", "response_item/reasoning",
		"event_msg/item_completed/AgentMessage", "response_item/message",
		"response_item/function_call", "response_item/custom_tool_call", "token_usage_record",
		"event_msg/item_completed/CommandExecution", "response_item/function_call_output",
		"event_msg/item_completed/FileChange/update", "response_item/custom_tool_call_output",
		"response_item/custom_tool_call_output/error", "event_msg/token_count", "event_msg/task_complete",
	} {
		if t.lines[k] == nil {
			panic("codex fixture: no " + k + " line to clone")
		}
	}
	return t
}

// codexWriter numbers the lines (ordinal) and the history items.
type codexWriter struct {
	*jsonl
	g          *gen
	ordinal    int
	history    int
	sampled    int
	tokensUsed int
}

// put writes a clone of a template line, edited by f.
func (w *codexWriter) put(tmpl *obj, f func(p *obj)) {
	l := tmpl.clone()
	l.set("timestamp", w.g.ts())
	if _, ok := l.vals["ordinal"]; ok {
		l.set("ordinal", w.ordinal)
	}
	w.ordinal++
	l.edit("payload", func(p *obj) {
		if f != nil {
			f(p)
		}
	})
	if l.str("type") == "response_item" {
		w.history++
		l.edit("metadata", func(m *obj) {
			m.set("history_sequence", w.history).set("sampled_through_sequence", w.sampled)
		})
	}
	w.jsonl.put(l)
}

func (g *gen) codex(calls int, total int64) error {
	ids := map[string]string{}
	t := g.codexTemplates(ids)
	g.sid = parseObj(t.prelude[0]).sub("payload").str("id")
	g.setClock(parseObj(t.prelude[len(t.prelude)-1]).str("timestamp"))
	j, err := createJSONL(filepath.Join(g.dir, t.rel))
	if err != nil {
		return err
	}
	w := &codexWriter{jsonl: j, g: g}
	for _, raw := range t.prelude {
		j.put(raw)
		w.ordinal++
		if parseObj(raw).str("type") == "response_item" {
			w.history++
		}
	}
	steps := g.steps(g.plans(calls, total))
	for k := 0; k <= len(steps); k++ {
		w.sampled = w.history
		g.tick(300 + g.rng.IntN(700))
		if k == len(steps) {
			g.codexText(w, t, "Done: the build passes and the call sites are fixed.")
			g.codexUsage(w, t)
			w.put(t.lines["event_msg/task_complete"], nil)
			break
		}
		if g.rng.IntN(2) == 0 {
			id := "rs_" + g.alnum(48, "0123456789abcdef")
			text := "I should look at more of the " + g.word() + " code."
			w.put(t.lines["event_msg/item_completed/Reasoning"], func(p *obj) {
				p.edit("item", func(it *obj) { it.set("id", id).set("summary_text", []string{text}) })
			})
			w.put(t.lines["response_item/reasoning"], func(p *obj) {
				p.set("id", id).set("summary", []*obj{kv("type", "summary_text", "text", text)}).set("encrypted_content", "gAAAAA"+g.alnum(200, base62+"-_"))
			})
		}
		if g.rng.IntN(3) == 0 {
			g.codexText(w, t, "Next I will look at more of the code.")
		}
		type pending struct {
			id  string
			p   plan
			o   output
			cmd string
		}
		var ps []pending
		for _, p := range steps[k] {
			c := pending{id: "call_" + g.alnum(24, base62), p: p, o: g.output(p)}
			if p.tool == "edit" {
				patch := fmt.Sprintf("*** Begin Patch\n*** Update File: %s\n@@\n-%s\n+%s2\n*** End Patch\n", strings.TrimPrefix(c.o.path, worktree+"/"), c.o.pattern, c.o.pattern)
				w.put(t.lines["response_item/custom_tool_call"], func(pl *obj) {
					pl.set("id", "ctc_"+g.alnum(48, "0123456789abcdef")).set("call_id", c.id).set("input", patch)
				})
			} else {
				c.cmd = g.codexCommand(c.p, c.o)
				args := marshal(kv("cmd", c.cmd, "workdir", worktree))
				w.put(t.lines["response_item/function_call"], func(pl *obj) {
					pl.set("id", "fc_"+g.alnum(48, "0123456789abcdef")).set("arguments", args).set("call_id", c.id)
				})
			}
			ps = append(ps, c)
		}
		g.codexUsage(w, t)
		g.rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		for _, c := range ps {
			start := g.clock
			g.tick(20 + g.rng.IntN(300))
			if c.p.tool == "edit" {
				g.codexPatch(w, t, c.id, c.p, c.o, start)
				continue
			}
			body, exit := c.o.text, c.o.exit
			if c.p.tool == "read" {
				body = strings.Join(c.o.lines, "\n") + "\n"
				if c.p.err {
					body, exit = "cat: "+strings.TrimPrefix(c.o.path, worktree+"/")+": No such file or directory\n", 1
				}
			}
			agg := body
			if len(agg) > codexEvent {
				// as 0.171.0 persists it (the fixture's seq 1 195000):
				// head and tail around its note, 65536 bytes in all
				keep := (codexEvent - len(codexPersisted)) / 2
				agg = agg[:keep] + codexPersisted + agg[len(agg)-keep:]
			}
			w.put(t.lines["event_msg/item_completed/CommandExecution"], func(p *obj) {
				p.edit("item", func(it *obj) {
					it.set("id", c.id).set("process_id", fmt.Sprint(1000+g.rng.IntN(60000))).set("command", []string{"/bin/bash", "-lc", c.cmd})
					it.set("parsed_cmd", []*obj{kv("type", "unknown", "cmd", c.cmd)}).set("aggregated_output", agg).set("exit_code", exit)
				})
				p.set("started_at_ms", start).set("completed_at_ms", g.clock)
			})
			out := g.codexExecOutput(body, exit)
			w.put(t.lines["response_item/function_call_output"], func(p *obj) {
				p.set("id", "fco_"+g.uuid()).set("call_id", c.id).set("output", out)
			})
			g.count(exit != 0, len(out))
		}
		w.put(t.lines["event_msg/token_count"], nil)
	}
	return j.close()
}

// codexCommand is the shell command of a call other than an edit.
func (g *gen) codexCommand(p plan, o output) string {
	switch p.tool {
	case "read":
		return "cat " + strings.TrimPrefix(o.path, worktree+"/")
	case "grep":
		return "rg -n " + o.pattern
	case "glob":
		return "rg --files -g '" + o.pattern + "'"
	}
	return g.bashCommand(p)
}

// codexExecOutput is exec_command's output as the model sees it.
func (g *gen) codexExecOutput(body string, exit int) string {
	tokens := (len(body) + 3) / 4
	head := fmt.Sprintf("Chunk ID: %s\nWall time: 0.0000 seconds\nProcess exited with code %d\nOriginal token count: %d\nOutput:\n", g.alnum(6, "0123456789abcdef"), exit, tokens)
	if tokens <= codexTokens {
		return head + body
	}
	g.truncated++
	var b strings.Builder
	b.WriteString(head)
	fmt.Fprintf(&b, "Warning: truncated output (original token count: %d)\n", tokens)
	if len(body) > codexBuffer {
		fmt.Fprintf(&b, "... %d bytes omitted ...\n\n", len(body)-codexBuffer)
		body = body[:codexBuffer/2] + body[len(body)-codexBuffer/2:]
	}
	fmt.Fprintf(&b, "%s…%d tokens truncated…%s", body[:codexEdge], (len(body)-2*codexEdge+3)/4, body[len(body)-codexEdge:])
	return b.String()
}

// codexPatch writes an apply_patch call's event (when it applied) and
// output.
func (g *gen) codexPatch(w *codexWriter, t *codexTemplates, id string, p plan, o output, start int64) {
	rel := strings.TrimPrefix(o.path, worktree+"/")
	if p.err {
		out := fmt.Sprintf("apply_patch verification failed: Failed to find expected lines in %s:\n%s", o.path, o.pattern)
		w.put(t.lines["response_item/custom_tool_call_output/error"], func(pl *obj) {
			pl.set("id", "ctco_"+g.uuid()).set("call_id", id).set("output", out)
		})
		g.count(true, len(out))
		return
	}
	stdout := "Success. Updated the following files:\nM " + rel + "\n"
	w.put(t.lines["event_msg/item_completed/FileChange/update"], func(pl *obj) {
		pl.edit("item", func(it *obj) {
			it.set("id", id).set("changes", kv(o.path, kv("type", "update", "unified_diff", fmt.Sprintf("@@ -1,3 +1,3 @@\n package x\n-%s\n+%s2\n }\n", o.pattern, o.pattern), "move_path", nil)))
			it.set("stdout", stdout)
		})
		pl.set("started_at_ms", start).set("completed_at_ms", g.clock)
	})
	out := "Exit code: 0\nWall time: 0 seconds\nOutput:\n" + stdout
	w.put(t.lines["response_item/custom_tool_call_output"], func(pl *obj) {
		pl.set("id", "ctco_"+g.uuid()).set("call_id", id).set("output", out)
	})
	g.count(false, len(out))
}

// codexText writes an assistant message after its event.
func (g *gen) codexText(w *codexWriter, t *codexTemplates, text string) {
	id := "msg_" + g.alnum(48, "0123456789abcdef")
	w.put(t.lines["event_msg/item_completed/AgentMessage"], func(p *obj) {
		p.edit("item", func(it *obj) { it.set("id", id).set("content", []*obj{kv("type", "Text", "text", text)}) })
	})
	w.put(t.lines["response_item/message"], func(p *obj) {
		p.set("id", id).set("content", []*obj{kv("type", "output_text", "text", text, "annotations", []any{}, "logprobs", []any{})})
	})
	g.msgs++
}

func (g *gen) codexUsage(w *codexWriter, t *codexTemplates) {
	w.put(t.lines["token_usage_record"], func(p *obj) {
		p.set("response_id", "resp_"+g.alnum(48, "0123456789abcdef"))
	})
}
