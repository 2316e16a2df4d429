package render

// Codex CLI and Gemini CLI shape their requests themselves, and store what
// they send: the agent's own wire (Codex: OpenAI Responses `input`; Gemini
// CLI: Gemini `contents`) is replayed from Message.Stored by the agent's
// rules, learnt from recordings (testdata/codex, testdata/gemini-cli). The
// other providers are projections: the session through the prompt IR and
// the converters.

import (
	"encoding/json"
	"strings"

	"correx/formatters"
	"correx/model"
)

// cliConversation is Conversation for Codex and Gemini CLI sessions; upto
// is the index of the step's assistant message; pl records the placements.
func cliConversation(s *model.Session, upto int, p Provider, m Model, pl *placer) Value {
	switch {
	case s.Info.Agent == model.AgentCodex && p == OpenAIResponses:
		return codexInput(s, upto, pl)
	case s.Info.Agent == model.AgentGeminiCLI && p == Gemini:
		return geminiCLIContents(s, upto, pl)
	}
	v, err := lower(normalize(cliPrompt(s, upto, p, m), p, m), p, m.ModelID, pl)
	if err != nil {
		return []Value{}
	}
	return v
}

// ---- Codex: Responses `input` ----

// codexInput is the request's `input` without developer (and system)
// items: every stored response item of the messages before the step, in
// rollout order. Codex 0.171.0 sends its history items exactly as the
// rollout holds them (the loader drops the rollout-only fields); the base
// instructions message is not in the rollout, and is a developer item.
func codexInput(s *model.Session, upto int, pl *placer) []Value {
	out := []Value{}
	for _, sm := range s.Messages[:upto] {
		for _, it := range sm.Stored {
			var head struct {
				Role   string `json:"role"`
				Type   string `json:"type"`
				CallID string `json:"call_id"`
			}
			_ = json.Unmarshal(it, &head)
			if head.Role == "developer" || head.Role == "system" {
				continue
			}
			if strings.HasSuffix(head.Type, "_output") {
				pl.result(head.CallID, len(out), -1, 1)
			} else {
				pl.call(head.CallID, len(out), -1)
			}
			out = append(out, it)
		}
	}
	return out
}

// ---- Gemini CLI: `contents` ----

// geminiSyntheticSignature is the thoughtSignature Gemini CLI puts on a
// function call that has none, where the API requires one.
const geminiSyntheticSignature = "skip_thought_signature_validator"

type gcContent struct {
	role  string
	parts []Obj
	live  bool // a model turn of the run that sends: its thoughtSignatures are not stored
}

type gcVersionRec struct {
	Run    int             `json:"run"`
	Set    bool            `json:"set"`
	Record json.RawMessage `json:"record"`
}

type gcRec struct {
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"toolCalls"`
}

// geminiCLIContents rebuilds `contents` as Gemini CLI 0.61.0 does:
//
//   - the run that made the request (the run that wrote the step's record)
//     uses each earlier record in the version that run had: a record it
//     wrote live gives the text and the function calls (thoughts are not
//     sent); a record a resume's `$set` rewrote gives its stored parts with
//     the thoughts stripped and, if it had any, the sentinel signature on
//     its first function call (stripThoughts); records the run never had
//     (a later resume's `<id>_response` copies) are left out;
//   - consecutive contents of one role are merged (so a resumed history
//     sends every earlier function response twice);
//   - from the last user text on, the first function call of each model
//     turn without a signature gets the sentinel
//     (ensureActiveLoopHasThoughtSignatures);
//   - the stored "<tool>__" prefix is stripped from call and response ids
//     (stripToolCallIdPrefixes).
//
// The signatures the model streamed are kept in memory only: a live model
// turn is rendered without them.
func geminiCLIContents(s *model.Session, upto int, pl *placer) []Value {
	run := s.Messages[upto].Run
	var hist []gcContent
	for _, sm := range s.Messages[:upto] {
		v, ok := gcPick(sm.Stored, run)
		if !ok {
			continue
		}
		var r gcRec
		if json.Unmarshal(v.Record, &r) != nil {
			continue
		}
		role := "user"
		if r.Type == "gemini" {
			role = "model"
		} else if r.Type != "user" {
			continue
		}
		c := gcContent{role: role}
		parts := gcParts(r.Content)
		switch {
		case !v.Set && role == "model":
			c.live = true
			for _, p := range parts {
				if _, thought := p.Get("thought"); !thought {
					c.parts = append(c.parts, p)
				}
			}
			for _, tc := range r.ToolCalls {
				c.parts = append(c.parts, Obj{{"functionCall", Obj{{"id", tc.ID}, {"args", inputValue(tc.Args)}, {"name", tc.Name}}}})
			}
		case v.Set:
			c.parts = gcStripThoughts(parts, role == "model")
		default:
			c.parts = parts
		}
		if len(c.parts) == 0 {
			continue
		}
		hist = append(hist, c)
	}
	// coalesceConsecutiveRoles
	var merged []gcContent
	for _, c := range hist {
		if n := len(merged); n > 0 && merged[n-1].role == c.role {
			merged[n-1].parts = append(merged[n-1].parts, c.parts...)
			merged[n-1].live = merged[n-1].live || c.live
			continue
		}
		merged = append(merged, c)
	}
	// ensureActiveLoopHasThoughtSignatures
	start := -1
	for i := len(merged) - 1; i >= 0; i-- {
		if merged[i].role == "user" && gcAny(merged[i].parts, "text") && !gcAny(merged[i].parts, "functionResponse") {
			start = i
			break
		}
	}
	for i := max(start, 0); start >= 0 && i < len(merged); i++ {
		if merged[i].role != "model" || merged[i].live {
			continue
		}
		gcSignFirstCall(merged[i].parts)
	}
	out := []Value{}
	for _, c := range merged {
		parts := []Value{}
		for _, p := range c.parts {
			p = gcStripPrefix(p)
			gcPlace(p, len(out), len(parts), pl)
			parts = append(parts, p)
		}
		out = append(out, Obj{{"role", c.role}, {"parts", parts}})
	}
	return out
}

// gcPick is the version of a record that run used: the latest of a run
// not after it.
func gcPick(stored []json.RawMessage, run int) (gcVersionRec, bool) {
	var best gcVersionRec
	ok := false
	for _, raw := range stored {
		var v gcVersionRec
		if json.Unmarshal(raw, &v) != nil || v.Run > run {
			continue
		}
		if !ok || v.Run >= best.Run {
			best, ok = v, true
		}
	}
	return best, ok
}

// gcParts is a PartListUnion as parts (a string is one text part).
func gcParts(content json.RawMessage) []Obj {
	var s string
	if json.Unmarshal(content, &s) == nil {
		if s == "" {
			return nil
		}
		return []Obj{{{"text", s}}}
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(content, &raws)
	var out []Obj
	for _, r := range raws {
		if o, ok := orderedObj(r); ok {
			out = append(out, o)
		}
	}
	return out
}

// orderedObj decodes a JSON object keeping its key order, values raw.
func orderedObj(raw json.RawMessage) (Obj, bool) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var o Obj
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		o = append(o, Field{kt.(string), v})
	}
	return o, true
}

// gcStripThoughts drops thought parts; a model turn that had any gets the
// sentinel signature on its first function call when it has none.
func gcStripThoughts(parts []Obj, model bool) []Obj {
	var kept []Obj
	had := false
	for _, p := range parts {
		if v, ok := p.Get("thought"); ok && string(rawOf(v)) == "true" {
			had = true
			continue
		}
		kept = append(kept, p)
	}
	if had && model {
		gcSignFirstCall(kept)
	}
	return kept
}

func rawOf(v Value) []byte {
	switch x := v.(type) {
	case json.RawMessage:
		return x
	case bool:
		if x {
			return []byte("true")
		}
		return []byte("false")
	}
	b, _ := Marshal(v)
	return b
}

// gcSignFirstCall gives the first function call the sentinel signature if
// it has none.
func gcSignFirstCall(parts []Obj) {
	for i, p := range parts {
		if _, ok := p.Get("functionCall"); !ok {
			continue
		}
		if _, ok := p.Get("thoughtSignature"); !ok {
			q := append(Obj{}, p...)
			q.Set("thoughtSignature", geminiSyntheticSignature)
			parts[i] = q
		}
		return
	}
}

// gcPlace records a function call or response, entry j of content item,
// by its id on the wire (the loader's CallID, sessions.GeminiWireID).
func gcPlace(p Obj, item, j int, pl *placer) {
	for _, f := range p {
		if f.Key != "functionCall" && f.Key != "functionResponse" {
			continue
		}
		var inner struct {
			ID string `json:"id"`
		}
		if b, err := Marshal(f.Val); err == nil && json.Unmarshal(b, &inner) == nil {
			if f.Key == "functionCall" {
				pl.call(inner.ID, item, j)
			} else {
				pl.result(inner.ID, item, j, 1)
			}
		}
	}
}

func gcAny(parts []Obj, key string) bool {
	for _, p := range parts {
		if _, ok := p.Get(key); ok {
			return true
		}
	}
	return false
}

// gcStripPrefix is stripToolCallIdPrefixes for one part: a call or
// response whose id starts with "<name>__" is rebuilt as {name, args|
// response, id} with the prefix removed (other fields are dropped).
func gcStripPrefix(p Obj) Obj {
	for i, f := range p {
		if f.Key != "functionCall" && f.Key != "functionResponse" {
			continue
		}
		inner, ok := orderedObj(rawOf(f.Val))
		if !ok {
			continue
		}
		var name, id string
		if v, ok := inner.Get("name"); ok {
			_ = json.Unmarshal(rawOf(v), &name)
		}
		if v, ok := inner.Get("id"); ok {
			_ = json.Unmarshal(rawOf(v), &id)
		}
		n := strings.TrimSpace(name)
		if n == "" {
			n = "generic_tool"
		}
		if id == "" || !strings.HasPrefix(id, n+"__") {
			continue
		}
		second := "args"
		if f.Key == "functionResponse" {
			second = "response"
		}
		body, _ := inner.Get(second)
		q := append(Obj{}, p...)
		q[i] = Field{f.Key, Obj{{"name", name}, {second, body}, {"id", id[len(n)+2:]}}}
		return q
	}
	return p
}

// ---- projections through the prompt IR ----

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
			a, tools := msg{role: "assistant"}, msg{role: "tool"}
			var media []part
			for _, pt := range sm.Parts {
				switch {
				case pt.Type == model.PartText && pt.Text != "":
					a.parts = append(a.parts, part{kind: pText, text: pt.Text})
				case pt.Type == model.PartTool && pt.Tool != nil:
					call := pt.Tool
					a.parts = append(a.parts, part{kind: pToolCall, callID: call.CallID, of: call.CallID, tool: call.Tool, input: objectInput(call.Input)})
					v := formatters.Visible(call, nil)
					res := part{kind: pToolResult, callID: call.CallID, of: call.CallID, tool: call.Tool}
					res.out, media = toolOutput(v.Result, call.CallID, func(mime string) bool { return mediaInToolResults(p, m, mime) }, media)
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
	t := strings.TrimSpace(string(raw))
	if strings.HasPrefix(t, "{") {
		return raw
	}
	if t == "" {
		return json.RawMessage("{}")
	}
	b, _ := Marshal(Obj{{"input", json.RawMessage(t)}})
	return b
}
