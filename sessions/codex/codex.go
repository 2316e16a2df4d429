// Package codex reads Codex CLI's rollouts (the agent's driver: see
// driver.go) and rebuilds the requests Codex sent (wire.go).
package codex

// Codex CLI rollouts: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl
// (and archived_sessions/), one JSON line {"timestamp","type","payload"} per
// record. The model saw the `response_item` payloads: Codex sends them back
// verbatim in every later request (0.171.0, observed), so a tool result is
// the `output` of the function_call_output / custom_tool_call_output with
// the call's call_id, exactly as stored.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"correx/formatters"
	"correx/model"
	"correx/sessions"
)

// rolloutDirs are the folders of a CODEX_HOME that hold rollouts.
var rolloutDirs = []string{"sessions", "archived_sessions"}

// hasRollouts says whether a rollout file is anywhere under dir.
func hasRollouts(dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipAll
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// rollouts lists the rollout files under roots in order (a CODEX_HOME's
// sessions/ first, then archived_sessions/); a .jsonl.zst beside its
// .jsonl is not read.
func rollouts(roots []string) (files, warnings []string) {
	for _, root := range roots {
		var found []string
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") &&
				(strings.HasSuffix(d.Name(), ".jsonl") || strings.HasSuffix(d.Name(), ".jsonl.zst")) {
				found = append(found, p)
			}
			return nil
		})
		sort.Strings(found)
		for _, p := range found {
			if strings.HasSuffix(p, ".zst") {
				if sessions.IsFile(strings.TrimSuffix(p, ".zst")) {
					continue // the plain file wins
				}
				warnings = append(warnings, fmt.Sprintf("skipped %s: zstd-compressed rollouts are not supported (no zstd decoder in correx's modules); decompress it with `zstd -d` to read it", p))
				continue
			}
			files = append(files, p)
		}
	}
	return files, warnings
}

// codexItem is the part of a response item correx reads.
type codexItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
	Status    string          `json:"status"`
}

// rolloutOnly are fields of rollout items that are never sent.
var rolloutOnly = []string{"internal_chat_message_metadata_passthrough"}

// ReadRollout reads one rollout into a session. Prompt messages
// (user, developer) are user messages; the items of one model response
// (reasoning, assistant text, calls) and the outputs of its calls make
// one assistant message, whose Stored holds those items in rollout order.
func ReadRollout(path, dataDir string) (*model.Session, error) {
	sess := &model.Session{Info: model.SessionInfo{Agent: model.AgentCodex, Source: path, DataDir: dataDir}}
	warnf := sessions.LineWarner(&sess.Warnings, path)
	var (
		cur      *model.Message // the open assistant step
		open     = map[string]bool{}
		calls    = map[string]*model.ToolCall{}
		owner    = map[string]int{} // call id -> message index
		curModel string
		lastTS   time.Time
		meta     bool
		seq      int
		failed   = map[string]bool{} // call ids Codex's own items record as failed
	)
	closeStep := func() {
		if cur != nil {
			sess.Messages = append(sess.Messages, *cur)
			cur = nil
		}
		clear(open)
	}
	stepDone := false
	err := sessions.ReadJSONL(path, func(n int, line []byte, _ bool) {
		var env struct {
			Timestamp string          `json:"timestamp"`
			Type      string          `json:"type"`
			Payload   json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(line, &env); err != nil {
			warnf(n, "skipped a line that is not JSON (%v)", err)
			return
		}
		ts := sessions.ParseTime(env.Timestamp)
		if !ts.IsZero() {
			lastTS = ts
		}
		switch env.Type {
		case "session_meta":
			if meta {
				return
			}
			var m struct {
				ID         string          `json:"id"`
				Timestamp  string          `json:"timestamp"`
				Cwd        string          `json:"cwd"`
				CLIVersion string          `json:"cli_version"`
				Source     json.RawMessage `json:"source"`
			}
			if err := json.Unmarshal(env.Payload, &m); err != nil || m.ID == "" {
				warnf(n, "skipped a session_meta line without id")
				return
			}
			meta = true
			sess.Info.ID, sess.Info.Directory, sess.Info.Version = m.ID, m.Cwd, m.CLIVersion
			sess.Info.Created = sessions.ParseTime(m.Timestamp)
			var src struct {
				Subagent struct {
					ThreadSpawn struct {
						ParentThreadID string `json:"parent_thread_id"`
					} `json:"thread_spawn"`
				} `json:"subagent"`
			}
			if json.Unmarshal(m.Source, &src) == nil {
				sess.Info.ParentID = src.Subagent.ThreadSpawn.ParentThreadID
			}
		case "turn_context":
			var m struct {
				Model string `json:"model"`
			}
			if json.Unmarshal(env.Payload, &m) == nil && m.Model != "" {
				curModel = m.Model
			}
		case "event_msg":
			var m struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(env.Payload, &m)
			if m.Type == "token_count" && cur != nil && len(open) == 0 {
				stepDone = true // the model response is complete
			}
			if id, ok := codexFailedItem(env.Payload, m.Type); ok {
				failed[id] = true
			}
		case "response_item":
			var it codexItem
			if err := json.Unmarshal(env.Payload, &it); err != nil {
				warnf(n, "skipped a response item that is not an object (%v)", err)
				return
			}
			raw := withoutKeys(env.Payload, rolloutOnly)
			seq++
			switch {
			case it.Type == "ghost_snapshot":
				return // a git snapshot for undo, never sent
			case it.Type == "message" && it.Role != "assistant":
				closeStep()
				stepDone = false
				m := model.Message{ID: cmp.Or(it.ID, fmt.Sprintf("item-%d", seq)), Role: model.RoleUser, Created: ts, Completed: ts,
					Stored: []json.RawMessage{raw}}
				m.Parts = codexUserParts(it, seq)
				sess.Messages = append(sess.Messages, m)
			case strings.HasSuffix(it.Type, "_output"):
				call := calls[it.CallID]
				if call == nil {
					warnf(n, "output for unknown call %q kept with the step before it", it.CallID)
				}
				if cur == nil {
					// an output after its step was closed: attach to the owner
					if i, ok := owner[it.CallID]; ok {
						sess.Messages[i].Stored = append(sess.Messages[i].Stored, raw)
					} else if len(sess.Messages) > 0 {
						sess.Messages[len(sess.Messages)-1].Stored = append(sess.Messages[len(sess.Messages)-1].Stored, raw)
					}
				} else {
					cur.Stored = append(cur.Stored, raw)
					cur.Completed = ts
				}
				if call != nil {
					sent := codexSent(it.Output)
					call.Sent = &sent
					call.Status = model.StatusCompleted
					call.Output = formatters.ResultText(sent)
					call.End = ts
					call.ChildSessionID = codexSpawned(call)
				}
				delete(open, it.CallID)
				if cur != nil && len(open) == 0 {
					stepDone = true
				}
			default: // a model output item: reasoning, text, a call, ...
				if cur == nil || stepDone {
					closeStep()
					stepDone = false
					cur = &model.Message{ID: cmp.Or(it.ID, fmt.Sprintf("item-%d", seq)), Role: model.RoleAssistant, Created: ts,
						ProviderID: "openai", ModelID: curModel}
				}
				cur.Stored = append(cur.Stored, raw)
				cur.Completed = ts
				if p, ok := codexModelPart(it, seq, ts); ok {
					if p.Tool != nil && p.Tool.CallID != "" {
						open[p.Tool.CallID] = true
						calls[p.Tool.CallID] = p.Tool
					}
					cur.Parts = append(cur.Parts, p)
					if p.Tool != nil {
						// cur is appended when the step closes, at this index
						owner[p.Tool.CallID] = len(sess.Messages)
					}
				} else {
					warnf(n, "response item of type %q kept for the wire but not shown", it.Type)
				}
			}
		}
	}, warnf)
	if err != nil {
		return nil, err
	}
	closeStep()
	// an item_completed can come before or after its call's output (a
	// process polled with write_stdin ends later)
	for id := range failed {
		if c := calls[id]; c != nil && c.Status == model.StatusCompleted {
			c.Status, c.Error = model.StatusError, c.Output
		}
	}
	if !meta {
		return nil, sessions.NotSession(path, "no session_meta line: not a Codex rollout")
	}
	sess.Info.Updated = lastTS
	sessions.FinishInfo(sess, nil) // Codex keeps no spill file
	return sess, nil
}

// codexModelPart is the part for one model output item.
func codexModelPart(it codexItem, seq int, ts time.Time) (model.Part, bool) {
	id := cmp.Or(it.ID, fmt.Sprintf("item-%d", seq))
	switch it.Type {
	case "message":
		var texts []string
		var content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(it.Content, &content)
		for _, c := range content {
			texts = append(texts, c.Text)
		}
		return model.Part{ID: id, Type: model.PartText, Text: strings.Join(texts, "")}, true
	case "reasoning":
		var sum []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(it.Summary, &sum)
		var texts []string
		for _, x := range sum {
			texts = append(texts, x.Text)
		}
		return model.Part{ID: id, Type: model.PartReasoning, Text: strings.Join(texts, "\n\n")}, true
	case "function_call":
		return codexToolPart(id, it.CallID, it.Name, cxJSONOrString(it.Arguments), ts), true
	case "custom_tool_call":
		b, _ := json.Marshal(it.Input)
		return codexToolPart(id, it.CallID, it.Name, b, ts), true
	case "local_shell_call":
		return codexToolPart(id, it.CallID, "local_shell", it.Action, ts), true
	}
	return model.Part{}, false
}

func codexToolPart(id, callID, name string, input json.RawMessage, ts time.Time) model.Part {
	return model.Part{ID: id, Type: model.PartTool, Tool: &model.ToolCall{
		CallID: callID, Tool: name, Status: model.StatusRunning, Input: input, Start: ts,
	}}
}

// cxJSONOrString is s when it is JSON, else s as a JSON string.
func cxJSONOrString(s string) json.RawMessage {
	if json.Valid([]byte(s)) && strings.TrimSpace(s) != "" {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// codexUserParts are the text and image parts of a prompt message.
// Context Codex injects (AGENTS.md, environment, permissions, developer
// instructions) is marked synthetic.
func codexUserParts(it codexItem, seq int) []model.Part {
	var content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL string `json:"image_url"`
	}
	_ = json.Unmarshal(it.Content, &content)
	var parts []model.Part
	for i, c := range content {
		id := fmt.Sprintf("%s-%d", cmp.Or(it.ID, fmt.Sprintf("item-%d", seq)), i)
		switch c.Type {
		case "input_text", "output_text":
			parts = append(parts, model.Part{ID: id, Type: model.PartText, Text: c.Text,
				Synthetic: it.Role != "user" || codexInjected(c.Text)})
		case "input_image":
			parts = append(parts, model.Part{ID: id, Type: model.PartFile, File: &model.File{Mime: cxDataMime(c.ImageURL), URL: c.ImageURL}})
		}
	}
	return parts
}

// codexInjected says whether a user text is context Codex added.
func codexInjected(t string) bool {
	t = strings.TrimSpace(t)
	return strings.HasPrefix(t, "# AGENTS.md instructions for ") ||
		strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">")
}

func cxDataMime(u string) string {
	if !strings.HasPrefix(u, "data:") {
		return ""
	}
	u = u[len("data:"):]
	if i := strings.IndexAny(u, ";,"); i >= 0 {
		return u[:i]
	}
	return ""
}

// codexSent is a stored output as the result the model got: a string is
// text; a list of input_text / input_image items is content.
func codexSent(out json.RawMessage) model.ToolResultValue {
	var s string
	if json.Unmarshal(out, &s) == nil {
		return model.ToolResultValue{Type: model.ResultText, Text: s}
	}
	var items []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL string `json:"image_url"`
	}
	if json.Unmarshal(out, &items) == nil {
		var content []model.ToolContent
		for _, it := range items {
			switch it.Type {
			case "input_text":
				content = append(content, model.ToolContent{Type: model.ContentText, Text: it.Text})
			case "input_image":
				content = append(content, model.ToolContent{Type: model.ContentFile, URI: it.ImageURL, Mime: cxDataMime(it.ImageURL)})
			}
		}
		return model.ToolResultValue{Type: model.ResultContent, Content: content}
	}
	return model.ToolResultValue{Type: model.ResultJSON, JSON: out}
}

// codexSpawned is the thread a spawn_agent call started: its output is
// {"agent_id":<thread id>,"nickname":…}, and that thread's rollout names
// the caller's thread as its parent.
func codexSpawned(call *model.ToolCall) string {
	if call.Tool != "spawn_agent" {
		return ""
	}
	var out struct {
		AgentID string `json:"agent_id"`
	}
	_ = json.Unmarshal([]byte(call.Output), &out)
	return out.AgentID
}

// codexFailedItem reads an item_completed event: the call id of an item
// Codex records as failed (a command that exited non-zero, could not start
// or was still running when the turn ended; a failed patch or MCP call).
func codexFailedItem(payload json.RawMessage, typ string) (string, bool) {
	if typ != "item_completed" || !bytes.Contains(payload, []byte(`"failed"`)) {
		return "", false
	}
	var m struct {
		Item struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"item"`
	}
	if json.Unmarshal(payload, &m) != nil || m.Item.Status != "failed" || m.Item.ID == "" {
		return "", false
	}
	return m.Item.ID, true
}

// withoutKeys returns a JSON object without the given top-level keys, the
// others kept byte for byte in their order.
func withoutKeys(raw json.RawMessage, drop []string) json.RawMessage {
	has := false
	for _, k := range drop {
		has = has || bytes.Contains(raw, []byte(`"`+k+`"`))
	}
	if !has {
		return sessions.CompactJSON(raw)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return raw
	}
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return raw
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return raw
		}
		k := kt.(string)
		skip := false
		for _, d := range drop {
			skip = skip || k == d
		}
		if skip {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(sessions.CompactJSON(v))
	}
	b.WriteByte('}')
	return b.Bytes()
}
