package copilot

// Copilot's big-output rules (1.0.102, observed): a large shell output is
// saved to $TMPDIR/<epoch ms>-copilot-tool-output-<pid>-<uuid>.txt
// (telemetry largeOutputHandled) and the model gets, and events.jsonl
// stores:
//
//	Output too large to read at once (20.4 KB). Saved to: <path>
//	Consider using tools like grep (…) to examine portions of the output.
//
//	Preview (first 500 chars):
//	<the first 500 characters cut back to their last newline, without it>
//
//	<shellId: N completed with exit code C>
//
// Besides, a whole result of 20,480 bytes or more (large_output_threshold_bytes),
// the shell's status line included, is saved as a whole to
// …-copilot-tool-output-<spill id>.txt (largeOutputWrittenToFile): the same
// header, a preview of 500 characters, no status line after it.
//
// The size is in 1024-based units; toolTelemetry.properties
// largeOutputOriginalSizeBytes has the exact byte count. Copilot deletes
// the spill file when it exits.

import (
	"bytes"
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
		Agent:   Agent,
		Detect:  detectSpill,
		Record:  spillRecord,
		Flagged: spillFlagged,
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

// spillRecord takes the full size in bytes from the call's toolTelemetry.
func spillRecord(call *model.ToolCall, t *model.Truncation) {
	if tel, ok := telemetry(call); ok {
		if n, err := strconv.Atoi(tel.Properties.Size); err == nil && n >= 0 {
			t.FullBytes = &n
		}
	}
}

// spillFlagged is Copilot's own record that it spilled the call's output:
// largeOutputHandled (the shell's spill) or largeOutputWrittenToFile (the
// whole result's); nil when the telemetry names neither.
func spillFlagged(call *model.ToolCall) *bool {
	tel, ok := telemetry(call)
	if !ok {
		return nil
	}
	p := tel.Properties
	if p.Handled == "" && p.WrittenToFile == "" {
		return nil
	}
	flagged := p.Handled == "true" || p.WrittenToFile == "true"
	return &flagged
}

// callTelemetry is the part of toolTelemetry the spill rules read.
type callTelemetry struct {
	Properties struct {
		Handled       string `json:"largeOutputHandled"`
		WrittenToFile string `json:"largeOutputWrittenToFile"`
		Size          string `json:"largeOutputOriginalSizeBytes"`
	} `json:"properties"`
}

// telemetry parses a call's toolTelemetry when it says anything of a
// large output (other agents' metadata never does).
func telemetry(call *model.ToolCall) (callTelemetry, bool) {
	var tel callTelemetry
	if !bytes.Contains(call.Metadata, []byte(`"largeOutput`)) || json.Unmarshal(call.Metadata, &tel) != nil {
		return tel, false
	}
	return tel, true
}
