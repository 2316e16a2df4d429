package formatters

import (
	"strings"

	"correx/model"
)

// LiteralScan tells whether a text, written to it a piece at a time, can
// hold a truncation marker of an agent's rules for a tool: each rule's
// every match contains one of its literals, so a text that contains none
// has no truncation for Visible to find. A model-visible text of many MB
// is then shown from a file without being held to look for markers.
type LiteralScan struct {
	lits  []string
	carry string // the end of what was written, shorter than the longest literal
	keep  int
	found bool
}

// NewLiteralScan is a scan for agent's rules on the results of tool; ok is
// false when a rule of agent's has no known literal (a driver's Detect),
// and a scan could not tell.
func NewLiteralScan(agent model.Agent, tool string) (_ *LiteralScan, ok bool) {
	lits, ok := markerLiterals(agent, tool)
	if !ok {
		return nil, false
	}
	s := &LiteralScan{lits: lits}
	for _, l := range lits {
		s.keep = max(s.keep, len(l)-1)
	}
	return s, true
}

// markerLiterals are the literals of the rules detect runs for agent on
// the results of tool: opencode's built-in rules (and those of its
// forks), and none of a driver's.
func markerLiterals(agent model.Agent, tool string) ([]string, bool) {
	if !agent.UsesOpencode() {
		return nil, false
	}
	agentMarkers.RLock()
	for _, m := range agentMarkers.list {
		if agent == "" || m.Agent == "" || m.Agent == agent { // "": every agent's
			agentMarkers.RUnlock()
			return nil, false
		}
	}
	agentMarkers.RUnlock()
	lits := []string{genericHead.lit, v2Bound.lit, v2ReadPageHead}
	switch tool {
	case "bash":
		lits = append(lits, bashTailPrefix)
	case "read":
		lits = append(lits, readEntries.lit, readLongLine, readLegacyContent, readShowing.lit, readCapped.lit, readLegacyMore.lit)
	case "glob":
		lits = append(lits, globCap)
	case "grep":
		lits = append(lits, grepCapHead.lit)
	}
	return lits, true
}

// WriteString looks for the literals in p and where it meets what came
// before.
func (s *LiteralScan) WriteString(p string) (int, error) {
	if s.found {
		return len(p), nil
	}
	joined := s.carry + p[:min(len(p), s.keep)]
	for _, l := range s.lits {
		if strings.Contains(joined, l) || strings.Contains(p, l) {
			s.found = true
			return len(p), nil
		}
	}
	if len(p) >= s.keep {
		s.carry = strings.Clone(p[len(p)-s.keep:])
	} else {
		s.carry = strings.Clone(joined[max(0, len(joined)-s.keep):])
	}
	return len(p), nil
}

// Found tells whether a literal was in what was written: a marker may be.
func (s *LiteralScan) Found() bool { return s.found }
