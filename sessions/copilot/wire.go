package copilot

// Copilot's own wire: OpenAI Chat Completions `messages` (without the
// system message), as 1.0.102 builds them from its session, learned from
// the request bodies of recorded runs. The process that sends a request
// (its run) sends the messages it made itself as it got them, and rebuilds
// those of earlier runs from events.jsonl:
//
//   - user: {"role":"user","content":transformedContent}, in every run.
//   - assistant of this run: content (null when empty), "refusal": null,
//     tool_calls with the argument string the model streamed, then
//     reasoning_content when there was reasoning.
//   - assistant of an earlier run: content and tool_calls only, arguments
//     re-serialised compactly from the stored object.
//   - tool: one message per call, in the order of the calls (not of their
//     completion); from an earlier run it gains
//     "__copilotMessageSource": {"kind":"tool","name":…,"summary":…} (the
//     request's intentionSummary, left out when it had none; kind
//     "subagent" for a task call that ran a subagent). A failed call of this run went with a
//     longer sentence than the stored error.message (a Gap); from an
//     earlier run with error.message.
//
// The argument string the model streamed is not stored either: correx
// renders the compact form, exact when the model streamed compact JSON,
// and names each such place as a Gap.

import (
	"strconv"

	"correx/model"
	"correx/render"
)

func init() {
	render.RegisterOwnWire(Agent, render.OwnWire{
		Provider: render.OpenAIChat,
		Conversation: func(s *model.Session, upto int, pl *render.Placer) (render.Value, error) {
			v, gaps := conversation(s, upto, pl)
			pl.Gap(gaps...)
			return v, nil
		},
	})
}

// Why the places of its gaps are not stored as sent.
const (
	ArgumentsGap = "Copilot re-sends the argument string the model streamed until the session is resumed and stores only the parsed object: shown re-serialised compactly, exact when the model streamed compact JSON"
	ResultGap    = "Copilot sent this failed call's result in its own run as a longer sentence it does not store: shown is the stored error.message, what it sends after a resume"
)

func kv(k string, v render.Value) render.Field { return render.Field{Key: k, Val: v} }

// conversation is the messages of the request whose answer is message
// upto of s, and the places of it that the store does not hold as sent;
// pl (nil-safe) records where each call and result sit.
func conversation(s *model.Session, upto int, pl *render.Placer) ([]render.Value, []render.Gap) {
	out := []render.Value{}
	var gaps []render.Gap
	run := s.Messages[upto].Run
	for _, m := range s.Messages[:upto] {
		if m.Role == model.RoleUser {
			out = append(out, render.Obj{kv("role", "user"), kv("content", text(m, model.PartText))})
			continue
		}
		live := m.Run == run
		item := len(out)
		var content render.Value
		if t := text(m, model.PartText); t != "" {
			content = t
		}
		o := render.Obj{kv("role", "assistant"), kv("content", content)}
		if live {
			o = append(o, kv("refusal", nil))
		}
		var calls []render.Value
		var results []*model.ToolCall
		for _, p := range m.Parts {
			c := p.Tool
			if c == nil {
				continue
			}
			pl.Call(c.CallID, item, len(calls))
			if live {
				gaps = append(gaps, render.Gap{Item: item, Path: []string{"tool_calls", strconv.Itoa(len(calls)), "function", "arguments"}, CallID: c.CallID, Why: ArgumentsGap})
			}
			calls = append(calls, render.Obj{kv("id", c.CallID), kv("type", "function"),
				kv("function", render.Obj{kv("name", c.Tool), kv("arguments", string(c.Input))})})
			if _, ok := sentText(c); ok {
				results = append(results, c)
			}
		}
		if len(calls) > 0 {
			o = append(o, kv("tool_calls", calls))
		}
		if r := text(m, model.PartReasoning); live && r != "" {
			o = append(o, kv("reasoning_content", r))
		}
		out = append(out, o)
		for _, c := range results {
			sent, _ := sentText(c)
			t := render.Obj{kv("role", "tool"), kv("tool_call_id", c.CallID), kv("content", sent)}
			if !live {
				t = append(t, kv("__copilotMessageSource", messageSource(c)))
			} else if c.SentUnknown != "" {
				gaps = append(gaps, render.Gap{Item: len(out), Path: []string{"content"}, CallID: c.CallID, Why: ResultGap})
			}
			pl.Result(c.CallID, len(out), -1, 1)
			out = append(out, t)
		}
	}
	return out, gaps
}

// sentText is the text Copilot sent for c's result; ok false when it sent
// none (the call never finished). An outline's call whose large output was
// left out (model.ToolCall.Elided) has no Sent: its output, as the lazy
// wire puts it there, is what was sent.
func sentText(c *model.ToolCall) (string, bool) {
	switch {
	case c.Sent != nil:
		return c.Sent.Text, true
	case c.Status == model.StatusCompleted:
		return c.Output, true
	}
	return "", false
}

// messageSource is the "__copilotMessageSource" of an earlier run's tool
// message: kind "subagent" for a call that ran a subagent, else "tool";
// no summary when the request had no intentionSummary (an unknown tool).
func messageSource(c *model.ToolCall) render.Obj {
	kind := "tool"
	if c.ChildSessionID != "" {
		kind = "subagent"
	}
	src := render.Obj{kv("kind", kind), kv("name", c.Tool)}
	if c.Title != "" {
		src = append(src, kv("summary", c.Title))
	}
	return src
}

// text joins m's parts of type t.
func text(m model.Message, t model.PartType) string {
	s := ""
	for _, p := range m.Parts {
		if p.Type == t {
			s += p.Text
		}
	}
	return s
}
