package codex

// Codex's own wire: the OpenAI Responses `input` it sent, replayed from
// the stored response items.

import (
	"bytes"
	"encoding/json"
	"strings"

	"correx/internal/jsonskim"
	"correx/model"
	"correx/render"
)

func init() {
	render.RegisterOwnWire(model.AgentCodex, render.OwnWire{
		Provider: render.OpenAIResponses,
		Conversation: func(s *model.Session, upto int, pl *render.Placer) (render.Value, error) {
			return Input(s, upto, pl), nil
		},
	})
}

// Input is the request's `input` without developer (and system)
// items: every stored response item of the messages before the step, in
// rollout order. Codex 0.171.0 sends its history items exactly as the
// rollout holds them (the loader drops the rollout-only fields); the base
// instructions message is not in the rollout, and is a developer item.
//
// An output item the outline left in the rollout (reader.go) is sent with
// its call's output text.
func Input(s *model.Session, upto int, pl *render.Placer) []render.Value {
	out := []render.Value{}
	calls := map[string]*model.ToolCall{}
	for _, sm := range s.Messages[:upto] {
		for _, p := range sm.Parts {
			if p.Tool != nil {
				calls[p.Tool.CallID] = p.Tool
			}
		}
		for _, it := range sm.Stored {
			role, typ, callID := itemHead(it)
			if role == "developer" || role == "system" {
				continue
			}
			if strings.HasSuffix(typ, "_output") {
				pl.Result(callID, len(out), -1, 1)
			} else {
				pl.Call(callID, len(out), -1)
			}
			out = append(out, filled(it, calls[callID]))
		}
	}
	return out
}

// itemHead is stored item it's role, type and call_id as encoding/json
// decodes them: skimmed (an item is valid JSON, a value of a line the
// reader decoded), decoded where the skim cannot vouch for that.
func itemHead(it json.RawMessage) (role, typ, callID string) {
	if vals, ok := jsonskim.Named(it, "role", "type", "call_id"); ok && jsonskim.StringValues(vals, &role, &typ, &callID) {
		return role, typ, callID
	}
	var head struct {
		Role   string `json:"role"`
		Type   string `json:"type"`
		CallID string `json:"call_id"`
	}
	_ = json.Unmarshal(it, &head)
	return head.Role, head.Type, head.CallID
}

// filled is stored item it, its elided output (elidedOutput) the output
// text of call.
func filled(it json.RawMessage, call *model.ToolCall) render.Value {
	if call == nil || !bytes.Contains(it, elidedOutput) {
		return it
	}
	var o render.Obj
	if !eachMember(it, func(k string, v json.RawMessage) {
		if k == "output" && bytes.Equal(v, elidedOutput) {
			o = append(o, render.KV(k, call.Output))
			return
		}
		o = append(o, render.KV(k, v))
	}) {
		return it
	}
	return o
}
