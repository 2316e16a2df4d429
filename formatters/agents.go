package formatters

import (
	"sync"

	"correx/model"
)

// AgentMarkers are an agent's truncation rules, registered by its driver
// package: Detect finds its markers in a tool's model-visible text (nil
// when there are none), and Kinds says, for each kind it reports, what
// the cut keeps and why the full size may be unknown. Everything after
// the markers (seen ranges, added pieces, sizes, spill placement) is the
// shared machinery of pieces.go.
//
// DetectCall, when set, is tried first with the whole call, for an agent
// whose store says more than the text: it may also fill in the full size
// and carve the seen ranges and added pieces itself (Cline stores each
// result uncut and cuts it when it sends it); sizes are then computed
// from its seen ranges.
type AgentMarkers struct {
	Detect     func(tool, text string) *model.Truncation
	DetectCall func(call *model.ToolCall, text string) *model.Truncation
	Kinds      map[model.TruncationKind]KindShape
}

// KindShape is what a kind of cut keeps: the output's start (Head), its
// end (Tail), cut inside lines (CharCut) or between them; Legend is its
// line in the help, UnknownWhy why its full size may be unknown ("" for
// "no spill file was recorded").
type KindShape struct {
	Head, Tail, CharCut bool
	Legend, UnknownWhy  string
	// WhenSent says the agent cut when it built the request, after it
	// stored the result whole (Cline), not before storing it.
	WhenSent bool
}

var agentMarkers struct {
	sync.RWMutex
	list     []AgentMarkers
	why      map[model.TruncationKind]string
	whenSent map[model.TruncationKind]bool
}

// RegisterMarkers adds an agent's truncation rules; the built-in rules
// are tried first.
func RegisterMarkers(m AgentMarkers) {
	agentMarkers.Lock()
	defer agentMarkers.Unlock()
	agentMarkers.list = append(agentMarkers.list, m)
	if agentMarkers.why == nil {
		agentMarkers.why = map[model.TruncationKind]string{}
		agentMarkers.whenSent = map[model.TruncationKind]bool{}
	}
	for k, s := range m.Kinds {
		agentMarkers.whenSent[k] = s.WhenSent
		shapes[k] = shape{head: s.Head, tail: s.Tail, charCut: s.CharCut}
		if s.UnknownWhy != "" {
			agentMarkers.why[k] = s.UnknownWhy
		}
		model.RegisterTruncationKind(k, s.Legend)
	}
}

// detectRegistered runs the registered rules on text.
func detectRegistered(tool, text string) *model.Truncation {
	agentMarkers.RLock()
	defer agentMarkers.RUnlock()
	for _, m := range agentMarkers.list {
		if m.Detect == nil {
			continue
		}
		if t := m.Detect(tool, text); t != nil {
			return t
		}
	}
	return nil
}

// detectCallRegistered runs the registered call-aware rules.
func detectCallRegistered(call *model.ToolCall, text string) *model.Truncation {
	agentMarkers.RLock()
	defer agentMarkers.RUnlock()
	for _, m := range agentMarkers.list {
		if m.DetectCall == nil {
			continue
		}
		if t := m.DetectCall(call, text); t != nil {
			return t
		}
	}
	return nil
}

func registeredWhy(k model.TruncationKind) string {
	agentMarkers.RLock()
	defer agentMarkers.RUnlock()
	return agentMarkers.why[k]
}

// CutWhenSent says whether kind k is cut when the request is built, after
// the agent stored the result whole.
func CutWhenSent(k model.TruncationKind) bool {
	agentMarkers.RLock()
	defer agentMarkers.RUnlock()
	return agentMarkers.whenSent[k]
}
