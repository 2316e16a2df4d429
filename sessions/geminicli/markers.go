package geminicli

// Gemini CLI's truncation markers (0.61.0), as the model sees them. They
// name no tool.

import (
	"strings"

	"correx/formatters"
	"correx/model"
)

var (
	markTooLarge = formatters.NewMarker(`^Output too large\. Showing first [\d,.\s]+ and last [\d,.\s]+ characters\. For full output see: ([^\n]+)\n`, "Output too large. Showing first ")
	markOmitted  = formatters.NewMarker(`\n\n\.\.\. \[[\d,.\s]+ characters omitted\] \.\.\.\n\n`, " characters omitted] ...")
	markNormal   = formatters.NewMarker(`^\[Message Normalized: Tool output exceeded size limit\]\n`, "[Message Normalized: Tool output exceeded size limit]")
	markSavedTo  = formatters.NewMarker(`\n\nFull output saved to: ([^\n]+)`, "\n\nFull output saved to: ")
	// read_file: the header is written whenever lines were left out or one
	// was cut to 2,000 characters (its total counts the empty piece after
	// a final newline: "of 3001 total lines" for 3,000 lines)
	markReadHeader = formatters.NewMarker(`^\nIMPORTANT: The file content has been truncated\.\nStatus: Showing lines \d+-\d+ of \d+ total lines\.\nAction: [^\n]*\n\n--- FILE CONTENT \(truncated\) ---\n`, "IMPORTANT: The file content has been truncated.")
)

const (
	lineCut = "... [truncated]"
	// distilledCut joins the head and tail a distillation keeps
	distilledCut = "\n...\n"
)

func init() {
	formatters.RegisterMarkers(formatters.AgentMarkers{
		Agent:  model.AgentGeminiCLI,
		Detect: detectMarkers,
		Kinds: map[model.TruncationKind]formatters.KindShape{
			model.TruncGeminiSpill:     {Head: true, Tail: true, CharCut: true, Legend: "Gemini CLI kept a head and a tail; full output in tool-outputs/"},
			model.TruncGeminiDistilled: {Head: true, Tail: true, CharCut: true, Legend: "Gemini CLI normalized an output over its size limit"},
			model.TruncGeminiRead: {Legend: "Gemini CLI read_file cut lines or the file",
				UnknownWhy: "read_file counts only the pieces between newlines (a final newline adds an empty one), not the file's size"},
		},
	})
}

// detectMarkers finds Gemini CLI's cuts: a spill's head and tail, a
// distilled output, read_file's header and cut lines.
func detectMarkers(_, text string) *model.Truncation {
	if m := markTooLarge.FindStringSubmatchIndex(text); m != nil {
		t := &model.Truncation{Kind: model.TruncGeminiSpill, Markers: []model.Span{{Start: m[0], End: m[1]}}, SpillPath: text[m[2]:m[3]]}
		if o := markOmitted.FindStringIndex(text[m[1]:]); o != nil {
			t.Markers = append(t.Markers, model.Span{Start: m[1] + o[0], End: m[1] + o[1]})
		}
		return t
	}
	if m := markNormal.FindStringIndex(text); m != nil {
		t := &model.Truncation{Kind: model.TruncGeminiDistilled, Markers: []model.Span{{Start: m[0], End: m[1]}}}
		if sv := markSavedTo.FindStringSubmatchIndex(text); sv != nil {
			t.SpillPath = text[sv[2]:sv[3]]
			end := sv[1]
			if strings.HasPrefix(text[end:], formatters.GeminiStrategic) {
				end += len(formatters.GeminiStrategic)
			}
			t.Markers = append(t.Markers, model.Span{Start: sv[0], End: end})
			// the "..." between the head and the tail it kept
			if mid := strings.Index(text[m[1]:sv[0]], distilledCut); mid >= 0 {
				t.Markers = append(t.Markers, model.Span{Start: m[1] + mid, End: m[1] + mid + len(distilledCut)})
			}
		}
		return t
	}
	if m := markReadHeader.FindStringIndex(text); m != nil {
		t := &model.Truncation{Kind: model.TruncGeminiRead, Markers: []model.Span{{Start: m[0], End: m[1]}}}
		for off := m[1]; ; {
			i := strings.Index(text[off:], lineCut)
			if i < 0 {
				break
			}
			t.Markers = append(t.Markers, model.Span{Start: off + i, End: off + i + len(lineCut)})
			off += i + len(lineCut)
		}
		return t
	}
	return nil
}
