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
	// Unstored, when set, says what that request carried that the agent
	// does not store (and the rebuild leaves out); "" when nothing.
	Unstored func(s *model.Session, upto int) string
}

var ownWires struct {
	sync.RWMutex
	m map[model.Agent]OwnWire
}

// RegisterOwnWire registers agent a's own wire; twice panics.
func RegisterOwnWire(a model.Agent, w OwnWire) {
	ownWires.Lock()
	defer ownWires.Unlock()
	if ownWires.m == nil {
		ownWires.m = map[model.Agent]OwnWire{}
	}
	if _, dup := ownWires.m[a]; dup {
		panic("render: own wire registered twice: " + string(a))
	}
	ownWires.m[a] = w
}

func ownWireOf(a model.Agent) (OwnWire, bool) {
	ownWires.RLock()
	defer ownWires.RUnlock()
	w, ok := ownWires.m[a]
	return w, ok
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

// UnstoredNote says what the agent's own request of step (0: the last)
// carried that its store lacks, for the pane and `wire`; "" when nothing
// is known to be missing, or p is not the agent's own provider.
func UnstoredNote(s *model.Session, p Provider, step int) string {
	w, ok := ownWireOf(s.Info.Agent)
	steps := s.AssistantSteps()
	if !ok || w.Unstored == nil || p != w.Provider || step < 0 || step > len(steps) || len(steps) == 0 {
		return ""
	}
	if step == 0 {
		step = len(steps)
	}
	return w.Unstored(s, steps[step-1])
}
