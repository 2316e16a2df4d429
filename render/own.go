package render

import (
	"fmt"
	"strings"
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
	// Chat), recording in pl where each call and result sit and the
	// places the store does not hold as the agent sent them (Placer.Gap).
	Conversation func(s *model.Session, upto int, pl *Placer) (Value, error)
	// ItemPerLogged, when set, says that Conversation lowers a logged
	// request a message an item: item i comes of logged message i alone,
	// the same whatever messages follow it but for the last (Claude
	// Code's), so that the request's first messages lower the first items
	// of the whole (ConversationHead).
	ItemPerLogged bool
	// TailFrom, when set, is a message from which the conversation's end
	// can be lowered alone, near the n messages before upto: Conversation
	// of the session from it on (and every projection of that) is the
	// whole's last items; 0 when there is none (ConversationsTail).
	TailFrom func(s *model.Session, upto, n int) int
	// HeadTo, when set, is an earlier step's message whose request the
	// request at upto starts with, about n items of it, save its last
	// item (which may be joined with what follows); 0 when there is none
	// (ConversationHead).
	HeadTo func(s *model.Session, upto, n int) int
	// ResentResults, when set, are the results the request at upto sent
	// in another form than the call's stored result (Gemini CLI's masked
	// outputs), by call id on the wire: each copy's output or error text
	// in request order.
	ResentResults func(s *model.Session, upto int) map[string][]string
}

// Gap is a place in an agent's own request that its store does not hold
// byte for byte: correx renders the stored form there, and Why says what
// the agent sent instead. Path is the keys and list indexes inside
// conversation item Item ("content", or "tool_calls", "0", "function",
// "arguments"). A model turn sent with the thoughtSignatures the model
// streamed, which Gemini CLI does not store, is a gap at its "parts" for
// StreamedSignaturesWhy.
type Gap struct {
	Item   int      `json:"item"`
	Path   []string `json:"path"`
	CallID string   `json:"call_id,omitempty"`
	Why    string   `json:"why"`
}

// OwnWireGaps are the gaps of step's request (1-based, 0: the last) on
// p, the agent's own wire; nil when it has none or p is a projection.
// It renders the conversation: a caller that has (Rendered.Gaps) uses
// those.
func OwnWireGaps(s *model.Session, p Provider, step int) []Gap {
	w, ok := ownWireOf(s.Info.Agent)
	if _, found := stepOf(s, step); !ok || p != w.Provider || !found {
		return nil
	}
	r, err := Render(s, p, step, Model{})
	if err != nil {
		return nil
	}
	return r.Gaps
}

// WireNote is what correx says of step's request on p beside its JSON:
// the thoughtSignatures Gemini CLI does not store, the places an agent's
// store does not hold as sent (gaps, the Rendered.Gaps of that request);
// "" when the request is rebuilt whole.
func WireNote(s *model.Session, p Provider, step int, gaps []Gap) string {
	notes := []string{}
	if n := GeminiStreamedSignaturesNote(streamedTurns(gaps)); n != "" {
		notes = append(notes, n)
	}
	count := map[string]int{}
	var whys []string
	for _, g := range gaps {
		if g.Why == StreamedSignaturesWhy {
			continue
		}
		if count[g.Why] == 0 {
			whys = append(whys, g.Why)
		}
		count[g.Why]++
	}
	for _, why := range whys {
		notes = append(notes, fmt.Sprintf("%d %s not stored as sent: %s", count[why], plural(count[why], "place is", "places are"), why))
	}
	return strings.Join(notes, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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

// stepOf is the index of step's assistant message (0: the last step),
// false when s has no such step.
func stepOf(s *model.Session, step int) (int, bool) {
	steps := s.AssistantSteps()
	if step < 0 || step > len(steps) || len(steps) == 0 {
		return 0, false
	}
	if step == 0 {
		step = len(steps)
	}
	return steps[step-1], true
}

// GeminiStreamedSignatures is the number of model turns that the request
// of a session's step (0: the last) sent on the agent's own wire with the
// thoughtSignatures the model had streamed in that run (OwnWire's
// StreamedSignatures: Gemini CLI keeps those in memory only, so correx's
// rendering of these turns lacks them). It is 0 for other agents and
// providers.
func GeminiStreamedSignatures(s *model.Session, p Provider, step int) int {
	return streamedTurns(OwnWireGaps(s, p, step))
}

// StreamedSignaturesWhy is the Why of a model turn's gap for the
// thoughtSignatures the model streamed (Gap).
const StreamedSignaturesWhy = "the model turn went with the thoughtSignatures the model streamed, which Gemini CLI does not store"

// streamedTurns counts the gaps for streamed thoughtSignatures.
func streamedTurns(gaps []Gap) int {
	n := 0
	for _, g := range gaps {
		if g.Why == StreamedSignaturesWhy {
			n++
		}
	}
	return n
}

// GeminiStreamedSignaturesNote says what GeminiStreamedSignatures counts,
// or "" for none.
func GeminiStreamedSignaturesNote(n int) string {
	if n == 0 {
		return ""
	}
	turns := "model turns"
	if n == 1 {
		turns = "model turn"
	}
	return fmt.Sprintf("%d %s of this run went with the thoughtSignatures the model streamed; Gemini CLI does not store them, so they are left out here", n, turns)
}

// GeminiResentResults are the results a session's step (0: the last)
// sent in another form than the call's stored result, by call id on the
// wire (OwnWire's ResentResults: a resumed Gemini CLI run's setHistory
// re-sent big tool outputs masked). Nil for other agents.
func GeminiResentResults(s *model.Session, step int) map[string][]string {
	w, ok := ownWireOf(s.Info.Agent)
	upto, found := stepOf(s, step)
	if !ok || w.ResentResults == nil || !found {
		return nil
	}
	return w.ResentResults(s, upto)
}
