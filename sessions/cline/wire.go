package cline

import (
	"encoding/json"

	"correx/formatters"
	"correx/model"
	"correx/render"
)

func init() {
	render.RegisterOwnWire(Agent, render.OwnWire{Provider: render.OpenAIChat, Conversation: conversation})
}

// conversation is a request's `messages` without the system message, as
// Cline 3.0.65 builds it from messages.json for an OpenAI-compatible
// provider (its message builder, then @ai-sdk/openai-compatible; checked
// against the recorded bodies): every stored message before the step, in
// order; a run of blocks other than tool results is one message (a user's
// texts normalised, one text as a string; an assistant's texts joined as
// content, null beside calls, its thinking joined as reasoning_content,
// each tool_use a tool call with JSON.stringify(input) as arguments); each
// tool_result its own tool message carrying the result after the
// send-time cut.
func conversation(s *model.Session, upto int, pl *render.Placer) (render.Value, error) {
	byID := map[string]*model.ToolCall{}
	for _, r := range s.ToolCalls() {
		byID[r.Call.CallID] = r.Call
	}
	out := []render.Value{}
	for _, sm := range s.Messages[:upto] {
		for _, raw := range sm.Stored {
			var m message
			if json.Unmarshal(raw, &m) != nil {
				continue
			}
			bs, err := blocks(m.Content)
			if err != nil {
				continue
			}
			var run []block
			flush := func() {
				if len(run) > 0 {
					out = append(out, chatMessage(m.Role, run, len(out), pl))
					run = nil
				}
			}
			for _, bl := range bs {
				if bl.Type != "tool_result" {
					run = append(run, bl)
					continue
				}
				flush()
				text := ""
				if c := byID[bl.ToolUseID]; c != nil {
					text = formatters.Visible(c, nil).Text
				}
				pl.Result(bl.ToolUseID, len(out), -1, 1)
				out = append(out, render.Obj{{Key: "role", Val: "tool"}, {Key: "tool_call_id", Val: bl.ToolUseID}, {Key: "content", Val: text}})
			}
			flush()
		}
	}
	return out, nil
}

// chatMessage is one run of non-result blocks of a stored message.
func chatMessage(role string, run []block, item int, pl *render.Placer) render.Value {
	if role != "assistant" {
		var parts []render.Value
		for _, bl := range run {
			if bl.Type == "text" {
				parts = append(parts, render.Obj{{Key: "type", Val: "text"}, {Key: "text", Val: normalizeUserInput(bl.Text)}})
			}
		}
		if len(parts) == 1 {
			text, _ := parts[0].(render.Obj).Get("text")
			return render.Obj{{Key: "role", Val: role}, {Key: "content", Val: text}}
		}
		return render.Obj{{Key: "role", Val: role}, {Key: "content", Val: parts}}
	}
	var text, reasoning string
	var calls []render.Value
	for _, bl := range run {
		switch bl.Type {
		case "text":
			text += bl.Text
		case "thinking":
			reasoning += bl.Thinking
		case "tool_use":
			pl.Call(bl.ID, item, len(calls))
			calls = append(calls, render.Obj{
				{Key: "id", Val: bl.ID},
				{Key: "type", Val: "function"},
				{Key: "function", Val: render.Obj{{Key: "name", Val: bl.Name}, {Key: "arguments", Val: string(compactInput(bl.Input))}}},
			})
		}
	}
	o := render.Obj{{Key: "role", Val: "assistant"}}
	var content render.Value = text
	if len(calls) > 0 && text == "" {
		content = nil
	}
	o.Set("content", content)
	if reasoning != "" {
		o.Set("reasoning_content", reasoning)
	}
	if len(calls) > 0 {
		o.Set("tool_calls", calls)
	}
	return o
}
