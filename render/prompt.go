package render

import (
	"encoding/json"
	"slices"
	"strings"

	"correx/formatters"
	"correx/model"
)

// The prompt IR mirrors the AI SDK's LanguageModel prompt: what opencode's
// toModelMessages and ProviderTransform.message hand to a provider
// converter. Each converter (openai_chat.go, anthropic.go, ...) lowers it to
// one provider's wire JSON.

// msg is one prompt message: role user, assistant or tool.
type msg struct {
	role  string
	parts []part
	cache bool // message-level cache marker (opencode applyCaching)
	// interleaved is set on an assistant message of a model declared with
	// an interleaved reasoning field: its reasoning, joined, goes in that
	// field (providerOptions.openaiCompatible, read by the Chat converter).
	interleaved *interleavedField
	// nullText: an assistant message without text goes as "content":
	// null on OpenAI Chat (ForkRules.NullContent)
	nullText bool
}

type interleavedField struct{ name, text string }

type partKind int

const (
	pText partKind = iota
	pReasoning
	pFile
	pToolCall
	pToolResult
)

// part is one prompt part; only the fields of its kind are set.
type part struct {
	kind partKind
	text string
	// meta is the stored provider metadata ({"anthropic":{"signature"}},
	// {"openai":{"itemId",...}}, {"google":{"thoughtSignature"}}), or nil
	// when the request is for another model than the one that stored it.
	meta json.RawMessage
	// file
	mime, url, filename string
	// tool call and result
	callID, tool string
	input        json.RawMessage
	out          output
	cache        bool // part-level cache marker
	// of is the stored id (model.ToolCall.CallID) of the call this part
	// is, answers, or carries media of, for placements (place.go); ids on
	// the wire may be rewritten (callID), of never is
	of string
}

// outputKind is the AI SDK's tool-result output type.
type outputKind string

const (
	outText      outputKind = "text"
	outErrorText outputKind = "error-text"
	outContent   outputKind = "content"
)

type output struct {
	kind  outputKind
	value string          // text and error-text
	items []outputItem    // content
	json  json.RawMessage // native lowering: the value of a json result (value holds its text)
}

// outputItem is a content item: text, or media with base64 data.
type outputItem struct {
	media     bool
	text      string
	mediaType string
	data      string
}

// Model is the model a request is rendered for. opencode's per-model rules
// (tool-call id sanitising, cache markers, dropping provider metadata of
// another model) depend on it.
type Model struct {
	ProviderID string
	ModelID    string
	// Caps is what the session's models were declared to take (sessions
	// decides it from opencode's config): a user message's media of a kind
	// the step's model does not take becomes opencode's "ERROR: Cannot read
	// …" text, and its reasoning goes in its interleaved field. The zero
	// value assumes every input and no interleaved field.
	Caps model.SessionCapabilities
	// Lowering is the code that built the request: the AI SDK converters or
	// opencode's native packages/llm protocols (native.go). "" means the
	// session's default: native for v2 sessions, ai-sdk for v1.
	Lowering model.Lowering
}

// attachedMediaPrompt is the text of the synthetic user message that
// carries a tool result's media: 1.1.65 said "Attached image(s)", 1.18.33
// says "Attached media".
func attachedMediaPrompt(version string) string {
	if strings.HasPrefix(version, "0.") || strings.HasPrefix(version, "1.0.") || strings.HasPrefix(version, "1.1.") {
		return "Attached image(s) from tool result:"
	}
	return "Attached media from tool result:"
}

// buildPrompt is toModelMessages + convertToModelMessages + ProviderTransform.message
// for the messages before index upto.
func buildPrompt(s *model.Session, upto int, p Provider, m Model) []msg {
	if s.Info.Pipeline == model.PipelineV2 {
		out := v2Prompt(s, upto, m)
		nativeCaching(out)
		return out
	}
	out := promptMsgs(s, s.Messages[:upto], p, m)
	if m.Lowering == model.LoweringNative {
		// packages/llm takes the messages without ProviderTransform.message:
		// no unsupportedParts, no interleaved field
		out = normalize(out, p, m)
		stringifyContent(out)
		nativeCaching(out)
		return out
	}
	return finishPrompt(prepPrompt(out, p, m), p, m, true)
}

// promptMsgs is toModelMessages + convertToModelMessages of msgs, messages
// of s, each lowered alone.
func promptMsgs(s *model.Session, msgs []model.Message, p Provider, m Model) []msg {
	var out []msg
	fork := forkOf(s.Info.Agent)
	for i := range msgs {
		switch sm := &msgs[i]; sm.Role {
		case model.RoleUser:
			u := userMsg(*sm)
			if fork.UserText != nil {
				if t := fork.UserText(s, sm); t != "" {
					u.parts = append(u.parts, part{kind: pText, text: t})
				}
			}
			if len(u.parts) > 0 {
				out = append(out, u)
			}
		case model.RoleAssistant:
			for _, a := range assistantMsgs(*sm, p, m, s.Info.Version) {
				a.nullText = fork.NullContent && a.role == "assistant"
				out = append(out, a)
			}
		}
	}
	return out
}

// prepPrompt is the start of ProviderTransform.message on the AI SDK
// path, whose every rule looks at one message alone: unsupportedParts,
// then normalizeMessages' dropping of empty content.
func prepPrompt(msgs []msg, p Provider, m Model) []msg {
	return dropEmpty(unsupportedParts(msgs, m.Caps.For(m.ProviderID, m.ModelID)), p, m)
}

// finishPrompt is the rest of ProviderTransform.message over a prepared
// prompt (prepPrompt): the rest of normalizeMessages, the interleaved
// field, and, when the prompt ends with the request's last message
// (last), the cache marks of applyCaching.
func finishPrompt(msgs []msg, p Provider, m Model, last bool) []msg {
	caps := m.Caps.For(m.ProviderID, m.ModelID)
	msgs = normalizeRest(msgs, m)
	if !isMistral(m) && caps.Interleaved != "" && caps.NPM != "@openrouter/ai-sdk-provider" {
		interleave(msgs, caps.Interleaved)
	}
	if last && (p == Anthropic || m.ProviderID == "anthropic" || strings.Contains(m.ModelID, "anthropic") || strings.Contains(m.ModelID, "claude")) {
		applyCaching(msgs, p, m.ProviderID)
	}
	return msgs
}

func userMsg(sm model.Message) msg {
	u := msg{role: "user"}
	for _, pt := range sm.Parts {
		switch pt.Type {
		case model.PartText:
			if !pt.Ignored && pt.Text != "" {
				u.parts = append(u.parts, part{kind: pText, text: pt.Text})
			}
		case model.PartFile:
			if f := pt.File; f != nil && f.Mime != "text/plain" && f.Mime != "application/x-directory" {
				u.parts = append(u.parts, part{kind: pFile, mime: f.Mime, url: f.URL, filename: f.Filename})
			}
		case model.PartCompaction:
			u.parts = append(u.parts, part{kind: pText, text: "What did we do so far?"})
		case model.PartSubtask:
			u.parts = append(u.parts, part{kind: pText, text: "The following tool was executed by the user"})
		}
	}
	return u
}

// assistantMsgs turns one assistant step into the assistant message, the
// tool message with its results, and the synthetic user message that
// carries media for providers that take none in tool results.
func assistantMsgs(sm model.Message, p Provider, m Model, version string) []msg {
	if sm.Error != "" && !(sm.Error == "MessageAbortedError" && hasContent(sm)) {
		return nil
	}
	sameModel := m.ProviderID == sm.ProviderID && m.ModelID == sm.ModelID
	meta := func(raw json.RawMessage) json.RawMessage {
		if sameModel {
			return raw
		}
		return nil
	}
	a, tools := msg{role: "assistant"}, msg{role: "tool"}
	a.parts = make([]part, 0, len(sm.Parts))
	if calls := toolParts(sm.Parts); calls > 0 {
		tools.parts = make([]part, 0, calls)
	}
	signed := anthropicSigned(sm)
	var media []part
	for _, pt := range sm.Parts {
		switch pt.Type {
		case model.PartText:
			text := pt.Text
			if text == "" && signed {
				text = " "
			}
			a.parts = append(a.parts, part{kind: pText, text: text, meta: meta(pt.Metadata)})
		case model.PartReasoning:
			if !sameModel {
				// another model's reasoning goes as plain text, blank dropped
				if trimJS(pt.Text) != "" {
					a.parts = append(a.parts, part{kind: pText, text: pt.Text})
				}
				continue
			}
			a.parts = append(a.parts, part{kind: pReasoning, text: pt.Text, meta: pt.Metadata})
		case model.PartTool:
			call := pt.Tool
			a.parts = append(a.parts, part{kind: pToolCall, callID: call.CallID, of: call.CallID, tool: call.Tool, input: call.Input, meta: meta(pt.Metadata)})
			res := part{kind: pToolResult, callID: call.CallID, of: call.CallID, tool: call.Tool, meta: meta(pt.Metadata)}
			res.out, media = toolOutput(formatters.Result(call), call.CallID, inlineMedia(p, m), media)
			tools.parts = append(tools.parts, res)
		}
	}
	if len(a.parts) == 0 {
		return nil
	}
	out := []msg{a}
	if len(tools.parts) > 0 {
		out = append(out, tools)
	}
	if len(media) > 0 {
		out = append(out, msg{role: "user", parts: append([]part{{kind: pText, text: attachedMediaPrompt(version)}}, media...)})
	}
	return out
}

// anthropicSigned says whether a step has reasoning with an Anthropic
// signature: its empty texts are then sent as " ".
func anthropicSigned(sm model.Message) bool {
	for _, pt := range sm.Parts {
		if pt.Type == model.PartReasoning && metaHas(pt.Metadata, "anthropic", "signature") {
			return true
		}
	}
	return false
}

// metaHas says whether provider metadata has a non-null meta[provider][key].
func metaHas(meta json.RawMessage, provider, key string) bool {
	var m map[string]json.RawMessage
	if len(meta) == 0 || json.Unmarshal(meta, &m) != nil {
		return false
	}
	var inner map[string]json.RawMessage
	if json.Unmarshal(m[provider], &inner) != nil {
		return false
	}
	v, ok := inner[key]
	return ok && string(v) != "null"
}

func hasContent(sm model.Message) bool {
	for _, pt := range sm.Parts {
		if pt.Type != model.PartStepStart && pt.Type != model.PartReasoning {
			return true
		}
	}
	return false
}

// toolOutput lowers a model-visible result to the AI SDK output. Media that
// the provider does not take in tool results (inline false) are moved to
// media, as parts of call id.
func toolOutput(r model.ToolResultValue, id string, inline func(mime string) bool, media []part) (output, []part) {
	switch r.Type {
	case model.ResultError:
		return output{kind: outErrorText, value: r.Text}, media
	case model.ResultContent:
		// opencode's toModelOutput: the text, then the attachments that stay
		// in the result; a result left with none is a plain string.
		var text string
		var files []model.ToolContent
		for _, c := range r.Content {
			switch {
			case c.Type == model.ContentText:
				text = c.Text
			case isMedia(c.Mime) && !inline(c.Mime):
				media = append(media, part{kind: pFile, mime: c.Mime, url: c.URI, of: id})
			default:
				files = append(files, c)
			}
		}
		if len(files) == 0 {
			return output{kind: outText, value: text}, media
		}
		var items []outputItem
		if text != "" {
			items = append(items, outputItem{text: text})
		}
		for _, f := range files {
			// only data: URLs with a comma are kept
			if i := strings.IndexByte(f.URI, ','); strings.HasPrefix(f.URI, "data:") && i >= 0 {
				items = append(items, outputItem{media: true, mediaType: f.Mime, data: f.URI[i+1:]})
			}
		}
		return output{kind: outContent, items: items}, media
	}
	return output{kind: outText, value: formatters.ResultText(r)}, media
}

// isMedia is opencode's util/media: images and PDFs.
func isMedia(mime string) bool {
	return strings.HasPrefix(mime, "image/") || mime == "application/pdf"
}

// inlineMedia says which media p takes inside a tool result for model m.
func inlineMedia(p Provider, m Model) func(mime string) bool {
	return func(mime string) bool { return mediaInToolResults(p, m, mime) }
}

// mediaInToolResults is opencode's supportsMediaInToolResults for one
// attachment, by the npm package behind each provider API.
func mediaInToolResults(p Provider, m Model, mime string) bool {
	switch p {
	case Anthropic, OpenAIResponses:
		return true
	case Bedrock:
		id := strings.ToLower(m.ModelID)
		return strings.HasPrefix(mime, "image/") && (strings.Contains(id, "anthropic.") || strings.Contains(id, "nova") ||
			strings.Contains(id, "llama4") || strings.Contains(id, "llama-4"))
	case Gemini:
		id := strings.ToLower(m.ModelID)
		return strings.Contains(id, "gemini-3") && !strings.Contains(id, "gemini-2")
	}
	return false
}

// unsupportedParts is ProviderTransform's unsupportedParts: a user
// message's file part of an input kind the model does not take becomes an
// error text (named by its filename, else by its kind).
func unsupportedParts(msgs []msg, caps model.Capabilities) []msg {
	for i := range msgs {
		if msgs[i].role != "user" {
			continue
		}
		for j, pt := range msgs[i].parts {
			kind := model.InputKindOf(pt.mime)
			if pt.kind != pFile || kind == "" || caps.Takes(kind) {
				continue
			}
			name := string(kind)
			if pt.filename != "" {
				name = `"` + pt.filename + `"`
			}
			msgs[i].parts[j] = part{kind: pText, text: "ERROR: Cannot read " + name + " (this model does not support " + string(kind) + " input). Inform the user.", of: pt.of}
		}
	}
	return msgs
}

// interleave is the end of normalizeMessages for a model declared with an
// interleaved reasoning field: an assistant message's reasoning parts are
// taken out and their texts, joined ("" when none), go in the field.
func interleave(msgs []msg, field string) {
	for i := range msgs {
		if msgs[i].role != "assistant" {
			continue
		}
		var text strings.Builder
		kept := msgs[i].parts[:0:0]
		for _, pt := range msgs[i].parts {
			if pt.kind == pReasoning {
				text.WriteString(pt.text)
				continue
			}
			kept = append(kept, pt)
		}
		msgs[i].parts = kept
		msgs[i].interleaved = &interleavedField{name: field, text: text.String()}
	}
}

// isMistral is normalizeMessages' test for its Mistral rules (after which
// it returns, before the interleaved field).
func isMistral(m Model) bool {
	id := strings.ToLower(m.ModelID)
	if m.ProviderID == "mistral" {
		return true
	}
	for _, w := range []string{"mistral", "devstral", "codestral", "pixtral", "mixtral"} {
		if strings.Contains(id, w) {
			return true
		}
	}
	return false
}

// normalize is ProviderTransform's normalizeMessages.
func normalize(msgs []msg, p Provider, m Model) []msg {
	return normalizeRest(dropEmpty(msgs, p, m), m)
}

// dropEmpty is the start of normalizeMessages: Anthropic and Bedrock
// reject empty content, so empty texts, reasoning the converter would not
// replay, and then empty messages are dropped.
func dropEmpty(msgs []msg, p Provider, m Model) []msg {
	if p != Anthropic && p != Bedrock {
		return msgs
	}
	dropped := func(pt *part) bool {
		return pt.kind == pText && pt.text == "" || pt.kind == pReasoning && !replayable(*pt, p, m)
	}
	kept := msgs[:0]
	for _, ms := range msgs {
		if slices.ContainsFunc(ms.parts, func(pt part) bool { return dropped(&pt) }) {
			// a new slice: the message's may be another's too
			parts := make([]part, 0, len(ms.parts))
			for i := range ms.parts {
				if !dropped(&ms.parts[i]) {
					parts = append(parts, ms.parts[i])
				}
			}
			ms.parts = parts
		}
		if len(ms.parts) > 0 {
			kept = append(kept, ms)
		}
	}
	return kept
}

// normalizeRest is the rest of normalizeMessages: call ids rewritten, and
// Mistral's rule on what follows tool results.
func normalizeRest(msgs []msg, m Model) []msg {
	if m.rewritesCallIDs() {
		mapCallIDs(msgs, m.WireCallID)
	}
	if isMistral(m) && !strings.Contains(m.ModelID, "claude") {
		// Mistral takes no user message right after tool results.
		var out []msg
		for i, ms := range msgs {
			out = append(out, ms)
			if ms.role == "tool" && i+1 < len(msgs) && msgs[i+1].role == "user" {
				out = append(out, msg{role: "assistant", parts: []part{{kind: pText, text: "Done."}}})
			}
		}
		msgs = out
	}
	return msgs
}

// rewritesCallIDs says whether normalizeMessages rewrites tool call ids for
// the model: a "claude" id or a Mistral model.
func (m Model) rewritesCallIDs() bool {
	return strings.Contains(m.ModelID, "claude") || isMistral(m)
}

// WireCallID is the id a stored tool call id goes out with to model m on
// the AI SDK path: normalizeMessages keeps [a-zA-Z0-9_-] of it for a
// "claude" model id, and 9 alphanumerics (padded with 0) for Mistral.
func (m Model) WireCallID(id string) string {
	switch {
	case strings.Contains(m.ModelID, "claude"):
		return replaceOutside(id, &idChars, "_")
	case isMistral(m):
		return mistralID(id)
	}
	return id
}

// mapCallIDs rewrites the ids of every tool call and result.
func mapCallIDs(msgs []msg, f func(string) string) {
	for i := range msgs {
		for j := range msgs[i].parts {
			if pt := &msgs[i].parts[j]; pt.kind == pToolCall || pt.kind == pToolResult {
				pt.callID = f(pt.callID)
			}
		}
	}
}

// mistralID is opencode's Mistral rule: 9 alphanumerics, padded with 0.
func mistralID(id string) string {
	id = replaceOutside(id, &alnumChars, "")
	if len(id) > 9 {
		id = id[:9]
	}
	return id + strings.Repeat("0", 9-len(id))
}

// replayable is normalizeMessages' test for a reasoning part: Anthropic
// keeps non-blank text or a signature or redacted data; Bedrock only a
// signature, redacted content or redacted data under the provider id or
// "bedrock".
func replayable(pt part, p Provider, m Model) bool {
	if p == Anthropic {
		return trimJS(pt.text) != "" || metaHas(pt.meta, "anthropic", "signature") || metaHas(pt.meta, "anthropic", "redactedData")
	}
	key := "bedrock"
	if metaHasKey(pt.meta, m.ProviderID) {
		key = m.ProviderID
	}
	return metaHas(pt.meta, key, "signature") || metaHas(pt.meta, key, "redactedContent") || metaHas(pt.meta, key, "redactedData")
}

// metaHasKey says whether provider metadata has a non-null meta[provider].
func metaHasKey(meta json.RawMessage, provider string) bool {
	var m map[string]json.RawMessage
	if len(meta) == 0 || json.Unmarshal(meta, &m) != nil {
		return false
	}
	v, ok := m[provider]
	return ok && string(v) != "null"
}

// applyCaching marks the last two non-system messages: on the message for
// the anthropic provider id, ids containing "bedrock" and
// @ai-sdk/amazon-bedrock, else on its last part.
func applyCaching(msgs []msg, p Provider, providerID string) {
	messageLevel := providerID == "anthropic" || strings.Contains(providerID, "bedrock") || p == Bedrock
	for i := max(0, len(msgs)-2); i < len(msgs); i++ {
		if !messageLevel && len(msgs[i].parts) > 0 {
			msgs[i].parts[len(msgs[i].parts)-1].cache = true
			continue
		}
		msgs[i].cache = true
	}
}

// toolParts is how many of parts are tool calls: an assistant message's
// parts and its results are sized once (a part is large, and most
// messages have a few).
func toolParts(parts []model.Part) int {
	n := 0
	for _, pt := range parts {
		if pt.Type == model.PartTool && pt.Tool != nil {
			n++
		}
	}
	return n
}
