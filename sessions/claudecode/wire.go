package claudecode

// Claude Code builds its Anthropic requests itself: system reminders go
// into user content (appended to a message's last tool result when they
// follow tool results) or system-role messages, a plain-text user or
// system message goes as a one-block list while it is last and as a string
// after, and one cache_control marks the last block of the last message.
// Claude Code 2.1.x logs each request's messages and cache_control paths,
// which the reader keeps as each step's Request (rebuilding a step the log
// does not give from the transcript, and saying so): its own wire is
// rendered from them. render projects them for the other providers.

import (
	"encoding/json"
	"fmt"

	"correx/model"
	"correx/render"
)

func init() {
	render.RegisterOwnWire(model.AgentClaudeCode, render.OwnWire{Provider: render.Anthropic, Conversation: conversation, ItemPerLogged: true})
}

// conversation is the Anthropic messages Claude Code sent for the step
// whose answer is message upto of s.
func conversation(s *model.Session, upto int, pl *render.Placer) (render.Value, error) {
	req := s.Messages[upto].Request
	if req == nil {
		return nil, fmt.Errorf("session %s: message %s has no logged request", s.Info.ID, s.Messages[upto].ID)
	}
	return native(req, pl)
}

// native is the logged messages with cache_control put back and each
// plain-text user or system message in the form Claude Code sends it.
func native(req *model.LoggedRequest, pl *render.Placer) (render.Value, error) {
	marks := map[int][]model.CacheMark{}
	for _, c := range req.Cache {
		marks[c.Message] = append(marks[c.Message], c)
	}
	out := make([]render.Value, 0, len(req.Messages))
	for i, raw := range req.Messages {
		placeLogged(raw, i, pl)
		text, reform := plainText(raw, i == len(req.Messages)-1)
		if len(marks[i]) == 0 && !reform {
			out = append(out, raw)
			continue
		}
		v, err := render.OrderedJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("logged message %d: %w", i, err)
		}
		msgObj, ok := v.(render.Obj)
		if !ok {
			return nil, fmt.Errorf("logged message %d is not an object", i)
		}
		if reform {
			for k := range msgObj {
				if msgObj[k].Key != "content" {
					continue
				}
				if _, isString := msgObj[k].Val.(string); isString {
					msgObj[k].Val = []render.Value{render.Obj{{Key: "type", Val: "text"}, {Key: "text", Val: text}}}
				} else {
					msgObj[k].Val = text
				}
			}
		}
		for _, c := range marks[i] {
			setCacheControl(msgObj, c)
		}
		out = append(out, msgObj)
	}
	return out, nil
}

// plainText says whether a user or system message whose content is
// one text block must change form to be as Claude Code sends it: a
// one-block list while it is the last message, a string once it is not.
// The log and the transcript keep either form (their hashes read a string
// as one text block).
func plainText(raw json.RawMessage, last bool) (text string, reform bool) {
	if text, reform, ok := skimPlainText(raw, last); ok {
		return text, reform
	}
	return plainTextJSON(raw, last)
}

// plainTextJSON is plainText decoded by encoding/json.
func plainTextJSON(raw json.RawMessage, last bool) (text string, reform bool) {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Role == "assistant" {
		return "", false
	}
	if json.Unmarshal(m.Content, &text) == nil {
		return text, last
	}
	var blocks []map[string]json.RawMessage
	if json.Unmarshal(m.Content, &blocks) != nil || len(blocks) != 1 || len(blocks[0]) != 2 ||
		string(blocks[0]["type"]) != `"text"` || json.Unmarshal(blocks[0]["text"], &text) != nil {
		return "", false
	}
	return text, !last
}

// setCacheControl adds cache_control to block c.Block of a message; a
// string content becomes a one-text-block list first.
func setCacheControl(m render.Obj, c model.CacheMark) {
	if c.Block < 0 {
		return
	}
	for k := range m {
		if m[k].Key != "content" {
			continue
		}
		if s, ok := m[k].Val.(string); ok {
			m[k].Val = []render.Value{render.Obj{{Key: "type", Val: "text"}, {Key: "text", Val: s}}}
		}
		blocks, _ := m[k].Val.([]render.Value)
		if c.Block < len(blocks) {
			if b, ok := blocks[c.Block].(render.Obj); ok {
				blocks[c.Block] = append(b, render.Field{Key: "cache_control", Val: c.Value})
			}
		}
	}
}

// placeLogged records the tool_use and tool_result blocks of logged
// message item.
func placeLogged(raw json.RawMessage, item int, pl *render.Placer) {
	for j, b := range loggedToolBlocks(raw) {
		switch b.typ {
		case "tool_use", "server_tool_use":
			pl.Call(b.id, item, j)
		case "tool_result":
			pl.Result(b.toolUseID, item, j, 1)
		}
	}
}

// loggedToolBlocks are the blocks of logged message raw, none when its
// content is a string.
func loggedToolBlocks(raw json.RawMessage) []toolBlock {
	if blocks, ok := skimToolBlocks(raw); ok {
		return blocks
	}
	return loggedToolBlocksJSON(raw)
}

// loggedToolBlocksJSON is loggedToolBlocks decoded by encoding/json.
func loggedToolBlocksJSON(raw json.RawMessage) []toolBlock {
	var m struct {
		Content []model.AnthropicBlock `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil { // a string content holds no blocks
		return nil
	}
	out := make([]toolBlock, len(m.Content))
	for j, b := range m.Content {
		out[j] = toolBlock{typ: b.Type, id: b.ID, toolUseID: b.ToolUseID}
	}
	return out
}
