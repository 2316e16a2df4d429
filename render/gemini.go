package render

import (
	"encoding/json"
	"strings"
)

// gemini is convertToGoogleGenerativeAIMessages of the @ai-sdk/google that
// opencode 1.18.33 bundles for that package (3.0.73), `contents` only: the
// system prompt is not stored. That build differs from the 3.0.80 source:
// it sends no functionCall/functionResponse ids, never injects the
// gemini-3 skip_thought_signature_validator sentinel, drops a model content
// left with no parts, and reads signatures from providerOptions.google,
// else .vertex.
//
// Every prompt message is its own content: consecutive user and tool
// messages are not merged. modelID decides the tool-result form for
// content results: nested parts for ids starting with "gemini-3", the
// legacy sibling parts otherwise.
func gemini(prompt []msg, modelID string, pl *Placer) []Value {
	nested := strings.HasPrefix(modelID, "gemini-3")
	out := []Value{}
	for _, m := range prompt {
		switch m.role {
		case "user":
			parts := []Value{}
			for _, pt := range m.parts {
				switch pt.kind {
				case pText:
					parts = append(parts, Obj{{"text", pt.text}})
				case pFile:
					parts = append(parts, geminiFile(pt))
				default:
					continue
				}
				pl.put(pt, len(out), len(parts)-1, 1)
			}
			out = append(out, Obj{{"role", "user"}, {"parts", parts}})
		case "assistant":
			if parts := geminiModelParts(m, pl, len(out)); len(parts) > 0 {
				out = append(out, Obj{{"role", "model"}, {"parts", parts}})
			}
		case "tool":
			parts := []Value{}
			for _, pt := range m.parts {
				r := geminiToolResult(pt, nested)
				pl.put(pt, len(out), len(parts), len(r))
				parts = append(parts, r...)
			}
			out = append(out, Obj{{"role", "user"}, {"parts", parts}})
		}
	}
	return out
}

// geminiFile is a user file: a data: URL reaches the converter as base64
// data of the URL's own type (image/* read as image/jpeg); any other URL
// is shown as a file reference, which is what the SDK sends for the URLs
// the model takes (Files API, YouTube); others it downloads first.
func geminiFile(pt part) Obj {
	mt := fileMediaType(pt)
	if mt == "image/*" {
		mt = "image/jpeg"
	}
	if _, data, ok := splitDataURL(pt.url); ok {
		return geminiInline(mt, data)
	}
	return Obj{{"fileData", Obj{{"mimeType", mt}, {"fileUri", pt.url}}}}
}

// geminiModelParts are an assistant message's parts: empty texts and empty
// reasoning are dropped; every part carries its stored thoughtSignature.
// The content is item of the conversation when it is sent (parts left).
func geminiModelParts(m msg, pl *Placer, item int) []Value {
	parts := []Value{}
	for _, pt := range m.parts {
		var o Obj
		switch pt.kind {
		case pText:
			if pt.text == "" {
				continue
			}
			o = Obj{{"text", pt.text}}
		case pReasoning:
			if pt.text == "" {
				continue
			}
			o = Obj{{"text", pt.text}, {"thought", true}}
		case pToolCall:
			o = Obj{{"functionCall", Obj{{"name", pt.tool}, {"args", InputValue(pt.input)}}}}
		default:
			continue
		}
		if sig, ok := thoughtSignature(pt.meta); ok {
			o.Set("thoughtSignature", sig)
		}
		pl.put(pt, item, len(parts), 1)
		parts = append(parts, o)
	}
	return parts
}

// thoughtSignature is String(providerOptions.google ?? providerOptions.vertex).thoughtSignature.
func thoughtSignature(raw json.RawMessage) (string, bool) {
	var m struct {
		Google map[string]json.RawMessage `json:"google"`
		Vertex map[string]json.RawMessage `json:"vertex"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return "", false
	}
	opts := m.Google
	if opts == nil {
		opts = m.Vertex
	}
	v := opts["thoughtSignature"]
	if !present(v) {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, true
	}
	return string(v), true
}

// geminiToolResult is one tool result: a functionResponse whose response
// repeats the tool name, with no call id (results match calls by position).
// Content results are joined texts with the media as nested parts (gemini-3)
// or, before gemini-3, one functionResponse per text and each image as an
// inlineData part followed by a note.
func geminiToolResult(pt part, nested bool) []Value {
	response := func(content Value) Obj {
		return Obj{{"name", pt.tool}, {"response", Obj{{"name", pt.tool}, {"content", content}}}}
	}
	wrap := func(f Obj) Value { return Obj{{"functionResponse", f}} }
	if pt.out.kind != outContent {
		return []Value{wrap(response(pt.out.value))}
	}
	if nested {
		var texts []string
		media := []Value{}
		for _, it := range pt.out.items {
			if it.media {
				media = append(media, geminiInline(it.mediaType, it.data))
			} else {
				texts = append(texts, it.text)
			}
		}
		content := "Tool executed successfully."
		if len(texts) > 0 {
			content = strings.Join(texts, "\n")
		}
		f := response(content)
		if len(media) > 0 {
			f.Set("parts", media)
		}
		return []Value{wrap(f)}
	}
	var parts []Value
	for _, it := range pt.out.items {
		switch {
		case !it.media:
			parts = append(parts, wrap(response(it.text)))
		case strings.HasPrefix(it.mediaType, "image/"):
			parts = append(parts, geminiInline(it.mediaType, it.data),
				Obj{{"text", "Tool executed successfully and returned this image as a response"}})
		default:
			// a file-data item, as JSON.stringify writes it
			b, _ := Marshal(Obj{{"type", "file-data"}, {"data", it.data}, {"mediaType", it.mediaType}})
			parts = append(parts, Obj{{"text", string(b)}})
		}
	}
	return parts
}

func geminiInline(mediaType, data string) Obj {
	return Obj{{"inlineData", Obj{{"mimeType", mediaType}, {"data", data}}}}
}
