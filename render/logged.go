package render

import (
	"bytes"
	"encoding/json"
	"fmt"

	"correx/internal/jsonskim"
	"correx/internal/parallel"
	"correx/model"
)

// Requests an agent logged (model.LoggedRequest: Claude Code 2.1.x logs
// each request's Anthropic messages and cache_control paths; its reader
// rebuilds a step the log does not give from the transcript and says so).
// Its own wire is its driver's (sessions/claudecode); the other providers
// get projections of the logged messages through the prompt IR and the
// converters.

// loggedProjection is the conversation of another provider than the one
// the agent logged req for: the logged messages through the prompt IR
// and the converters; with spend, req.Messages are dropped as they are
// decoded.
func loggedProjection(req *model.LoggedRequest, p Provider, m Model, pl *Placer, spend bool) (Value, error) {
	prompt, err := promptFromAnthropic(req.Messages, spend)
	if err != nil {
		return nil, err
	}
	claudeCaching(prompt)
	return lower(prompt, p, m.ModelID, pl)
}

// OrderedJSON decodes JSON into Obj, []Value, string, json.Number, bool
// and nil, keeping key order.
func OrderedJSON(raw []byte) (Value, error) {
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

// promptFromAnthropic lifts logged Anthropic messages into the prompt IR:
// runs of tool_result blocks become tool messages, other user blocks user
// messages, in their order.
func promptFromAnthropic(messages []json.RawMessage, spend bool) ([]msg, error) {
	out := make([]msg, 0, len(messages)) // a message is a message or two (tool results and text)
	names := map[string]string{}         // tool_use id -> tool name
	var window [decodeWindow]decodedMessage
	for i := range messages {
		k := i % decodeWindow
		if k == 0 { // the next window's messages, decoded side by side
			n := min(decodeWindow, len(messages)-i)
			_ = parallel.InRuns(n, 64, func() struct{} { return struct{}{} }, func(_ struct{}, j int) error {
				window[j] = decodeMessage(messages[i+j])
				return nil
			}, func(struct{}) {})
			if spend {
				clear(messages[i : i+n]) // the decoded messages are all that holds them now
			}
		}
		d := window[k]
		window[k] = decodedMessage{}
		m, blocks := d.m, d.blocks
		if d.err != nil {
			return nil, fmt.Errorf("logged message %d: %w", i, d.err)
		}
		if blocks == nil {
			out = append(out, msg{role: m.Role, parts: []part{{kind: pText, text: d.text}}})
			continue
		}
		if m.Role == "assistant" {
			a := msg{role: "assistant", parts: make([]part, 0, len(blocks))}
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
		for bi, b := range blocks {
			role := "user"
			if b.Type == "tool_result" {
				role = "tool"
			}
			if cur == nil || cur.role != role {
				out = append(out, msg{role: role, parts: make([]part, 0, sameRole(blocks[bi:], role))})
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

// sameRole is how many of blocks, from the first, go to a message of role:
// the run of tool results ("tool") or of other blocks ("user") they start.
func sameRole(blocks []model.AnthropicBlock, role string) int {
	n := 0
	for _, b := range blocks {
		if (b.Type == "tool_result") != (role == "tool") {
			break
		}
		n++
	}
	return n
}

// decodeWindow messages of a logged request are decoded at a time: a
// request of thousands is decoded on every core, its decoded form held a
// window at a time (1,024 raised the peak RSS of Claude Code's panes at
// 5,000 calls by 2 MB).
const decodeWindow = 128

// decodedMessage is a logged message decoded: its role, and its blocks or,
// for a string content (blocks nil), its text.
type decodedMessage struct {
	m      loggedRole
	text   string
	blocks []model.AnthropicBlock
	err    error
}

// decodeMessage decodes raw, a logged message; err says what is wrong
// with it (its content named when it is there).
func decodeMessage(raw json.RawMessage) decodedMessage {
	m, err := loggedMessage(raw)
	if err != nil {
		return decodedMessage{err: err}
	}
	if s, ok := jsonskim.Text(m.Content); ok {
		return decodedMessage{m: m, text: s}
	}
	blocks, err := loggedBlocks(m.Content)
	if err != nil {
		return decodedMessage{err: fmt.Errorf("content: %w", err)}
	}
	if blocks == nil {
		blocks = []model.AnthropicBlock{}
	}
	return decodedMessage{m: m, blocks: blocks}
}

func wireFilePart(b model.AnthropicBlock) part {
	if b.Source.Type == "base64" {
		return part{kind: pFile, mime: b.Source.MediaType, url: "data:" + b.Source.MediaType + ";base64," + b.Source.Data}
	}
	return part{kind: pFile, mime: b.Source.MediaType, url: b.Source.URL}
}

// loggedRole is a logged message's role and its content, as written.
type loggedRole struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// loggedMessage decodes a logged message's role and finds its content: by
// a skim when the message names each once (the content, most of the
// message, is decoded once, by its reader), else by encoding/json.
func loggedMessage(raw []byte) (loggedRole, error) {
	var m loggedRole
	if vals, ok := jsonskim.Named(raw, "role", "content"); ok && (vals[0] == nil || json.Unmarshal(vals[0], &m.Role) == nil) {
		m.Content = vals[1]
		return m, nil
	}
	err := json.Unmarshal(raw, &m)
	return m, err
}

// loggedBlocks decodes a logged message's content blocks, as
// encoding/json does: it checks the content once, then builds a
// tool_result from its skimmed members, its content left raw (most of a
// request's bytes, decoded once, by wireToolOutput), and decodes any
// other block, or one the skim says no to, by encoding/json.
func loggedBlocks(content json.RawMessage) ([]model.AnthropicBlock, error) {
	return anthropicBlocks(content, false)
}

// AnthropicMessage is raw, a message in the Anthropic form that is valid
// JSON (a part of a checked line), as encoding/json decodes it into a
// role and a raw content, and that content into blocks: skimmed where the
// skim can vouch for it.
func AnthropicMessage(raw []byte) (role string, content json.RawMessage, blocks []model.AnthropicBlock, err error) {
	m, err := loggedMessage(raw)
	if err != nil {
		return "", nil, nil, err
	}
	blocks, err = anthropicBlocks(m.Content, true)
	return m.Role, m.Content, blocks, err
}

// DecodeAnthropicBlock decodes raw, a block that is valid JSON (a part of
// a checked line), into b, a zero block, as encoding/json does: a
// tool_result skimmed, its content a span of raw.
func DecodeAnthropicBlock(raw []byte, b *model.AnthropicBlock) error {
	if sb, ok := skimToolResult(raw); ok {
		*b = sb
		return nil
	}
	return json.Unmarshal(raw, b)
}

// anthropicBlocks is loggedBlocks; checked says content is known to be
// valid JSON.
func anthropicBlocks(content json.RawMessage, checked bool) ([]model.AnthropicBlock, error) {
	blocks := []model.AnthropicBlock{}
	if !checked && !jsonskim.Valid(content) || !jsonskim.Elements(content, func(raw []byte) bool {
		var b model.AnthropicBlock
		if DecodeAnthropicBlock(raw, &b) != nil {
			return false
		}
		blocks = append(blocks, b)
		return true
	}) {
		blocks = nil
		err := json.Unmarshal(content, &blocks)
		return blocks, err
	}
	return blocks, nil
}

// blockMembers are the members model.AnthropicBlock decodes: a
// tool_result's four, then those it has none of.
var blockMembers = []string{"type", "tool_use_id", "content", "is_error", "text", "thinking", "signature", "data", "id", "name", "input", "tool_name", "source"}

// skimToolResult is raw, a valid block, as encoding/json decodes it, when
// it is a tool_result the skim reads; ok false otherwise.
func skimToolResult(raw []byte) (b model.AnthropicBlock, ok bool) {
	vals, ok := jsonskim.Named(raw, blockMembers...)
	if !ok || string(vals[0]) != `"tool_result"` {
		return b, false
	}
	for _, v := range vals[4:] {
		if v != nil {
			return b, false
		}
	}
	if vals[1] != nil {
		id, ok := jsonskim.Text(vals[1])
		if !ok && string(vals[1]) != "null" {
			return b, false
		}
		b.ToolUseID = id
	}
	if vals[3] != nil && json.Unmarshal(vals[3], &b.IsError) != nil {
		return b, false
	}
	b.Type, b.Content = "tool_result", vals[2]
	return b, true
}

// wireToolOutput is a tool_result's content as an AI SDK output.
func wireToolOutput(b model.AnthropicBlock) output {
	s, isText := jsonskim.Text(b.Content)
	if len(b.Content) == 0 || isText {
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

// claudeCaching is Claude Code's one conversation cache mark, kept in the
// projections of its logged requests: the last block of the last message.
func claudeCaching(prompt []msg) {
	if n := len(prompt); n > 0 && len(prompt[n-1].parts) > 0 {
		ps := prompt[n-1].parts
		ps[len(ps)-1].cache = true
	}
}
