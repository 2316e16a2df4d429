package claudecode

import (
	"regexp"
	"strconv"
	"strings"

	"correx/formatters"
	"correx/model"
)

// Markers of Claude Code (2.1.332, and older where noted), as the model sees
// them. They are tool-independent: any tool's result can be persisted.
// (Its Read over the token cap has no marker in the text: formatters reads
// it from the call's record, claude-partial.)
var (
	// <persisted-output>\nOutput too large (1.2MB). Full output saved to: PATH\n\nPreview (first 2KB):\n
	persistedHead = formatters.NewMarker(`^<persisted-output>\nOutput too large \([^)\n]*\)\. Full output saved to: ([^\n]+)\n\nPreview \(first [^)\n]*\):\n`, "<persisted-output>")
	// the closing tag, with the "..." line of a partial preview
	persistedTail = formatters.NewMarker(`(?:\n\.\.\.)?\n</persisted-output>`, "</persisted-output>")
	middleCut     = formatters.NewMarker(`\n\n\.\.\. \[\d+ characters truncated\] \.\.\.\n\n`, " characters truncated] ...")
	linesCut      = formatters.NewMarker(`\n\n\.\.\. \[\d+ lines truncated\] \.\.\.`, " lines truncated] ...")
	saved         = formatters.NewMarker(`(?m)^Error: result \([\d,]+ characters[^)\n]*\) exceeds maximum allowed tokens\. Output has been saved to (\S+?)\.?\n`, "exceeds maximum allowed tokens. Output has been saved to ")
	refused       = formatters.NewMarker(`^File content \([\d,]+ tokens\) exceeds maximum allowed tokens \([\d,]+\)\.[^\n]*`, "File content (")
	// Glob's note after the files it lists, in its three forms (total
	// unknown, exact, a floor); group 1 is the exact total
	globCap = formatters.NewMarker(`(?m)\n\((?:Results are truncated\. Consider using a more specific path or pattern\.|Showing \d+ of (\d+) matching files; \d+ more are not listed\. Narrow the pattern or path to see the rest\.|Showing the first \d+ files; there are more than \d+ matches\. Narrow the pattern or path to see the rest\.)\)$`, " pattern")
	// the first line of a failed Bash's output
	exitCode = regexp.MustCompile(`^Exit code -?\d+\n`)
)

func init() {
	formatters.RegisterMarkers(formatters.AgentMarkers{Agent: model.AgentClaudeCode, Detect: detect, Kinds: map[model.TruncationKind]formatters.KindShape{
		model.TruncClaudePersisted: {Head: true, Bound: "replaced by a 2 KB preview, full output persisted", // the preview is cut back to a newline
			Legend: "Claude Code sent a 2 KB preview; full output in tool-results/"},
		model.TruncClaudeMiddle: {Head: true, Tail: true, CharCut: true, Lead: exitCode, LeadWhat: "Claude Code's exit code line",
			Legend: "Claude Code cut the middle of a failed Bash output", UnknownWhy: "Claude Code keeps no copy of a cut output"},
		model.TruncClaudeLines: {Head: true, Legend: "Claude Code cut lines of a Bash output", UnknownWhy: "Claude Code keeps no copy of a cut output"},
		model.TruncClaudeSaved: {Note: "Claude Code's reading instructions", Bound: "refused as too large, note added", Legend: "Claude Code saved an output over its token limit to a file"},
		model.TruncClaudeRefused: {Note: "Claude Code's reading instructions", Bound: "refused as too large, note added", Legend: "Claude Code refused a Read over its token limit",
			UnknownWhy: "Claude Code refused to read the file and kept nothing"},
		model.TruncClaudeGlob: {Head: true, Legend: "Claude Code's Glob listed the first 100 files"},
	}})
}

// detect finds Claude Code's truncation markers.
func detect(tool, text string) *model.Truncation {
	if m := persistedHead.FindStringSubmatchIndex(text); m != nil {
		t := &model.Truncation{Kind: model.TruncClaudePersisted, Markers: []model.Span{{Start: m[0], End: m[1]}}, SpillPath: text[m[2]:m[3]]}
		if e := persistedTail.FindStringIndex(text[m[1]:]); e != nil {
			t.Markers = append(t.Markers, model.Span{Start: m[1] + e[0], End: m[1] + e[1]})
		}
		return t
	}
	if m := saved.FindStringSubmatchIndex(text); m != nil {
		return &model.Truncation{Kind: model.TruncClaudeSaved, Markers: []model.Span{{Start: m[0], End: m[1]}}, SpillPath: text[m[2]:m[3]]}
	}
	if m := refused.FindStringIndex(text); m != nil {
		return &model.Truncation{Kind: model.TruncClaudeRefused, Markers: []model.Span{{Start: m[0], End: m[1]}}}
	}
	if strings.Contains(text, " truncated] ...") {
		if m := middleCut.FindStringIndex(text); m != nil {
			return &model.Truncation{Kind: model.TruncClaudeMiddle, Markers: []model.Span{{Start: m[0], End: m[1]}}}
		}
		if m := linesCut.FindStringIndex(text); m != nil && tool == "Bash" { // its Bash cap (≤ 2.1.1); Crush's bash cut reads alike
			return &model.Truncation{Kind: model.TruncClaudeLines, Markers: []model.Span{{Start: m[0], End: m[1]}}}
		}
	}
	if tool == "Glob" {
		return detectGlob(text)
	}
	return nil
}

// detectGlob finds the note Claude Code's Glob puts after the first 100
// files it lists, and the total it gives (one file a line).
func detectGlob(text string) *model.Truncation {
	m := globCap.FindStringSubmatchIndex(text)
	if m == nil {
		return nil
	}
	t := &model.Truncation{Kind: model.TruncClaudeGlob, Markers: []model.Span{{Start: m[0], End: m[1]}},
		FullUnknown: "Claude Code's Glob stopped without counting every match"}
	if m[2] >= 0 {
		if n, err := strconv.Atoi(text[m[2]:m[3]]); err == nil {
			t.FullLines, t.FullUnknown = &n, "Claude Code's Glob counts files, not bytes"
		}
	}
	return t
}
