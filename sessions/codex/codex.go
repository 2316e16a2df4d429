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

	// as readItem found it
	compact     bool // no whitespace outside strings
	rolloutOnly bool // a rolloutOnly member
	outputs     int  // output members
	members     []member
}

// member is where a member of a response item is in the payload: its key
// from key, its value from val to end.
type member struct {
	key, val, end int
	plain         bool // a key json.Marshal writes as it is
	drop          bool // a rolloutOnly member
	output        bool
}

// rolloutOnly are fields of rollout items that are never sent.
var rolloutOnly = []string{"internal_chat_message_metadata_passthrough"}

// ReadRollout reads one rollout into a session, outputs included (the
// lazy path is Open's store: reader.go). Prompt messages (user, developer)
// are user messages; the items of one model response (reasoning, assistant
// text, calls) and the outputs of its calls make one assistant message,
// whose Stored holds those items in rollout order.
func ReadRollout(path, dataDir string) (*model.Session, error) {
	var warns []string
	r := newReader(path, dataDir, sessions.LineWarner(&warns, path), false)
	err := sessions.ReadJSONL(path, func(n int, line []byte, _ bool) {
		r.Line(sessions.Line{N: n}, line, false)
	}, r.warnf)
	if err != nil {
		return nil, err
	}
	sess, err := r.Session()
	if err != nil {
		return nil, err
	}
	sess.Warnings = warns
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
		Agent: model.AgentCodex, CallID: callID, Tool: name, Status: model.StatusRunning, Input: input, Start: ts,
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
