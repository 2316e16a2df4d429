package render

import (
	"encoding/json"
	"strconv"
	"strings"
)

// bedrock is @ai-sdk/amazon-bedrock's convertToBedrockChatMessages as
// bundled in opencode 1.18.33 (4.0.166), `messages` only: the system prompt
// is not stored.
//
// Consecutive user and tool messages become one user message, consecutive
// assistant messages one assistant message. A cache marker is an extra
// {"cachePoint":{"type":"default"}} block after the part that carries it,
// and after the whole message for a message-level one. Unlike 4.0.159, an
// assistant message left with nothing but cache points is not sent, and a
// user block that then follows a user message joins it.
func bedrock(prompt []msg, pl *Placer) []Value {
	out := []Value{}
	docs := 0 // generateDocumentName's counter, shared by the whole prompt
	if pl != nil {
		docs = pl.docs
		defer func() { pl.docs = docs }()
	}
	lastRole := ""
	blocks := roleBlocks(prompt)
	for i, b := range blocks {
		var placed pending
		if b[0].role == "assistant" {
			if content := bedrockAssistant(b, i == len(blocks)-1, &placed); !onlyCachePoints(content) {
				pl.commit(placed, len(out), 0)
				out = append(out, Obj{{"role", "assistant"}, {"content", content}})
				lastRole = "assistant"
			}
			continue
		}
		content := []Value{}
		for _, m := range b {
			for _, pt := range m.parts {
				if v := bedrockUserPart(pt, &docs); v != nil {
					placed.add(pt, len(content), 1)
					content = append(content, v)
				}
				content = withCachePoint(content, pt.cache)
			}
			content = withCachePoint(content, m.cache)
		}
		if lastRole == "user" {
			prev := out[len(out)-1].(Obj)
			pl.commit(placed, len(out)-1, len(prev[1].Val.([]Value)))
			prev[1].Val = append(prev[1].Val.([]Value), content...)
			continue
		}
		pl.commit(placed, len(out), 0)
		out = append(out, Obj{{"role", "user"}, {"content", content}})
		lastRole = "user"
	}
	return out
}

func onlyCachePoints(content []Value) bool {
	for _, v := range content {
		if _, ok := v.(Obj).Get("cachePoint"); !ok {
			return false
		}
	}
	return true
}

// bedrockUserPart is one block of a user message: a user text or file, or
// a tool result. What the AI SDK rejects (unknown image or document
// formats, file URLs) gives nil.
func bedrockUserPart(pt part, docs *int) Value {
	switch pt.kind {
	case pText:
		return Obj{{"text", pt.text}}
	case pFile:
		_, data, ok := splitDataURL(pt.url)
		if !ok {
			return nil
		}
		return bedrockMedia(fileMediaType(pt), data, pt.filename, docs)
	case pToolResult:
		content := []Value{}
		if pt.out.kind == outContent {
			for _, it := range pt.out.items {
				if !it.media {
					content = append(content, Obj{{"text", it.text}})
				} else if v := bedrockMedia(it.mediaType, it.data, "", docs); v != nil {
					content = append(content, v)
				}
			}
		} else {
			content = append(content, Obj{{"text", pt.out.value}})
		}
		// no status: errors are sent like results
		return Obj{{"toolResult", Obj{{"toolUseId", pt.callID}, {"content", content}}}}
	}
	return nil
}

// bedrockMedia is an image block for image/* media and a document block
// for the rest, named after the file without its extensions, else
// document-N.
func bedrockMedia(mediaType, data, filename string, docs *int) Value {
	if strings.HasPrefix(mediaType, "image/") {
		format, ok := bedrockImageFormats[mediaType]
		if !ok {
			return nil
		}
		return Obj{{"image", Obj{{"format", format}, {"source", Obj{{"bytes", data}}}}}}
	}
	format, ok := bedrockDocumentFormats[mediaType]
	if !ok {
		return nil
	}
	name := stripFileExtension(filename)
	if filename == "" {
		*docs++
		name = "document-" + strconv.Itoa(*docs)
	}
	return Obj{{"document", Obj{{"format", format}, {"name", name}, {"source", Obj{{"bytes", data}}}}}}
}

// bedrockAssistant is the content of one assistant message made from a run
// of assistant messages. Blank texts are skipped unless their message has
// reasoning that is replayed; the last text of the prompt's last block is
// trimmed; reasoning is replayed only with its Bedrock signature or
// redacted content or data. The calls' places go to placed.
func bedrockAssistant(b []msg, lastBlock bool, placed *pending) []Value {
	content := []Value{}
	for j, m := range b {
		hasReasoning := false
		for _, pt := range m.parts {
			hasReasoning = hasReasoning || pt.kind == pReasoning && bedrockReasoning(pt) != nil
		}
		for k, pt := range m.parts {
			switch pt.kind {
			case pText:
				if trimJS(pt.text) == "" && !hasReasoning {
					break
				}
				text := pt.text
				if lastBlock && j == len(b)-1 && k == len(m.parts)-1 {
					text = trimJS(text)
				}
				content = append(content, Obj{{"text", text}})
			case pReasoning:
				if v := bedrockReasoning(pt); v != nil {
					content = append(content, Obj{{"reasoningContent", v}})
				}
			case pToolCall:
				placed.add(pt, len(content), 1)
				content = append(content, Obj{{"toolUse", Obj{
					{"toolUseId", pt.callID},
					{"name", bedrockToolName(pt.tool)},
					{"input", bedrockToolInput(pt.input)},
				}}})
			}
			// the part's cache point follows even a part that was left out
			content = withCachePoint(content, pt.cache)
		}
		content = withCachePoint(content, m.cache)
	}
	return content
}

// bedrockReasoning reads {"bedrock":{"signature"|"redactedContent"|"redactedData"}};
// unsigned reasoning is not replayed.
func bedrockReasoning(pt part) Value {
	var meta struct {
		Bedrock struct {
			Signature       *string `json:"signature"`
			RedactedContent *string `json:"redactedContent"`
			RedactedData    *string `json:"redactedData"`
		} `json:"bedrock"`
	}
	if len(pt.meta) > 0 {
		_ = json.Unmarshal(pt.meta, &meta)
	}
	switch r := meta.Bedrock; {
	case r.Signature != nil:
		return Obj{{"reasoningText", Obj{{"text", pt.text}, {"signature", *r.Signature}}}}
	case r.RedactedContent != nil:
		return Obj{{"redactedContent", *r.RedactedContent}}
	case r.RedactedData != nil:
		return Obj{{"redactedReasoning", Obj{{"data", *r.RedactedData}}}}
	}
	return nil
}

// bedrockToolName is sanitizeToolName: characters Bedrock rejects are
// dropped, "_" if nothing is left.
func bedrockToolName(name string) string {
	if s := replaceOutside(name, &idChars, ""); s != "" {
		return s
	}
	return "_"
}

// bedrockToolInput is toBedrockToolInput: an input that is not a JSON
// object is wrapped as {"rawInvalidInput": input}.
func bedrockToolInput(raw json.RawMessage) Value {
	if t := strings.TrimSpace(string(raw)); t != "" && t[0] != '{' {
		return Obj{{"rawInvalidInput", raw}}
	}
	return InputValue(raw)
}

func withCachePoint(content []Value, cache bool) []Value {
	if cache {
		content = append(content, Obj{{"cachePoint", Obj{{"type", "default"}}}})
	}
	return content
}

// stripFileExtension is provider-utils' stripFileExtension: the name up to
// its first dot after the first character.
func stripFileExtension(name string) string {
	if len(name) > 1 {
		if i := strings.IndexByte(name[1:], '.'); i >= 0 {
			return name[:i+1]
		}
	}
	return name
}

var bedrockImageFormats = map[string]string{
	"image/jpeg": "jpeg",
	"image/png":  "png",
	"image/gif":  "gif",
	"image/webp": "webp",
}

var bedrockDocumentFormats = map[string]string{
	"application/pdf":    "pdf",
	"text/csv":           "csv",
	"application/msword": "doc",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
	"application/vnd.ms-excel": "xls",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
	"text/html":     "html",
	"text/plain":    "txt",
	"text/markdown": "md",
}
