package codex

// Codex's own wire: the OpenAI Responses `input` it sent, replayed from
// the stored response items.

import (
	"encoding/json"
	"strings"

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
func Input(s *model.Session, upto int, pl *render.Placer) []render.Value {
	out := []render.Value{}
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
				pl.Result(head.CallID, len(out), -1, 1)
			} else {
				pl.Call(head.CallID, len(out), -1)
			}
			out = append(out, it)
		}
	}
	return out
}
