package render

import (
	"encoding/json"
	"fmt"
	"strings"
)

// openAIResponses is @ai-sdk/openai's convertToOpenAIResponsesInput (3.0.8x,
// as bundled in opencode 1.18.33), `input` without the system (developer)
// item, called the way opencode calls it for provider openai: store false,
// no conversation, no previous response id, only function tools.
//
// opencode's ProviderTransform deletes providerOptions.openai.itemId for
// @ai-sdk/openai, so the converter never sees an item id: it sends no item
// references and no `id`s, and each reasoning part is its own reasoning
// item (the SDK only merges parts that share an item id). The stored itemId
// is therefore simply never read here.
func openAIResponses(prompt []msg, pl *Placer) []Value {
	out := []Value{}
	for _, m := range prompt {
		switch m.role {
		case "user":
			out = append(out, Obj{{"role", "user"}, {"content", responsesUser(m, pl, len(out))}})
		case "assistant":
			out = responsesAssistant(out, m, pl)
		case "tool":
			out = responsesResults(out, m, pl)
		}
	}
	return out
}

// responsesResults appends a tool message's function_call_output items.
func responsesResults(out []Value, m msg, pl *Placer) []Value {
	for _, pt := range m.parts {
		pl.put(pt, len(out), -1, 1)
		out = append(out, Obj{{"type", "function_call_output"}, {"call_id", pt.callID}, {"output", responsesOutput(pt.out)}})
	}
	return out
}

// responsesUser is the content of a user message, item of the input.
func responsesUser(m msg, pl *Placer, item int) []Value {
	content := []Value{}
	for _, pt := range m.parts {
		switch pt.kind {
		case pText:
			content = append(content, Obj{{"type", "input_text"}, {"text", pt.text}})
		case pFile:
			content = append(content, responsesUserFile(pt, len(content)))
		default:
			continue
		}
		pl.put(pt, item, len(content)-1, 1)
	}
	return content
}

// responsesUserFile is a user file part at index i of its message: an image
// (image/* read as image/jpeg), else a file. A data: URL reaches the
// converter as base64 data and is rebuilt as a data: URL of its own type;
// any other URL is passed as it is. Types other than PDF make the SDK throw
// (no request is sent); they are shown as the pass-through file it would
// otherwise build.
func responsesUserFile(pt part, i int) Obj {
	mt := fileMediaType(pt)
	if mt == "image/*" {
		mt = "image/jpeg"
	}
	_, data, isData := splitDataURL(pt.url)
	if strings.HasPrefix(mt, "image/") {
		if !isData {
			return Obj{{"type", "input_image"}, {"image_url", pt.url}}
		}
		return Obj{{"type", "input_image"}, {"image_url", "data:" + mt + ";base64," + data}}
	}
	if !isData {
		return Obj{{"type", "input_file"}, {"file_url", pt.url}}
	}
	name := pt.filename
	if name == "" {
		name = fmt.Sprintf("part-%d", i)
		if mt == "application/pdf" {
			name += ".pdf"
		}
	}
	return Obj{{"type", "input_file"}, {"filename", name}, {"file_data", "data:" + mt + ";base64," + data}}
}

// openAIPartMeta is the part's providerOptions.openai, as stored.
type openAIPartMeta struct {
	ReasoningEncryptedContent *string         `json:"reasoningEncryptedContent"`
	Phase                     json.RawMessage `json:"phase"`
	Namespace                 json.RawMessage `json:"namespace"`
}

func openAIMeta(raw json.RawMessage) openAIPartMeta {
	var m struct {
		OpenAI openAIPartMeta `json:"openai"`
	}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &m)
	}
	return m.OpenAI
}

// present says whether an optional metadata value is set (not absent, not null).
func present(v json.RawMessage) bool { return len(v) > 0 && string(v) != "null" }

// responsesAssistant appends one assistant message as input items, in
// part order.
func responsesAssistant(items []Value, m msg, pl *Placer) []Value {
	for _, pt := range m.parts {
		meta := openAIMeta(pt.meta)
		switch pt.kind {
		case pText:
			// convertToLanguageModelPrompt drops an empty text part that has
			// no provider options.
			if pt.text == "" && len(pt.meta) == 0 {
				continue
			}
			o := Obj{{"role", "assistant"}, {"content", []Value{Obj{{"type", "output_text"}, {"text", pt.text}}}}}
			if present(meta.Phase) {
				o.Set("phase", meta.Phase)
			}
			items = append(items, o)
		case pReasoning:
			// Without an item id only encrypted reasoning is replayed; other
			// reasoning (another model's, or none stored) is skipped.
			if meta.ReasoningEncryptedContent == nil {
				continue
			}
			summary := []Value{}
			if pt.text != "" {
				summary = append(summary, Obj{{"type", "summary_text"}, {"text", pt.text}})
			}
			items = append(items, Obj{{"type", "reasoning"}, {"encrypted_content", *meta.ReasoningEncryptedContent}, {"summary", summary}})
		case pToolCall:
			o := Obj{{"type", "function_call"}, {"call_id", pt.callID}, {"name", pt.tool}, {"arguments", compactInput(pt.input)}}
			if present(meta.Namespace) {
				o.Set("namespace", meta.Namespace)
			}
			pl.put(pt, len(items), -1, 1)
			items = append(items, o)
		}
	}
	return items
}

// responsesOutput is a function_call_output's output: the text of text and
// error-text results, content as input items (media as data: URLs; files
// carry no name, so "data").
func responsesOutput(o output) Value {
	if o.kind != outContent {
		return o.value
	}
	items := []Value{}
	for _, it := range o.items {
		url := "data:" + it.mediaType + ";base64," + it.data
		switch {
		case !it.media:
			items = append(items, Obj{{"type", "input_text"}, {"text", it.text}})
		case strings.HasPrefix(it.mediaType, "image/"):
			items = append(items, Obj{{"type", "input_image"}, {"image_url", url}})
		default:
			items = append(items, Obj{{"type", "input_file"}, {"filename", "data"}, {"file_data", url}})
		}
	}
	return items
}
