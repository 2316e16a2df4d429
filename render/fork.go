package render

import "correx/model"

// ForkRules are what the requests of an opencode fork (model.AgentSpec.Fork
// opencode: Kilo Code) do differently from opencode's: render lowers the
// fork's sessions with opencode's code, these applied. Its driver package
// registers them.
type ForkRules struct {
	// UserText is a text part the fork appends to user message m of s
	// when it sends it, not stored ("" for none): Kilo's
	// <environment_details>.
	UserText func(s *model.Session, m *model.Message) string
	// NullContent: the fork's OpenAI Chat converter sends an assistant
	// message without text as "content": null, not "".
	NullContent bool
}

var forks agentRegistry[ForkRules]

// RegisterFork registers the rules of fork a; twice panics.
func RegisterFork(a model.Agent, r ForkRules) { forks.add("fork", a, r) }

// forkOf is a's rules; the zero rules (opencode's own) when none.
func forkOf(a model.Agent) ForkRules {
	r, _ := forks.get(a)
	return r
}
