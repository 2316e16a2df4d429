package render

import (
	"sync"

	"correx/model"
)

// OwnWire is how an agent that builds its own requests built them: the
// provider API it speaks, and the conversation it sent at a step, rebuilt
// from its stored session. Its driver package registers it; every other
// provider gets a projection through the prompt IR (cliPrompt).
type OwnWire struct {
	Provider Provider
	// Conversation is the conversation part of the request whose answer
	// is message upto of s (`messages` without system messages for OpenAI
	// Chat), recording where each call and result sit in pl.
	Conversation func(s *model.Session, upto int, pl *Placer) (Value, error)
}

var ownWires agentRegistry[OwnWire]

// RegisterOwnWire registers agent a's own wire; twice panics.
func RegisterOwnWire(a model.Agent, w OwnWire) { ownWires.add("own wire", a, w) }

func ownWireOf(a model.Agent) (OwnWire, bool) { return ownWires.get(a) }

// agentRegistry is what driver packages register per agent.
type agentRegistry[T any] struct {
	sync.RWMutex
	m map[model.Agent]T
}

// add registers v for a; twice panics (two packages claiming one agent).
func (r *agentRegistry[T]) add(what string, a model.Agent, v T) {
	r.Lock()
	defer r.Unlock()
	if r.m == nil {
		r.m = map[model.Agent]T{}
	}
	if _, dup := r.m[a]; dup {
		panic("render: " + what + " registered twice: " + string(a))
	}
	r.m[a] = v
}

func (r *agentRegistry[T]) get(a model.Agent) (T, bool) {
	r.RLock()
	defer r.RUnlock()
	v, ok := r.m[a]
	return v, ok
}

// OwnProvider is the provider the agent itself sent msg's step to: the
// registered own wire's, else the one msg's provider id names (Native);
// "" when neither says.
func OwnProvider(info model.SessionInfo, msg *model.Message) Provider {
	if w, ok := ownWireOf(info.Agent); ok {
		return w.Provider
	}
	if msg == nil {
		return ""
	}
	return Native(msg.ProviderID, msg.ModelID)
}
