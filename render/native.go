package render

import (
	"encoding/json"
	"strings"

	"correx/formatters"
	"correx/model"
)

// The native lowering: opencode's own packages/llm protocols instead of the
// Vercel AI SDK converters. The v1 loop uses it with
// OPENCODE_EXPERIMENTAL_NATIVE_LLM=1 (providers openai, anthropic,
// opencode*), the v2 loop always. Both feed the same prompt IR (prompt.go
// for v1, v2Prompt for v2) to the converters below, which reuse the AI SDK
// converters' block builders wherever the wire is the same and differ only
// where packages/llm does:
//
//   - every prompt message is its own wire message (no merging of a tool
//     message with the user message after it);
//   - tool results are text unless the result is a v2 content result:
//     a v1 content output (text and media) is sent as its JSON string, a
//     json result as JSON.stringify(value), a v2 error as the
//     JSON.stringify of {error, content, structured};
//   - cache markers: the newest user text only (nativeCaching; the system
//     prompt and the last tool, also marked, are not part of the
//     conversation);
//   - OpenAI Chat: assistant content null when the step has no text, texts
//     joined by "\n", tool-result media in a user message after the tool
//     messages;
//   - OpenAI Responses: reasoning is never replayed;
//   - Anthropic: text is not trimmed, tool_use blocks keep their place.

// nativeOutput is a tool result of the native IR: text, error text, or
// (v2 only) content items.
func nativeOutput(r model.ToolResultValue) output {
	switch r.Type {
	case model.ResultError:
		return output{kind: outErrorText, value: r.Text}
	case model.ResultContent:
		var items []outputItem
		for _, c := range r.Content {
			if c.Type == model.ContentText {
				items = append(items, outputItem{text: c.Text})
				continue
			}
			_, data, _ := splitDataURL(c.URI)
			items = append(items, outputItem{media: true, mediaType: c.Mime, data: data})
		}
		return output{kind: outContent, items: items}
	}
	// text as it is; json as JSON.stringify(value), compact
	return output{kind: outText, value: formatters.ResultText(r), json: r.JSON}
}

// stringifyContent turns the v1 content outputs left in the tool results
// (media the provider takes inline) into their JSON string, as the native
// lowering of the v1 loop sends them.
func stringifyContent(msgs []msg) {
	for i := range msgs {
		for j := range msgs[i].parts {
			if pt := &msgs[i].parts[j]; pt.kind == pToolResult && pt.out.kind == outContent {
				pt.out = output{kind: outText, value: chatToolContent(pt.out)}
			}
		}
	}
}

// Visible is the model-visible result of call as provider p received it
// under m's lowering, m being the model of the request that carried it
// (CarrierModel). It is formatters.Visible but for the v1 results opencode's
// native lowering rewrites (formatters.LoweringMatters): that lowering
// first runs the v1 conversion, which moves the media p takes only outside
// tool results to a user message (toolOutput), then sends what is left as
// the JSON string of its text and media (stringifyContent), or as the text
// alone when no media are left. The wire is built by the same functions, so
// what `correx show` prints is what the wire holds, for every provider.
func Visible(call *model.ToolCall, spills formatters.SpillFinder, p Provider, m Model) model.Visible {
	if m.Lowering != model.LoweringNative || !formatters.LoweringMatters(call) {
		return formatters.Visible(call, spills)
	}
	out, moved := toolOutput(formatters.Result(call), call.CallID, inlineMedia(p, m), nil)
	why := "native lowering: the text and media of the result are sent as one JSON string"
	switch {
	case len(moved) > 0 && out.kind == outContent:
		why = "native lowering: media " + p.Label() + " takes only outside tool results went to a user message; the text and the media left are sent as one JSON string"
	case len(moved) > 0:
		why = "native lowering: the media went to a user message (" + p.Label() + " takes none in tool results); the text is sent alone"
	}
	r := model.ToolResultValue{Type: model.ResultText, Text: chatToolContent(out)}
	return formatters.Visible(call, spills, formatters.WithLowered(r, why))
}

// CarrierModel is the model of the request that carried the results of
// the calls in message mi, under lowering low: the next assistant step's,
// or the message's own when no step follows.
func CarrierModel(s *model.Session, mi int, low model.Lowering) Model {
	at := s.Messages[mi]
	for _, next := range s.Messages[mi+1:] {
		if next.Role == model.RoleAssistant {
			at = next
			break
		}
	}
	return Model{ProviderID: at.ProviderID, ModelID: at.ModelID, Lowering: low}
}

// nativeCaching marks the newest user text part, the one message cache
// hint packages/llm's cache policy sets (observed on Anthropic: system[0],
// the last tool, and this block).
func nativeCaching(msgs []msg) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].role != "user" {
			continue
		}
		for j := len(msgs[i].parts) - 1; j >= 0; j-- {
			if msgs[i].parts[j].kind == pText {
				msgs[i].parts[j].cache = true
				return
			}
		}
	}
}

// v2Prompt is packages/core's toLLMMessages for the messages before index
// upto of a v2 session: a user message is its text; an assistant message
// is its text, reasoning and tool calls (empty text and empty unsigned
// reasoning left out; another model's reasoning as text, its provider
// metadata dropped), followed by one tool message per settled call.
func v2Prompt(s *model.Session, upto int, m Model) []msg {
	var out []msg
	for _, sm := range s.Messages[:upto] {
		switch sm.Role {
		case model.RoleUser:
			if u := userMsg(sm); len(u.parts) > 0 {
				out = append(out, u)
			}
		case model.RoleAssistant:
			// reuseProviderMetadata: same model and no error
			sameModel := m.ProviderID == sm.ProviderID && m.ModelID == sm.ModelID && sm.Error == ""
			a := msg{role: "assistant"}
			var results []msg
			for _, pt := range sm.Parts {
				switch pt.Type {
				case model.PartText:
					if pt.Text != "" {
						a.parts = append(a.parts, part{kind: pText, text: pt.Text})
					}
				case model.PartReasoning:
					switch {
					case sameModel && (pt.Text != "" || hasKeys(pt.Metadata)):
						a.parts = append(a.parts, part{kind: pReasoning, text: pt.Text, meta: pt.Metadata})
					case !sameModel && pt.Text != "":
						a.parts = append(a.parts, part{kind: pText, text: pt.Text})
					}
				case model.PartTool:
					call := pt.Tool
					var meta json.RawMessage
					if sameModel {
						meta = pt.Metadata
					}
					a.parts = append(a.parts, part{kind: pToolCall, callID: call.CallID, of: call.CallID, tool: call.Tool, input: call.Input, meta: meta})
					if !formatters.V2Settled(call) {
						continue
					}
					results = append(results, msg{role: "tool", parts: []part{{kind: pToolResult, callID: call.CallID, of: call.CallID, tool: call.Tool, out: nativeOutput(formatters.Result(call)), meta: meta}}})
				}
			}
			if len(a.parts) > 0 {
				out = append(out, a)
			}
			out = append(out, results...)
		}
	}
	return out
}

// nativeConversation lowers a native prompt for provider p.
func nativeConversation(prompt []msg, p Provider, pl *Placer) []Value {
	switch p {
	case OpenAIChat:
		return nativeChat(prompt, pl)
	case OpenAIResponses:
		return nativeResponses(prompt, pl)
	case Anthropic:
		return nativeAnthropic(prompt, pl)
	case Gemini:
		return nativeGemini(prompt, pl)
	case Bedrock:
		return nativeBedrock(prompt, pl)
	}
	return nil
}

// nativeChat is packages/llm's openai-chat lowerMessages, without the
// system message.
func nativeChat(prompt []msg, pl *Placer) []Value {
	out := []Value{}
	var images []Value  // tool-result media waiting for the next non-tool message
	var owners []string // the call of each image
	flush := func() {
		if len(images) > 0 {
			for k, id := range owners {
				pl.Media(id, len(out), k)
			}
			out = append(out, Obj{{"role", "user"}, {"content", images}})
			images, owners = nil, nil
		}
	}
	for _, m := range prompt {
		switch m.role {
		case "user":
			flush()
			out = append(out, nativeChatUser(m, pl, len(out)))
		case "assistant":
			flush()
			out = append(out, nativeChatAssistant(m, pl, len(out)))
		case "tool":
			for _, pt := range m.parts {
				pl.put(pt, len(out), -1, 1)
				content := pt.out.value
				if pt.out.kind == outContent {
					var texts []string
					for _, it := range pt.out.items {
						if it.media {
							owners = append(owners, pt.of)
							images = append(images, Obj{{"type", "image_url"}, {"image_url", Obj{{"url", "data:" + it.mediaType + ";base64," + it.data}}}})
						} else {
							texts = append(texts, it.text)
						}
					}
					content = strings.Join(texts, "\n")
				}
				out = append(out, Obj{{"role", "tool"}, {"tool_call_id", pt.callID}, {"content", content}})
			}
		}
	}
	flush()
	return out
}

// nativeChatUser: the texts joined into one string when there is nothing
// else, else text and image_url parts. The message is item of the
// conversation.
func nativeChatUser(m msg, pl *Placer, item int) Obj {
	var texts []string
	content := []Value{}
	var placed pending
	for _, pt := range m.parts {
		switch pt.kind {
		case pText:
			texts = append(texts, pt.text)
			content = append(content, Obj{{"type", "text"}, {"text", pt.text}})
		case pFile:
			content = append(content, Obj{{"type", "image_url"}, {"image_url", Obj{{"url", pt.url}}}})
		default:
			continue
		}
		placed.add(pt, len(content)-1, 1)
	}
	if len(texts) == len(content) {
		for i := range placed {
			placed[i].at = -1 // one string: the whole message
		}
		pl.commit(placed, item, 0)
		return Obj{{"role", "user"}, {"content", strings.Join(texts, "")}}
	}
	pl.commit(placed, item, 0)
	return Obj{{"role", "user"}, {"content", content}}
}

// nativeChatAssistant: content null without text, texts joined by "\n";
// then tool_calls, then reasoning_content. The message is item of the
// conversation.
func nativeChatAssistant(m msg, pl *Placer, item int) Obj {
	var texts, reasoning []string
	var calls []Value
	for _, pt := range m.parts {
		switch pt.kind {
		case pText:
			texts = append(texts, pt.text)
		case pReasoning:
			reasoning = append(reasoning, pt.text)
		case pToolCall:
			pl.put(pt, item, len(calls), 1)
			calls = append(calls, Obj{
				{"id", pt.callID},
				{"type", "function"},
				{"function", Obj{{"name", pt.tool}, {"arguments", compactInput(pt.input)}}},
			})
		}
	}
	var content Value
	if len(texts) > 0 {
		content = strings.Join(texts, "\n")
	}
	o := Obj{{"role", "assistant"}, {"content", content}}
	if len(calls) > 0 {
		o.Set("tool_calls", calls)
	}
	if len(reasoning) > 0 {
		o.Set("reasoning_content", strings.Join(reasoning, ""))
	}
	return o
}

// nativeResponses is packages/llm's openai-responses lowerMessages without
// the system item. 1.18.33 replays no reasoning item; consecutive texts of
// an assistant message share one assistant item.
func nativeResponses(prompt []msg, pl *Placer) []Value {
	out := []Value{}
	for _, m := range prompt {
		switch m.role {
		case "user":
			out = append(out, Obj{{"role", "user"}, {"content", responsesUser(m, pl, len(out))}})
		case "assistant":
			var texts []Value
			flush := func() {
				if len(texts) > 0 {
					out = append(out, Obj{{"role", "assistant"}, {"content", texts}})
					texts = nil
				}
			}
			for _, pt := range m.parts {
				switch pt.kind {
				case pText:
					texts = append(texts, Obj{{"type", "output_text"}, {"text", pt.text}})
				case pReasoning:
					flush()
				case pToolCall:
					flush()
					pl.put(pt, len(out), -1, 1)
					out = append(out, Obj{{"type", "function_call"}, {"call_id", pt.callID}, {"name", pt.tool}, {"arguments", compactInput(pt.input)}})
				}
			}
			flush()
		case "tool":
			out = responsesResults(out, m, pl)
		}
	}
	return out
}

// nativeAnthropic is packages/llm's anthropic-messages lowerMessages: one
// wire message per prompt message; thinking blocks carry their signature
// when one is stored; tool results are text (content results: text and
// image blocks) with is_error on errors.
func nativeAnthropic(prompt []msg, pl *Placer) []Value {
	out := []Value{}
	for _, m := range prompt {
		content := []Value{}
		for j, pt := range m.parts {
			var o Obj
			switch pt.kind {
			case pText, pFile, pToolResult:
				o = anthropicUserPart(pt)
			case pReasoning:
				o = Obj{{"type", "thinking"}, {"thinking", pt.text}}
				if sig := anthropicMeta(pt.meta).Signature; sig != nil {
					o.Set("signature", *sig)
				}
				content = append(content, o)
				continue
			case pToolCall:
				o = Obj{{"type", "tool_use"}, {"id", pt.callID}, {"name", pt.tool}, {"input", InputValue(pt.input)}}
			}
			if o != nil {
				pl.put(pt, len(out), len(content), 1)
				content = append(content, withAnthropicCache(o, cacheAt(m, j)))
			}
		}
		role := "user"
		if m.role == "assistant" {
			role = "assistant"
		}
		out = append(out, Obj{{"role", role}, {"content", content}})
	}
	return out
}

// nativeGemini is packages/llm's gemini lowerMessages (unverified: no
// recording; read from the source). One content per prompt message; a
// tool result is a functionResponse whose content is the result text
// (content results: the texts joined by "\n", their media as sibling
// inlineData parts).
func nativeGemini(prompt []msg, pl *Placer) []Value {
	out := []Value{}
	for _, m := range prompt {
		parts := []Value{}
		role := "user"
		for _, pt := range m.parts {
			switch pt.kind {
			case pText:
				o := Obj{{"text", pt.text}}
				if m.role == "assistant" {
					role = "model"
					if sig, ok := thoughtSignature(pt.meta); ok {
						o.Set("thoughtSignature", sig)
					}
				}
				pl.put(pt, len(out), len(parts), 1)
				parts = append(parts, o)
			case pFile:
				pl.put(pt, len(out), len(parts), 1)
				parts = append(parts, geminiFile(pt))
			case pReasoning:
				role = "model"
				o := Obj{{"text", pt.text}, {"thought", true}}
				if sig, ok := thoughtSignature(pt.meta); ok {
					o.Set("thoughtSignature", sig)
				}
				parts = append(parts, o)
			case pToolCall:
				role = "model"
				o := Obj{{"functionCall", Obj{{"name", pt.tool}, {"args", InputValue(pt.input)}}}}
				if sig, ok := thoughtSignature(pt.meta); ok {
					o.Set("thoughtSignature", sig)
				}
				pl.put(pt, len(out), len(parts), 1)
				parts = append(parts, o)
			case pToolResult:
				content, media := pt.out.value, []Value{}
				if pt.out.kind == outContent {
					var texts []string
					for _, it := range pt.out.items {
						if it.media {
							media = append(media, geminiInline(it.mediaType, it.data))
						} else {
							texts = append(texts, it.text)
						}
					}
					content = strings.Join(texts, "\n")
				}
				pl.put(pt, len(out), len(parts), 1+len(media))
				parts = append(parts, Obj{{"functionResponse", Obj{{"name", pt.tool}, {"response", Obj{{"name", pt.tool}, {"content", content}}}}}})
				parts = append(parts, media...)
			}
		}
		if m.role == "assistant" {
			role = "model"
		}
		out = append(out, Obj{{"role", role}, {"parts", parts}})
	}
	return out
}

// nativeBedrock is packages/llm's bedrock-converse lowerMessages
// (unverified: no recording; read from the source). One message per prompt
// message; a cache hint is a cachePoint block after its text; a tool result
// carries a status, and a v2 json result goes as a json block.
func nativeBedrock(prompt []msg, pl *Placer) []Value {
	out := []Value{}
	docs := 0
	for _, m := range prompt {
		content := []Value{}
		role := "user"
		if m.role == "assistant" {
			role = "assistant"
		}
		for _, pt := range m.parts {
			switch pt.kind {
			case pText:
				pl.put(pt, len(out), len(content), 1)
				content = append(content, Obj{{"text", pt.text}})
			case pFile:
				if v := bedrockUserPart(pt, &docs); v != nil {
					pl.put(pt, len(out), len(content), 1)
					content = append(content, v)
				}
			case pReasoning:
				rt := Obj{{"text", pt.text}}
				if sig := bedrockSignature(pt.meta); sig != "" {
					rt.Set("signature", sig)
				}
				content = append(content, Obj{{"reasoningContent", Obj{{"reasoningText", rt}}}})
			case pToolCall:
				pl.put(pt, len(out), len(content), 1)
				content = append(content, Obj{{"toolUse", Obj{{"toolUseId", pt.callID}, {"name", pt.tool}, {"input", InputValue(pt.input)}}}})
			case pToolResult:
				var blocks []Value
				switch {
				case pt.out.kind == outContent:
					for _, it := range pt.out.items {
						if !it.media {
							blocks = append(blocks, Obj{{"text", it.text}})
						} else if v := bedrockMedia(it.mediaType, it.data, "", &docs); v != nil {
							blocks = append(blocks, v)
						}
					}
				case pt.out.json != nil:
					blocks = []Value{Obj{{"json", pt.out.json}}}
				default:
					blocks = []Value{Obj{{"text", pt.out.value}}}
				}
				status := "success"
				if pt.out.kind == outErrorText {
					status = "error"
				}
				pl.put(pt, len(out), len(content), 1)
				content = append(content, Obj{{"toolResult", Obj{{"toolUseId", pt.callID}, {"content", blocks}, {"status", status}}}})
			}
			content = withCachePoint(content, pt.cache)
		}
		out = append(out, Obj{{"role", role}, {"content", content}})
	}
	return out
}

// bedrockSignature reads {"bedrock":{"signature"}} or {"anthropic":{"signature"}}.
func bedrockSignature(meta json.RawMessage) string {
	var m map[string]struct {
		Signature string `json:"signature"`
	}
	if len(meta) == 0 || json.Unmarshal(meta, &m) != nil {
		return ""
	}
	if s := m["bedrock"].Signature; s != "" {
		return s
	}
	return m["anthropic"].Signature
}

// hasKeys says whether raw is a JSON object with at least one key.
func hasKeys(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && len(m) > 0
}
