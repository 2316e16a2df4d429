package model

import "sync"

// Agents that build their own requests register here (from their driver
// package's init), so that every layer names them the same way without
// knowing them.

// AgentSpec is what every layer may say of an agent without reading its
// records.
type AgentSpec struct {
	Agent Agent
	// Name is the display name, e.g. "GitHub Copilot CLI".
	Name string
	// Version is the agent version its reader and wire rules were checked
	// against, e.g. "1.0.102" ("" when unknown).
	Version string
	// Fork is the agent this one is a fork of when its sessions go through
	// that agent's pipeline unchanged but for named differences (Kilo Code:
	// opencode); "" when the agent has its own.
	Fork Agent
}

var agents = struct {
	sync.RWMutex
	specs map[Agent]AgentSpec
	order []Agent
}{specs: map[Agent]AgentSpec{}}

// RegisterAgent adds an agent; registering one twice panics (two driver
// packages claiming one name is a bug).
func RegisterAgent(s AgentSpec) {
	agents.Lock()
	defer agents.Unlock()
	if _, dup := agents.specs[s.Agent]; dup {
		panic("model: agent registered twice: " + string(s.Agent))
	}
	agents.specs[s.Agent] = s
	agents.order = append(agents.order, s.Agent)
}

// Spec is the registered spec of a ("" and ok false when none is).
func (a Agent) Spec() (AgentSpec, bool) {
	agents.RLock()
	defer agents.RUnlock()
	s, ok := agents.specs[a]
	return s, ok
}

// RegisteredAgents lists the registered agents in registration order.
func RegisteredAgents() []Agent {
	agents.RLock()
	defer agents.RUnlock()
	return append([]Agent(nil), agents.order...)
}

// RegisterTruncationKind adds an agent's truncation kind to the help's
// legend (TruncationKinds).
func RegisterTruncationKind(k TruncationKind, what string) {
	agents.Lock()
	defer agents.Unlock()
	TruncationKinds = append(TruncationKinds, struct {
		Kind TruncationKind
		What string
	}{k, what})
}

// UsesOpencode says whether a's sessions go through opencode's pipeline
// (its storage, lowerings, capabilities and markers): opencode's own ("" is
// opencode) and those of a fork registered with Fork opencode.
func (a Agent) UsesOpencode() bool {
	if a == AgentOpencode || a == "" {
		return true
	}
	s, ok := a.Spec()
	return ok && s.Fork == AgentOpencode
}
