package render

// openAIChat is @ai-sdk/openai-compatible's convertToOpenAICompatibleChatMessages
// (2.0.41), without the system message.
func openAIChat(prompt []msg, pl *Placer) []Value {
	out := []Value{}
	for _, m := range prompt {
		switch m.role {
		case "user":
			out = append(out, chatUser(m, pl, len(out)))
		case "assistant":
			out = append(out, chatAssistant(m, pl, len(out)))
		case "tool":
			for _, pt := range m.parts {
				pl.put(pt, len(out), -1, 1)
				o := Obj{{"role", "tool"}, {"tool_call_id", pt.callID}, {"content", chatToolContent(pt.out)}}
				out = append(out, withChatCache(o, pt.cache || m.cache))
			}
		}
	}
	return out
}

// chatUser is a user message, item of the conversation.
func chatUser(m msg, pl *Placer, item int) Value {
	if len(m.parts) == 1 && m.parts[0].kind == pText {
		pl.put(m.parts[0], item, -1, 1)
		return withChatCache(Obj{{"role", "user"}, {"content", m.parts[0].text}}, m.parts[0].cache || m.cache)
	}
	content := []Value{}
	for _, pt := range m.parts {
		switch pt.kind {
		case pText:
			content = append(content, withChatCache(Obj{{"type", "text"}, {"text", pt.text}}, pt.cache))
		case pFile:
			content = append(content, withChatCache(Obj{{"type", "image_url"}, {"image_url", Obj{{"url", pt.url}}}}, pt.cache))
		default:
			continue
		}
		pl.put(pt, item, len(content)-1, 1)
	}
	return withChatCache(Obj{{"role", "user"}, {"content", content}}, m.cache)
}

// chatAssistant is an assistant message, item of the conversation.
func chatAssistant(m msg, pl *Placer, item int) Value {
	var text, reasoning string
	var calls []Value
	for _, pt := range m.parts {
		switch pt.kind {
		case pText:
			text += pt.text
		case pReasoning:
			reasoning += pt.text
		case pToolCall:
			pl.put(pt, item, len(calls), 1)
			calls = append(calls, withChatCache(Obj{
				{"id", pt.callID},
				{"type", "function"},
				{"function", Obj{{"name", pt.tool}, {"arguments", compactInput(pt.input)}}},
			}, pt.cache))
		}
	}
	var content Value = text
	if text == "" && m.nullText {
		content = nil
	}
	o := Obj{{"role", "assistant"}, {"content", content}}
	if reasoning != "" {
		o.Set("reasoning_content", reasoning)
	}
	if len(calls) > 0 {
		o.Set("tool_calls", calls)
	}
	if f := m.interleaved; f != nil {
		o.Set(f.name, f.text)
	}
	return withChatCache(o, m.cache)
}

// chatToolContent: text and error text as they are, anything else as JSON.
func chatToolContent(o output) string {
	if o.kind == outContent {
		b, _ := Marshal(contentJSON(o.items))
		return string(b)
	}
	return o.value
}

// contentJSON is the AI SDK's content output value, as JSON.stringify sees it.
func contentJSON(items []outputItem) []Value {
	v := []Value{}
	for _, it := range items {
		if it.media {
			v = append(v, Obj{{"type", "media"}, {"mediaType", it.mediaType}, {"data", it.data}})
		} else {
			v = append(v, Obj{{"type", "text"}, {"text", it.text}})
		}
	}
	return v
}

// withChatCache spreads openaiCompatible.cache_control onto an object.
func withChatCache(o Obj, cache bool) Obj {
	if cache {
		o.Set("cache_control", Obj{{"type", "ephemeral"}})
	}
	return o
}
