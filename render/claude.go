package render

import (
	"bytes"
	"encoding/json"
	"fmt"

	"correx/formatters"
	"correx/model"
)

// Claude Code builds its Anthropic requests itself: system reminders go
// into user content (appended to a message's last tool result when they
// follow tool results) or system-role messages, a plain-text user or
// system message goes as a one-block list while it is last and as a string
// after, and one cache_control marks the last block of the last message.
// Claude Code 2.1.x logs each request's messages and cache_control paths
// (model.LoggedRequest; sessions rebuilds a step the log does not give from
// the transcript and says so), so its own wire is rendered from that; the
// other providers get projections of those messages through the prompt IR
// and the converters.

// claudeConversation is Conversation for a Claude Code session; idx is the
// step's assistant message. pl records the placements.
func claudeConversation(s *model.Session, idx int, p Provider, m Model, pl *Placer) (Value, error) {
	req := s.Messages[idx].Request
	if p == Anthropic && req != nil {
		return claudeNative(req, pl)
	}
	var prompt []msg
	if req != nil {
		var err error
		if prompt, err = claudePromptFromWire(req.Messages); err != nil {
			return nil, err
		}
	} else {
		prompt = claudePromptFromSession(s, idx)
	}
	claudeCaching(prompt)
	return lower(prompt, p, m.ModelID, pl)
}

// claudeNative is the logged messages with cache_control put back and
// each plain-text user or system message in the form Claude Code sends it.
func claudeNative(req *model.LoggedRequest, pl *Placer) (Value, error) {
	marks := map[int][]model.CacheMark{}
	for _, c := range req.Cache {
		marks[c.Message] = append(marks[c.Message], c)
	}
	out := make([]Value, 0, len(req.Messages))
	for i, raw := range req.Messages {
		placeLogged(raw, i, pl)
		text, reform := claudePlainText(raw, i == len(req.Messages)-1)
		if len(marks[i]) == 0 && !reform {
			out = append(out, raw)
			continue
		}
		v, err := orderedJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("logged message %d: %w", i, err)
		}
		msgObj, ok := v.(Obj)
		if !ok {
			return nil, fmt.Errorf("logged message %d is not an object", i)
		}
		if reform {
			for k := range msgObj {
				if msgObj[k].Key != "content" {
					continue
				}
				if _, isString := msgObj[k].Val.(string); isString {
					msgObj[k].Val = []Value{Obj{{"type", "text"}, {"text", text}}}
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

// claudePlainText says whether a user or system message whose content is
// one text block must change form to be as Claude Code sends it: a
// one-block list while it is the last message, a string once it is not.
// The log and the transcript keep either form (their hashes read a string
// as one text block).
func claudePlainText(raw json.RawMessage, last bool) (text string, reform bool) {
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
func setCacheControl(m Obj, c model.CacheMark) {
	if c.Block < 0 {
		return
	}
	for k := range m {
		if m[k].Key != "content" {
			continue
		}
		if s, ok := m[k].Val.(string); ok {
			m[k].Val = []Value{Obj{{"type", "text"}, {"text", s}}}
		}
		blocks, _ := m[k].Val.([]Value)
		if c.Block < len(blocks) {
			if b, ok := blocks[c.Block].(Obj); ok {
				blocks[c.Block] = append(b, Field{"cache_control", c.Value})
			}
		}
	}
}

// placeLogged records the tool_use and tool_result blocks of logged
// message item.
func placeLogged(raw json.RawMessage, item int, pl *Placer) {
	var m struct {
		Content []model.AnthropicBlock `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil { // a string content holds no blocks
		return
	}
	for j, b := range m.Content {
		switch b.Type {
		case "tool_use", "server_tool_use":
			pl.Call(b.ID, item, j)
		case "tool_result":
			pl.Result(b.ToolUseID, item, j, 1)
		}
	}
}

// orderedJSON decodes JSON into Obj, []Value, string, json.Number, bool
// and nil, keeping key order.
func orderedJSON(raw []byte) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return decodeOrdered(dec)
}

func decodeOrdered(dec *json.Decoder) (Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := Obj{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				o = append(o, Field{kt.(string), v})
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []Value{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
	}
	return tok, nil
}

// claudePromptFromWire lifts logged Anthropic messages into the prompt IR:
// runs of tool_result blocks become tool messages, other user blocks user
// messages, in their order.
func claudePromptFromWire(messages []json.RawMessage) ([]msg, error) {
	var out []msg
	names := map[string]string{} // tool_use id -> tool name
	for i, raw := range messages {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("logged message %d: %w", i, err)
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			out = append(out, msg{role: m.Role, parts: []part{{kind: pText, text: s}}})
			continue
		}
		var blocks []model.AnthropicBlock
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return nil, fmt.Errorf("logged message %d: content: %w", i, err)
		}
		if m.Role == "assistant" {
			a := msg{role: "assistant"}
			for _, b := range blocks {
				switch b.Type {
				case "text":
					a.parts = append(a.parts, part{kind: pText, text: b.Text})
				case "thinking":
					pt := part{kind: pReasoning, text: b.Thinking}
					if b.Signature != nil {
						pt.meta, _ = json.Marshal(map[string]any{"anthropic": map[string]string{"signature": *b.Signature}})
					}
					a.parts = append(a.parts, pt)
				case "redacted_thinking":
					pt := part{kind: pReasoning}
					if b.Data != nil {
						pt.meta, _ = json.Marshal(map[string]any{"anthropic": map[string]string{"redactedData": *b.Data}})
					}
					a.parts = append(a.parts, pt)
				case "tool_use", "server_tool_use":
					names[b.ID] = b.Name
					a.parts = append(a.parts, part{kind: pToolCall, callID: b.ID, of: b.ID, tool: b.Name, input: b.Input})
				}
			}
			out = append(out, a)
			continue
		}
		var cur *msg
		for _, b := range blocks {
			role := "user"
			if b.Type == "tool_result" {
				role = "tool"
			}
			if cur == nil || cur.role != role {
				out = append(out, msg{role: role})
				cur = &out[len(out)-1]
			}
			switch b.Type {
			case "text":
				cur.parts = append(cur.parts, part{kind: pText, text: b.Text})
			case "image", "document":
				if b.Source != nil {
					cur.parts = append(cur.parts, wireFilePart(b))
				}
			case "tool_result":
				cur.parts = append(cur.parts, part{kind: pToolResult, callID: b.ToolUseID, of: b.ToolUseID, tool: names[b.ToolUseID], out: wireToolOutput(b)})
			}
		}
	}
	return out, nil
}

func wireFilePart(b model.AnthropicBlock) part {
	if b.Source.Type == "base64" {
		return part{kind: pFile, mime: b.Source.MediaType, url: "data:" + b.Source.MediaType + ";base64," + b.Source.Data}
	}
	return part{kind: pFile, mime: b.Source.MediaType, url: b.Source.URL}
}

// wireToolOutput is a tool_result's content as an AI SDK output.
func wireToolOutput(b model.AnthropicBlock) output {
	var s string
	if len(b.Content) == 0 || json.Unmarshal(b.Content, &s) == nil {
		if b.Errored() {
			return output{kind: outErrorText, value: s}
		}
		return output{kind: outText, value: s}
	}
	var blocks []model.AnthropicBlock
	_ = json.Unmarshal(b.Content, &blocks)
	o := output{kind: outContent}
	for _, c := range blocks {
		switch {
		case c.Type == "text":
			o.items = append(o.items, outputItem{text: c.Text})
		case c.Source != nil && c.Source.Type == "base64":
			o.items = append(o.items, outputItem{media: true, mediaType: c.Source.MediaType, data: c.Source.Data})
		case c.Type == "tool_reference":
			// only the Anthropic API expands it (into the tool's
			// definition): a projection has an empty text in its place
			o.items = append(o.items, outputItem{})
		}
	}
	return o
}

// claudePromptFromSession is the prompt from the transcript alone, for
// Claude Code versions that log no requests: the user prompts, and each
// assistant step with its calls and their results as sent. Context Claude
// Code adds (system reminders) is not in it.
func claudePromptFromSession(s *model.Session, upto int) []msg {
	var out []msg
	for _, sm := range s.Messages[:upto] {
		switch sm.Role {
		case model.RoleUser:
			u := msg{role: "user"}
			for _, pt := range sm.Parts {
				switch {
				case pt.Type == model.PartText || pt.Type == model.PartCompaction:
					if pt.Text != "" {
						u.parts = append(u.parts, part{kind: pText, text: pt.Text})
					}
				case pt.Type == model.PartFile && pt.File != nil:
					u.parts = append(u.parts, part{kind: pFile, mime: pt.File.Mime, url: pt.File.URL})
				}
			}
			if len(u.parts) > 0 {
				out = append(out, u)
			}
		case model.RoleAssistant:
			a, tools := msg{role: "assistant"}, msg{role: "tool"}
			for _, pt := range sm.Parts {
				switch pt.Type {
				case model.PartText:
					a.parts = append(a.parts, part{kind: pText, text: pt.Text})
				case model.PartReasoning:
					a.parts = append(a.parts, part{kind: pReasoning, text: pt.Text, meta: pt.Metadata})
				case model.PartTool:
					c := pt.Tool
					a.parts = append(a.parts, part{kind: pToolCall, callID: c.CallID, of: c.CallID, tool: c.Tool, input: c.Input})
					v := formatters.Visible(c, nil)
					res := part{kind: pToolResult, callID: c.CallID, of: c.CallID, tool: c.Tool}
					res.out, _ = toolOutput(v.Result, c.CallID, func(string) bool { return true }, nil)
					tools.parts = append(tools.parts, res)
				}
			}
			if len(a.parts) > 0 {
				out = append(out, a)
			}
			if len(tools.parts) > 0 {
				out = append(out, tools)
			}
		}
	}
	return out
}

// claudeCaching is Claude Code's one conversation cache mark: the last
// block of the last message.
func claudeCaching(prompt []msg) {
	if n := len(prompt); n > 0 && len(prompt[n-1].parts) > 0 {
		ps := prompt[n-1].parts
		ps[len(ps)-1].cache = true
	}
}
