package codex

// Codex's truncation markers (0.171.0, and the older ones its source
// still has), as the model sees them. They name no tool.

import (
	"sort"

	"correx/formatters"
	"correx/model"
)

var (
	markTokens  = formatters.NewMarker(`…(\d+) tokens truncated…`, " tokens truncated…")
	markChars   = formatters.NewMarker(`…(\d+) chars truncated…`, " chars truncated…")
	markWarning = formatters.NewMarker(`(?m)^Warning: truncated output \(original token count: \d+\)\n`, "Warning: truncated output (original token count: ")
	markTotal   = formatters.NewMarker(`(?m)^Total output lines: \d+\n(?:\n)?`, "Total output lines: ")
	markBuffer  = formatters.NewMarker(`(?m)^\.\.\. \d+ bytes omitted \.\.\.\n\n`, " bytes omitted ...")
	markLines   = formatters.NewMarker(`\n\[\.\.\. omitted \d+ of \d+ lines \.\.\.\]\n\n`, "[... omitted ")
	markBytes   = formatters.NewMarker(`\n\[\.\.\. output truncated to fit \d+ bytes \.\.\.\]\n\n`, "[... output truncated to fit ")
	markItems   = formatters.NewMarker(`\[omitted \d+ (?:text|audio|image) items \.\.\.\]`, "[omitted ")
)

const noCopy = "Codex keeps no copy of the full output"

func init() {
	formatters.RegisterMarkers(formatters.AgentMarkers{
		Agent:  model.AgentCodex,
		Detect: detectMarkers,
		Kinds: map[model.TruncationKind]formatters.KindShape{
			model.TruncCodexTokens: {Head: true, Tail: true, CharCut: true, Legend: "Codex cut the middle to its token budget", UnknownWhy: noCopy},
			model.TruncCodexChars:  {Head: true, Tail: true, CharCut: true, Legend: "Codex cut the middle to its character budget", UnknownWhy: noCopy},
			model.TruncCodexBuffer: {Legend: "Codex's 1 MiB exec buffer dropped the middle", UnknownWhy: noCopy},
			model.TruncCodexLines:  {Head: true, Tail: true, Legend: "Codex (older) kept some lines", UnknownWhy: noCopy},
			model.TruncCodexBytes:  {Head: true, Tail: true, CharCut: true, Legend: "Codex (older) cut to a byte budget", UnknownWhy: noCopy},
			model.TruncCodexItems:  {Legend: "Codex dropped text items", UnknownWhy: noCopy},
		},
	})
}

// detectMarkers finds Codex's cuts, with the headers of a truncated body.
func detectMarkers(_, text string) *model.Truncation {
	var t *model.Truncation
	for _, rule := range []struct {
		re   formatters.Marker
		kind model.TruncationKind
	}{
		{markTokens, model.TruncCodexTokens}, {markChars, model.TruncCodexChars},
		{markLines, model.TruncCodexLines}, {markBytes, model.TruncCodexBytes},
		{markBuffer, model.TruncCodexBuffer}, {markItems, model.TruncCodexItems},
	} {
		for _, m := range rule.re.FindAllStringIndex(text, -1) {
			if t == nil {
				t = &model.Truncation{Kind: rule.kind}
			}
			t.Markers = append(t.Markers, model.Span{Start: m[0], End: m[1]})
		}
	}
	if t == nil {
		return nil
	}
	// the headers of a truncated body are markers too
	for _, re := range []formatters.Marker{markWarning, markTotal} {
		if m := re.FindStringIndex(text); m != nil {
			t.Markers = append(t.Markers, model.Span{Start: m[0], End: m[1]})
		}
	}
	sort.Slice(t.Markers, func(i, j int) bool { return t.Markers[i].Start < t.Markers[j].Start })
	return t
}
