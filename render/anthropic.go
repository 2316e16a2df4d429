package render

import (
	"encoding/json"
	"strings"
)

// anthropic is @ai-sdk/anthropic's convertToAnthropicMessagesPrompt
// (3.0.111), `messages` only: the system prompt is not stored.
//
// Consecutive user and tool messages become one user message, consecutive
// assistant messages one assistant message. cache_control comes from the
// part, else, on a message's last part, from the message. Anthropic's limit
// of four breakpoints is never reached: opencode marks at most two system
// messages and the last two others.
func anthropic(prompt []msg, pl *Placer) []Value {
	out := []Value{}
	blocks := roleBlocks(prompt)
	for i, b := range blocks {
		if b[0].role == "assistant" {
			out = append(out, Obj{{"role", "assistant"}, {"content", anthropicAssistant(b, i == len(blocks)-1, pl, len(out))}})
			continue
		}
		content := []Value{}
		for _, m := range b {
			for j, pt := range m.parts {
				if v := anthropicUserPart(pt); v != nil {
					pl.put(pt, len(out), len(content), 1)
					content = append(content, withAnthropicCache(v, cacheAt(m, j)))
				}
			}
		}
		out = append(out, Obj{{"role", "user"}, {"content", content}})
	}
	return out
}

// roleBlocks is the converters' groupIntoBlocks: runs of user and tool
// messages, and runs of assistant messages.
func roleBlocks(prompt []msg) [][]msg {
	var blocks [][]msg
	side := func(role string) bool { return role == "assistant" }
	for _, m := range prompt {
		if n := len(blocks); n > 0 && side(blocks[n-1][0].role) == side(m.role) {
			blocks[n-1] = append(blocks[n-1], m)
			continue
		}
		blocks = append(blocks, []msg{m})
	}
	return blocks
}

// cacheAt says whether part j of m carries a cache marker: its own, or the
// message's on its last part.
func cacheAt(m msg, j int) bool {
	return m.parts[j].cache || (j == len(m.parts)-1 && m.cache)
}

// anthropicUserPart is one block of a user message: a user text or file, or
// a tool result. Media types Anthropic does not take give nil (the AI SDK
// throws).
func anthropicUserPart(pt part) Obj {
	switch pt.kind {
	case pText:
		return Obj{{"type", "text"}, {"text", pt.text}}
	case pFile:
		source := func(mediaType string) Obj {
			if _, data, ok := splitDataURL(pt.url); ok {
				return Obj{{"type", "base64"}, {"media_type", mediaType}, {"data", data}}
			}
			return Obj{{"type", "url"}, {"url", pt.url}}
		}
		mime := fileMediaType(pt)
		switch {
		case strings.HasPrefix(mime, "image/"):
			if mime == "image/*" {
				mime = "image/jpeg"
			}
			return Obj{{"type", "image"}, {"source", source(mime)}}
		case mime == "application/pdf":
			o := Obj{{"type", "document"}, {"source", source(mime)}}
			if pt.filename != "" {
				o.Set("title", pt.filename)
			}
			return o
		}
	case pToolResult:
		o := Obj{{"type", "tool_result"}, {"tool_use_id", pt.callID}, {"content", anthropicToolContent(pt.out)}}
		if pt.out.kind == outErrorText {
			o.Set("is_error", true)
		}
		return o
	}
	return nil
}

// anthropicToolContent is a tool result's content: the string for text and
// error text, blocks for content (media other than images and PDFs are
// dropped).
func anthropicToolContent(o output) Value {
	if o.kind != outContent {
		return o.value
	}
	blocks := []Value{}
	for _, it := range o.items {
		source := Obj{{"type", "base64"}, {"media_type", it.mediaType}, {"data", it.data}}
		switch {
		case !it.media:
			blocks = append(blocks, Obj{{"type", "text"}, {"text", it.text}})
		case strings.HasPrefix(it.mediaType, "image/"):
			blocks = append(blocks, Obj{{"type", "image"}, {"source", source}})
		case it.mediaType == "application/pdf":
			blocks = append(blocks, Obj{{"type", "document"}, {"source", source}})
		}
	}
	return blocks
}

// anthropicAssistant is the content of one assistant message made from a
// run of assistant messages. The last text of the prompt's last block is
// trimmed; reasoning is replayed only with its Anthropic signature or
// redacted data; tool_use blocks move behind the other blocks between two
// thinking blocks (moveToolUseBlocksToEnd). The message is item of the
// conversation.
func anthropicAssistant(b []msg, lastBlock bool, pl *Placer, item int) []Value {
	n := 0
	for _, m := range b {
		n += len(m.parts)
	}
	content := make([]fromPart, 0, n)
	for j, m := range b {
		for k := range m.parts {
			pt := &m.parts[k]
			meta := anthropicMeta(pt.meta)
			var o Obj
			switch pt.kind {
			case pText:
				if meta.Type == "compaction" {
					o = Obj{{"type", "compaction"}, {"content", pt.text}}
					break
				}
				text := pt.text
				if lastBlock && j == len(b)-1 && k == len(m.parts)-1 {
					text = trimJS(text)
				}
				o = Obj{{"type", "text"}, {"text", text}}
				if meta.Citations != nil {
					o.Set("citations", meta.Citations)
				}
			case pReasoning:
				// thinking blocks never carry cache_control
				switch {
				case meta.Signature != nil:
					content = append(content, fromPart{Obj{{"type", "thinking"}, {"thinking", pt.text}, {"signature", *meta.Signature}}, pt})
				case meta.RedactedData != nil:
					content = append(content, fromPart{Obj{{"type", "redacted_thinking"}, {"data", *meta.RedactedData}}, pt})
				}
				continue
			case pToolCall:
				o = Obj{{"type", "tool_use"}, {"id", pt.callID}, {"name", pt.tool}, {"input", InputValue(pt.input)}}
				if c := meta.caller(); c != nil {
					o.Set("caller", c)
				}
			default:
				continue
			}
			content = append(content, fromPart{withAnthropicCache(o, cacheAt(m, k)), pt})
		}
	}
	out := make([]Value, 0, len(content))
	for _, c := range moveToolUseToEnd(content) {
		pl.put(*c.pt, item, len(out), 1)
		out = append(out, c.o)
	}
	return out
}

// fromPart is a block and the prompt part it was made from.
type fromPart struct {
	o  Obj
	pt *part
}

// moveToolUseToEnd puts, between thinking blocks, the tool_use blocks after
// the others.
func moveToolUseToEnd(content []fromPart) []fromPart {
	if toolUsesLast(content) {
		return content // the usual order: nothing to move
	}
	out := make([]fromPart, 0, len(content))
	var segment []fromPart
	flush := func() {
		for _, use := range []bool{false, true} {
			for _, c := range segment {
				if t, _ := c.o.Get("type"); (t == "tool_use") == use {
					out = append(out, c)
				}
			}
		}
		segment = segment[:0]
	}
	for _, c := range content {
		if t, _ := c.o.Get("type"); t == "thinking" || t == "redacted_thinking" {
			flush()
			out = append(out, c)
			continue
		}
		segment = append(segment, c)
	}
	flush()
	return out
}

// toolUsesLast reports whether, between thinking blocks, no other block
// follows a tool_use block: moveToolUseToEnd keeps such content as it is.
func toolUsesLast(content []fromPart) bool {
	use := false
	for _, c := range content {
		switch t, _ := c.o.Get("type"); t {
		case "thinking", "redacted_thinking":
			use = false
		case "tool_use":
			use = true
		default:
			if use {
				return false
			}
		}
	}
	return true
}

// anthropicPartMeta is the part of the stored provider metadata the
// converter reads: {"anthropic":{...}}.
type anthropicPartMeta struct {
	Signature    *string         `json:"signature"`
	RedactedData *string         `json:"redactedData"`
	Type         string          `json:"type"`
	Citations    json.RawMessage `json:"citations"`
	Caller       *struct {
		Type   string `json:"type"`
		ToolID string `json:"toolId"`
	} `json:"caller"`
}

func anthropicMeta(raw json.RawMessage) anthropicPartMeta {
	var m struct {
		Anthropic anthropicPartMeta `json:"anthropic"`
	}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &m)
	}
	if string(m.Anthropic.Citations) == "null" {
		m.Anthropic.Citations = nil
	}
	return m.Anthropic
}

// caller is getAnthropicCaller: code-execution callers with their tool id,
// or the direct caller.
func (m anthropicPartMeta) caller() Value {
	c := m.Caller
	switch {
	case c == nil:
		return nil
	case (c.Type == "code_execution_20250825" || c.Type == "code_execution_20260120") && c.ToolID != "":
		return Obj{{"type", c.Type}, {"tool_id", c.ToolID}}
	case c.Type == "direct":
		return Obj{{"type", "direct"}}
	}
	return nil
}

func withAnthropicCache(o Obj, cache bool) Obj {
	if cache {
		o.Set("cache_control", Obj{{"type", "ephemeral"}})
	}
	return o
}

// fileMediaType is a file part's media type as the AI SDK passes it to a
// converter: a data: URL's own type wins over the stored mime.
func fileMediaType(pt part) string {
	if mt, _, ok := splitDataURL(pt.url); ok {
		return mt
	}
	return pt.mime
}

// splitDataURL is the AI SDK's splitDataUrl on a data: URL: the media type
// of its header and the text between its first and second comma.
func splitDataURL(url string) (mediaType, data string, ok bool) {
	if !strings.HasPrefix(strings.ToLower(url), "data:") {
		return "", "", false
	}
	// the WHATWG URL parser drops tabs and newlines
	url = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(url)
	fields := strings.Split(url, ",")
	if len(fields) < 2 {
		return "", "", false
	}
	header := strings.SplitN(fields[0], ";", 2)[0]
	return header[len("data:"):], fields[1], true
}

// trimJS is String.prototype.trim: JavaScript's white space and line
// terminators, which differ from unicode.IsSpace (U+FEFF is one, U+0085
// is not).
func trimJS(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
			return true
		}
		return r >= 0x2000 && r <= 0x200a
	})
}
