package formatters

import (
	"maps"
	"regexp"
	"slices"
	"sync"

	"correx/model"
)

// AgentMarkers are an agent's truncation rules, registered by its driver
// package: Detect finds its markers in a tool's model-visible text (nil
// when there are none; it may name text the agent added around the output
// in Added), and Kinds says, for each kind it reports, what
// the cut keeps and why the full size may be unknown. Everything after
// the markers (seen ranges, added pieces, sizes, spill placement) is the
// shared machinery of pieces.go.
type AgentMarkers struct {
	// Agent is the agent whose results the rules are for ("": every
	// agent's, looked for in the results of any).
	Agent  model.Agent
	Detect func(tool, text string) *model.Truncation
	Kinds  map[model.TruncationKind]KindShape
	// Record, when set, fills in what the agent's own record of call says
	// of a truncation Detect found in it (its full size in bytes, that it
	// flagged the cut), before the shared machinery completes it. When it
	// sets t.Seen it has carved the pieces itself (Cline, which stores the
	// result whole and cuts it when it sends it): only the sizes are then
	// computed from its seen ranges.
	Record func(call *model.ToolCall, t *model.Truncation)
	// Flagged, when set, is what the agent's own record of call says
	// about cutting it (nil: this agent's record says nothing); AgentFlagged
	// asks it, so the list, the picker and the truncation agree.
	Flagged func(call *model.ToolCall) *bool
}

// KindShape is what a kind of cut keeps: the output's start (Head), its
// end (Tail), cut inside lines (CharCut) or between them; Legend is its
// line in the help, UnknownWhy why its full size may be unknown ("" for
// "no spill file was recorded"), GoneWhy why its spill file is gone when
// it is (model.Truncation.SpillGoneWhy).
type KindShape struct {
	Head, Tail, CharCut         bool
	Legend, UnknownWhy, GoneWhy string
	// Lead is a line the agent writes before the output's kept start, an
	// added piece named LeadWhat (Claude Code's "Exit code N").
	Lead     *regexp.Regexp
	LeadWhat string
	// Note, when set, names the text beside the markers: the agent's own,
	// none of the output (Claude Code's reading instructions).
	Note string
	// Bound says what the cut did, for the pipeline's bounded stage (""
	// for "middle cut, marker added").
	Bound string
	// WhenSent says the agent cut when it built the request, after it
	// stored the result whole (Cline), not before storing it.
	WhenSent bool
	// Footer, when set, matches what the agent adds at the end of the
	// text after the output (FooterWhat names it in the added pieces).
	Footer     *regexp.Regexp
	FooterWhat string
}

var agentMarkers struct {
	sync.RWMutex
	list []AgentMarkers
	why  map[model.TruncationKind]string
	what map[model.TruncationKind]string // KindShape.Bound
	gone map[model.TruncationKind]string
	sent map[model.TruncationKind]bool
}

// RegisterMarkers adds an agent's truncation rules; the built-in rules
// are tried first.
func RegisterMarkers(m AgentMarkers) {
	agentMarkers.Lock()
	defer agentMarkers.Unlock()
	agentMarkers.list = append(agentMarkers.list, m)
	if agentMarkers.why == nil {
		agentMarkers.why = map[model.TruncationKind]string{}
		agentMarkers.what = map[model.TruncationKind]string{}
		agentMarkers.gone = map[model.TruncationKind]string{}
		agentMarkers.sent = map[model.TruncationKind]bool{}
	}
	// in kind order: the help's legend lists them in registration order
	for _, k := range slices.Sorted(maps.Keys(m.Kinds)) {
		s := m.Kinds[k]
		agentMarkers.sent[k] = s.WhenSent
		shapes[k] = shape{head: s.Head, tail: s.Tail, charCut: s.CharCut, lead: s.Lead, leadWhat: s.LeadWhat, note: s.Note, footer: s.Footer, footerWhat: s.FooterWhat}
		if s.UnknownWhy != "" {
			agentMarkers.why[k] = s.UnknownWhy
		}
		if s.Bound != "" {
			agentMarkers.what[k] = s.Bound
		}
		if s.GoneWhy != "" {
			agentMarkers.gone[k] = s.GoneWhy
		}
		model.RegisterTruncationKind(k, s.Legend)
	}
}

// detectRegistered runs the registered rules for agent ("": all) on text.
func detectRegistered(agent model.Agent, tool, text string) *model.Truncation {
	agentMarkers.RLock()
	defer agentMarkers.RUnlock()
	for _, m := range agentMarkers.list {
		if agent != "" && m.Agent != "" && m.Agent != agent {
			continue
		}
		if t := m.Detect(tool, text); t != nil {
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

// KindBound is what a driver's kind of cut did (KindShape.Bound), "" when
// its driver does not say.
func KindBound(k model.TruncationKind) string {
	agentMarkers.RLock()
	defer agentMarkers.RUnlock()
	return agentMarkers.what[k]
}

// flaggedRegistered is the first registered Flagged answer for call.
func flaggedRegistered(call *model.ToolCall) *bool {
	agentMarkers.RLock()
	defer agentMarkers.RUnlock()
	for _, m := range agentMarkers.list {
		if m.Flagged != nil {
			if f := m.Flagged(call); f != nil {
				return f
			}
		}
	}
	return nil
}

// fromRecord runs the registered Record of t's agent on call.
func fromRecord(call *model.ToolCall, t *model.Truncation) {
	agentMarkers.RLock()
	defer agentMarkers.RUnlock()
	for _, m := range agentMarkers.list {
		if _, ours := m.Kinds[t.Kind]; ours && m.Record != nil {
			m.Record(call, t)
		}
	}
}

func registeredGone(k model.TruncationKind) string {
	agentMarkers.RLock()
	defer agentMarkers.RUnlock()
	return agentMarkers.gone[k]
}

// CutWhenSent says whether kind k is cut when the request is built, after
// the agent stored the result whole.
func CutWhenSent(k model.TruncationKind) bool {
	agentMarkers.RLock()
	defer agentMarkers.RUnlock()
	return agentMarkers.sent[k]
}
