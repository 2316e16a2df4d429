package copilot

// Copilot's big-output rule (1.0.102, observed): a tool output of 20,480
// bytes or more (toolTelemetry large_output_threshold_bytes; 20,440 was
// kept whole) is saved to $TMPDIR/<epoch ms>-copilot-tool-output-<pid>-<uuid>.txt
// and the model gets, and events.jsonl stores:
//
//	Output too large to read at once (20.4 KB). Saved to: <path>
//	Consider using tools like grep (…) to examine portions of the output.
//
//	Preview (first 500 chars):
//	<the first 500 characters cut back to their last newline, without it>
//
//	<shellId: N completed with exit code C>
//
// The size is in 1024-based units; toolTelemetry.properties
// largeOutputOriginalSizeBytes has the exact byte count. Copilot deletes
// the spill file when it exits.

import (
	"encoding/json"
	"regexp"
	"strconv"

	"correx/formatters"
	"correx/model"
)

// TruncSpill is the kind of Copilot's preview of a spilled output.
const TruncSpill model.TruncationKind = "copilot-spill"

var (
	spillHead   = regexp.MustCompile(`^Output too large to read at once \([^)\n]+\)\. Saved to: ([^\n]+)\n[^\n]*\n\nPreview \(first \d+ chars\):\n`)
	shellStatus = regexp.MustCompile(`\n\n?<shellId: [^>\n]+ completed with exit code -?\d+>$`)
)

func init() {
	formatters.RegisterMarkers(formatters.AgentMarkers{
		Detect: detectSpill,
		Record: spillRecord,
		Kinds: map[model.TruncationKind]formatters.KindShape{
			TruncSpill: {
				Head:       true,
				Legend:     "Copilot sent the first 500 characters; the full output was in $TMPDIR, deleted when Copilot exited",
				UnknownWhy: "Copilot records the full size in bytes only, and deletes the spill file when it exits",
				GoneWhy:    "deleted when Copilot exited",
			},
		},
	})
}

// detectSpill finds the preview's header (the marker) and the shell's
// status line after the preview (added by Copilot).
func detectSpill(_, text string) *model.Truncation {
	m := spillHead.FindStringSubmatchIndex(text)
	if m == nil {
		return nil
	}
	t := &model.Truncation{Kind: TruncSpill, Markers: []model.Span{{Start: m[0], End: m[1]}}, SpillPath: text[m[2]:m[3]]}
	if s := shellStatus.FindStringIndex(text[m[1]:]); s != nil {
		t.Added = []model.AddedPiece{{Span: model.Span{Start: m[1] + s[0], End: m[1] + s[1]}, What: "Copilot's shell status line"}}
	}
	return t
}

// spillRecord takes the full size and Copilot's own flag from the call's
// toolTelemetry.
func spillRecord(call *model.ToolCall, t *model.Truncation) {
	var tel struct {
		Properties struct {
			Handled string `json:"largeOutputHandled"`
			Size    string `json:"largeOutputOriginalSizeBytes"`
		} `json:"properties"`
	}
	if json.Unmarshal(call.Metadata, &tel) != nil {
		return
	}
	if n, err := strconv.Atoi(tel.Properties.Size); err == nil && n >= 0 {
		t.FullBytes = &n
	}
	if tel.Properties.Handled != "" {
		flagged := tel.Properties.Handled == "true"
		t.AgentFlagged = &flagged
	}
}
