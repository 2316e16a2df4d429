package render

// Agents that build their own requests (a registered OwnWire: Codex CLI,
// Gemini CLI, …) store what they send, and their drivers rebuild their own
// wire from Message.Stored. The other providers are projections: the
// session through the prompt IR and the converters.

import (
	"bytes"
	"encoding/json"

	"correx/formatters"
	"correx/model"
)

// cliProjection is the step of an agent that builds its own requests
// lowered for provider p through the prompt IR: what p would have got.
func cliProjection(s *model.Session, upto int, p Provider, m Model, pl *Placer) Value {
	v, err := lower(normalize(cliPrompt(s, upto, p, m), p, m), p, m.ModelID, pl)
	if err != nil {
		return []Value{}
	}
	return v
}

// cliPrompt is the session as AI SDK prompt messages for another provider:
// prompts (with the context the agent injected, without developer
// instructions), assistant texts and calls, and the results as sent.
// Reasoning summaries are not replayed.
func cliPrompt(s *model.Session, upto int, p Provider, m Model) []msg {
	var out []msg
	for _, sm := range s.Messages[:upto] {
		switch sm.Role {
		case model.RoleUser:
			if cliDeveloper(sm) {
				continue
			}
			u := msg{role: "user"}
			for _, pt := range sm.Parts {
				switch {
				case pt.Type == model.PartText && pt.Text != "":
					u.parts = append(u.parts, part{kind: pText, text: pt.Text})
				case pt.Type == model.PartFile && pt.File != nil:
					u.parts = append(u.parts, part{kind: pFile, mime: pt.File.Mime, url: pt.File.URL, filename: pt.File.Filename})
				}
			}
			if len(u.parts) > 0 {
				out = append(out, u)
			}
		case model.RoleAssistant:
			a := msg{role: "assistant", parts: make([]part, 0, len(sm.Parts))}
			tools := msg{role: "tool", parts: make([]part, 0, toolParts(sm.Parts))}
			var media []part
			for _, pt := range sm.Parts {
				switch {
				case pt.Type == model.PartText && pt.Text != "":
					a.parts = append(a.parts, part{kind: pText, text: pt.Text})
				case pt.Type == model.PartTool && pt.Tool != nil:
					call := pt.Tool
					a.parts = append(a.parts, part{kind: pToolCall, callID: call.CallID, of: call.CallID, tool: call.Tool, input: objectInput(call.Input)})
					res := part{kind: pToolResult, callID: call.CallID, of: call.CallID, tool: call.Tool}
					res.out, media = toolOutput(formatters.Result(call), call.CallID, func(mime string) bool { return mediaInToolResults(p, m, mime) }, media)
					tools.parts = append(tools.parts, res)
				}
			}
			if len(a.parts) == 0 {
				continue
			}
			out = append(out, a)
			if len(tools.parts) > 0 {
				out = append(out, tools)
			}
			if len(media) > 0 {
				out = append(out, msg{role: "user", parts: append([]part{{kind: pText, text: "Attached media from tool result:"}}, media...)})
			}
		}
	}
	return out
}

// cliDeveloper says whether a Codex prompt message is a developer (or
// system) message: instructions, not a user turn.
func cliDeveloper(sm model.Message) bool {
	for _, it := range sm.Stored {
		var head struct {
			Role string `json:"role"`
		}
		if json.Unmarshal(it, &head) == nil && (head.Role == "developer" || head.Role == "system") {
			return true
		}
	}
	return false
}

// objectInput is a call's input as a JSON object: freeform inputs (Codex's
// apply_patch text) become {"input": text}.
func objectInput(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw) // not a string: an input can be large
	if bytes.HasPrefix(t, []byte("{")) {
		return raw
	}
	if len(t) == 0 {
		return json.RawMessage("{}")
	}
	b, _ := Marshal(Obj{{"input", json.RawMessage(t)}})
	return b
}
