package crush

// Crush's own requests (an openai-compat provider: OpenAI Chat), rebuilt
// from its stored rows by its rules (internal/agent/agent.go preparePrompt
// and workaroundProviderMediaLimitations, internal/message ToAIMessage,
// fantasy's openaicompat ToPromptFunc), checked against the recorded
// bodies (testdata/crush). A request's history is read from the database
// when `crush run` starts; the steps of the run itself go out as fantasy
// holds them.

import (
	"encoding/json"
	"strings"

	"correx/model"
	"correx/render"
)

func init() {
	render.RegisterOwnWire(Agent, render.OwnWire{Provider: render.OpenAIChat, Conversation: conversation})
}

// mediaIntro is the text of the user message that carries a result's image.
const mediaIntro = "Here is the media content from the tool result:"

// row is a Stored row, decoded.
type row struct {
	role      string
	text      string // the first text part (Message.Content)
	reasoning *reasoningData
	calls     []toolCallData
	results   []toolResultData
	files     []binaryData
	shell     []shellData
}

func decodeRow(raw json.RawMessage) (row, bool) {
	var st Stored
	if json.Unmarshal(raw, &st) != nil {
		return row{}, false
	}
	r := row{role: st.Role}
	hasText := false
	for _, p := range st.Parts {
		switch p.Type {
		case "text":
			if d, ok := partData[textData](p, nil); ok && !hasText {
				r.text, hasText = d.Text, true
			}
		case "reasoning":
			if d, ok := partData[reasoningData](p, nil); ok && r.reasoning == nil {
				r.reasoning = &d
			}
		case "tool_call":
			if d, ok := partData[toolCallData](p, nil); ok {
				r.calls = append(r.calls, d)
			}
		case "tool_result":
			if d, ok := partData[toolResultData](p, nil); ok {
				r.results = append(r.results, d)
			}
		case "binary":
			if d, ok := partData[binaryData](p, nil); ok {
				r.files = append(r.files, d)
			}
		case "shell_command":
			if d, ok := partData[shellData](p, nil); ok {
				r.shell = append(r.shell, d)
			}
		}
	}
	return r, true
}

// conversation is the `messages` (without the system prompt) of the
// request whose answer is s.Messages[upto].
func conversation(s *model.Session, upto int, pl *render.Placer) (render.Value, error) {
	// the run's own prompt: the last stored user message before upto;
	// what comes before it was read back from the database
	runStart := 0
	for i := upto - 1; i >= 0; i-- {
		if s.Messages[i].Role == model.RoleUser && len(s.Messages[i].Stored) > 0 {
			runStart = i
			break
		}
	}
	known := map[string]bool{} // calls with a result in the history
	for _, sm := range s.Messages[:upto] {
		for _, raw := range sm.Stored {
			if r, ok := decodeRow(raw); ok {
				for _, res := range r.results {
					known[res.ToolCallID] = true
				}
			}
		}
	}
	calls := map[string]bool{}
	out := []render.Value{}
	for i, sm := range s.Messages[:upto] {
		history := i < runStart
		if len(sm.Stored) == 0 { // the todo reminder
			for _, p := range sm.Parts {
				out = append(out, render.Obj{{Key: "role", Val: "user"}, {Key: "content", Val: p.Text}})
			}
			continue
		}
		rows := make([]row, 0, len(sm.Stored))
		for _, raw := range sm.Stored {
			if r, ok := decodeRow(raw); ok {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		switch rows[0].role {
		case "user":
			if m := userMessage(rows[0], history); m != nil {
				out = append(out, m)
			}
		case "assistant":
			a := rows[0]
			text := a.text
			if history {
				text = strings.TrimSpace(text)
			}
			if len(a.calls) == 0 && text == "" && (a.reasoning == nil || a.reasoning.Thinking == "") {
				continue // cancelled before it returned anything
			}
			for _, c := range a.calls {
				calls[c.ID] = true
			}
			if m := assistantMessage(a, text, len(out), pl); m != nil {
				out = append(out, m)
			}
			if history {
				for _, c := range a.calls {
					if !known[c.ID] {
						pl.Result(c.ID, len(out), -1, 1)
						out = append(out, toolMessage(c.ID, interruptedResult))
					}
				}
			}
			var media []mediaItem
			flush := func() {
				if len(media) > 0 {
					out = append(out, mediaMessage(media, len(out), pl))
					media = nil
				}
			}
			for _, r := range rows[1:] {
				for _, res := range r.results {
					if !calls[res.ToolCallID] {
						continue // an orphaned result: dropped
					}
					content := res.Content
					if res.Data != "" && !res.IsError {
						content = mediaPlaceholder
						media = append(media, mediaItem{res.ToolCallID, "data:" + res.MIMEType + ";base64," + res.Data})
					}
					pl.Result(res.ToolCallID, len(out), -1, 1)
					out = append(out, toolMessage(res.ToolCallID, content))
					if history { // each row was a tool message of its own
						flush()
					}
				}
			}
			flush() // after the step's tool message
		}
	}
	return out, nil
}

// mediaItem is an image moved out of call id's result.
type mediaItem struct{ id, url string }

func toolMessage(id, content string) render.Obj {
	return render.Obj{{Key: "role", Val: "tool"}, {Key: "tool_call_id", Val: id}, {Key: "content", Val: content}}
}

func mediaMessage(media []mediaItem, item int, pl *render.Placer) render.Obj {
	content := []render.Value{render.Obj{{Key: "type", Val: "text"}, {Key: "text", Val: mediaIntro}}}
	for _, m := range media {
		pl.Media(m.id, item, len(content))
		content = append(content, render.Obj{{Key: "type", Val: "image_url"}, {Key: "image_url", Val: render.Obj{{Key: "url", Val: m.url}}}})
	}
	return render.Obj{{Key: "role", Val: "user"}, {Key: "content", Val: content}}
}

// userMessage is a prompt: its text (trimmed when read back from the
// database) with its text attachments and shell commands, then its
// other files.
func userMessage(r row, history bool) render.Value {
	text := r.text
	if history {
		text = strings.TrimSpace(text)
	}
	var b strings.Builder
	b.WriteString(text)
	attached := false
	var files []render.Value
	for _, f := range r.files {
		if !strings.HasPrefix(f.MIMEType, "text/") {
			if strings.HasPrefix(f.MIMEType, "image/") {
				files = append(files, render.Obj{{Key: "type", Val: "image_url"}, {Key: "image_url", Val: render.Obj{{Key: "url", Val: dataURL(f.MIMEType, f.Data)}}}})
			}
			continue
		}
		if !attached {
			b.WriteString("\n<system_info>The files below have been attached by the user, consider them in your response</system_info>\n")
			attached = true
		}
		if f.Path != "" {
			b.WriteString("<file path='" + f.Path + "'>\n")
		} else {
			b.WriteString("<file>\n")
		}
		b.WriteString("\n" + string(f.Data) + "\n</file>\n")
	}
	text = b.String()
	for _, sc := range r.shell {
		if text != "" {
			text += "\n\n"
		}
		text += shellText(sc)
	}
	if len(files) == 0 {
		if text == "" {
			return nil
		}
		return render.Obj{{Key: "role", Val: "user"}, {Key: "content", Val: text}}
	}
	var content []render.Value
	if text != "" {
		content = append(content, render.Obj{{Key: "type", Val: "text"}, {Key: "text", Val: text}})
	}
	return render.Obj{{Key: "role", Val: "user"}, {Key: "content", Val: append(content, files...)}}
}

// assistantMessage is a step: its text alone as a string, or its text,
// tool calls (arguments as the model sent them) and reasoning_content.
func assistantMessage(a row, text string, item int, pl *render.Placer) render.Value {
	reasoning := a.reasoning != nil && a.reasoning.Thinking != ""
	if len(a.calls) == 0 && !reasoning {
		if text == "" {
			return nil
		}
		return render.Obj{{Key: "role", Val: "assistant"}, {Key: "content", Val: text}}
	}
	m := render.Obj{{Key: "role", Val: "assistant"}}
	if text != "" {
		m.Set("content", text)
	}
	if len(a.calls) > 0 {
		var tcs []render.Value
		for j, c := range a.calls {
			pl.Call(c.ID, item, j)
			tcs = append(tcs, render.Obj{{Key: "id", Val: c.ID}, {Key: "type", Val: "function"},
				{Key: "function", Val: render.Obj{{Key: "name", Val: c.Name}, {Key: "arguments", Val: c.Input}}}})
		}
		m.Set("tool_calls", tcs)
	}
	if reasoning {
		m.Set("reasoning_content", a.reasoning.Thinking)
	}
	if text == "" && len(a.calls) == 0 {
		return nil // reasoning alone: fantasy drops the empty message
	}
	return m
}
