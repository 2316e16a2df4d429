package formatters

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"correx/model"
)

// sentWhy explains a result sent otherwise than the agent stored it (the
// stored text is in Output or Error): Claude Code appends the system
// reminders that follow tool results to the message's last result.
func sentWhy(call *model.ToolCall) string {
	stored := call.Output
	if call.Status == model.StatusError {
		stored = call.Error
	}
	if stored == "" && call.Output == "" && call.Error == "" {
		return ""
	}
	if sent := ResultText(*call.Sent); sent != stored {
		if appendedAt(call, sent) >= 0 {
			return "as sent: the agent appended system reminders to the stored result"
		}
		return "as sent: differs from the stored result"
	}
	return ""
}

// appendedAt is where the system reminders Claude Code appended to a
// result as sent start in text, or -1 when it appended none.
func appendedAt(call *model.ToolCall, text string) int {
	if call.Sent == nil {
		return -1
	}
	stored := call.Output
	if call.Status == model.StatusError {
		stored = call.Error
	}
	kept := strings.TrimRight(stored, " \t\r\n")
	if text == stored || !strings.HasPrefix(text, kept) || !strings.Contains(text[len(kept):], "<system-reminder>") {
		return -1
	}
	return len(kept)
}

// Claude Code 2.1.x's Read over its token cap (25,000 by default): read
// from the start without a limit, it keeps the first lines that fit (or,
// for very long lines, the first characters), records toolUseResult.file
// {truncatedByTokenCap: true, startLine, numLines, totalLines}, and tells
// the model in a read_truncation_notice attachment after the result
// ("[Truncated: PARTIAL view — PATH: showing lines 1-N of M total …]", or
// "showing the first X of Y characters" for a cut inside a line), which it
// sends as a message of its own or appends to the result like any other
// reminder, by model. The result itself has no marker.
var (
	claudeNumber   = regexp.MustCompile(`^(\d+)[\t:]`) // cat -n style: number, then a tab (":" when the content has tabs)
	claudeCharsCut = regexp.MustCompile(`: showing the first \d+ of \d+ characters \(`)
)

// claudePartialFile is toolUseResult.file of a partial Read.
type claudePartialFile struct {
	TruncatedByTokenCap bool `json:"truncatedByTokenCap"`
	StartLine           int  `json:"startLine"`
	NumLines            int  `json:"numLines"`
	TotalLines          int  `json:"totalLines"`
}

// claudePartialRecord is the call's record of a partial Read, if it is one.
func claudePartialRecord(call *model.ToolCall) (claudePartialFile, bool) {
	var rec struct {
		File *claudePartialFile `json:"file"`
	}
	if call.Sent == nil || !bytes.Contains(call.Metadata, []byte(`"truncatedByTokenCap"`)) || json.Unmarshal(call.Metadata, &rec) != nil || rec.File == nil || !rec.File.TruncatedByTokenCap {
		return claudePartialFile{}, false
	}
	return *rec.File, true
}

// claudePartial is the truncation of a partial Read: its notice is a
// marker where the agent put it into the result as sent, else the
// truncation's Notice.
func claudePartial(call *model.ToolCall, text string) *model.Truncation {
	rec, ok := claudePartialRecord(call)
	if !ok {
		return nil
	}
	t := &model.Truncation{Kind: model.TruncClaudePartial, Markers: []model.Span{}, FullLines: &rec.TotalLines,
		FullUnknown: "Claude Code's Read records the file's lines, not its size"}
	switch n := call.Notice; {
	case n == nil:
		t.Notice = &model.Notice{Where: "no read_truncation_notice was recorded for this call (Claude Code 2.1.332 then writes a notice of its own as it builds the request)"}
	case n.Text != "" && strings.Contains(text, n.Text):
		i := strings.Index(text, n.Text)
		t.Markers = []model.Span{{Start: i, End: i + len(n.Text)}}
	default:
		cp := *n
		t.Notice = &cp
	}
	return t
}

// claudeCutInLine says the partial Read's notice reports a cut inside a
// line (its last line is partial).
func claudeCutInLine(t *model.Truncation, text string) bool {
	note := ""
	switch {
	case t.Notice != nil:
		note = t.Notice.Text
	case len(t.Markers) > 0:
		note = text[t.Markers[0].Start:t.Markers[0].End]
	}
	return claudeCharsCut.MatchString(note)
}
