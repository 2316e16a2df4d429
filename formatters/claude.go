package formatters

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"correx/model"
)

// Markers of Claude Code (2.1.332, and older where noted), as the model sees
// them. They are tool-independent: any tool's result can be persisted.
var (
	// <persisted-output>\nOutput too large (1.2MB). Full output saved to: PATH\n\nPreview (first 2KB):\n
	claudePersistedHead = marker{regexp.MustCompile(`^<persisted-output>\nOutput too large \([^)\n]*\)\. Full output saved to: ([^\n]+)\n\nPreview \(first [^)\n]*\):\n`), "<persisted-output>"}
	// the closing tag, with the "..." line of a partial preview
	claudePersistedTail = marker{regexp.MustCompile(`(?:\n\.\.\.)?\n</persisted-output>`), "</persisted-output>"}
	claudeMiddle        = marker{regexp.MustCompile(`\n\n\.\.\. \[\d+ characters truncated\] \.\.\.\n\n`), " characters truncated] ..."}
	claudeLines         = marker{regexp.MustCompile(`\n\n\.\.\. \[\d+ lines truncated\] \.\.\.`), " lines truncated] ..."}
	claudeSaved         = marker{regexp.MustCompile(`(?m)^Error: result \([\d,]+ characters[^)\n]*\) exceeds maximum allowed tokens\. Output has been saved to (\S+?)\.?\n`), "exceeds maximum allowed tokens. Output has been saved to "}
	claudeRefused       = marker{regexp.MustCompile(`^File content \([\d,]+ tokens\) exceeds maximum allowed tokens \([\d,]+\)\.[^\n]*`), "File content ("}
	// Glob's note after the files it lists, in its three forms (total
	// unknown, exact, a floor); group 1 is the exact total
	claudeGlobCap = marker{regexp.MustCompile(`(?m)\n\((?:Results are truncated\. Consider using a more specific path or pattern\.|Showing \d+ of (\d+) matching files; \d+ more are not listed\. Narrow the pattern or path to see the rest\.|Showing the first \d+ files; there are more than \d+ matches\. Narrow the pattern or path to see the rest\.)\)$`), " pattern"}
)

// detectClaudeGlob finds the note Claude Code's Glob puts after the first
// 100 files it lists.
func detectClaudeGlob(text string) *model.Truncation {
	if m := claudeGlobCap.FindStringIndex(text); m != nil {
		return &model.Truncation{Kind: model.TruncClaudeGlob, Markers: []model.Span{{Start: m[0], End: m[1]}}}
	}
	return nil
}

// detectClaude finds Claude Code's truncation markers.
func detectClaude(tool, text string) *model.Truncation {
	if m := claudePersistedHead.FindStringSubmatchIndex(text); m != nil {
		t := &model.Truncation{Kind: model.TruncClaudePersisted, Markers: []model.Span{{Start: m[0], End: m[1]}}, SpillPath: text[m[2]:m[3]]}
		if e := claudePersistedTail.FindStringIndex(text[m[1]:]); e != nil {
			t.Markers = append(t.Markers, model.Span{Start: m[1] + e[0], End: m[1] + e[1]})
		}
		return t
	}
	if m := claudeSaved.FindStringSubmatchIndex(text); m != nil {
		return &model.Truncation{Kind: model.TruncClaudeSaved, Markers: []model.Span{{Start: m[0], End: m[1]}}, SpillPath: text[m[2]:m[3]]}
	}
	if m := claudeRefused.FindStringIndex(text); m != nil {
		return &model.Truncation{Kind: model.TruncClaudeRefused, Markers: []model.Span{{Start: m[0], End: m[1]}}}
	}
	if !strings.Contains(text, " truncated] ...") {
		return nil
	}
	if m := claudeMiddle.FindStringIndex(text); m != nil {
		return &model.Truncation{Kind: model.TruncClaudeMiddle, Markers: []model.Span{{Start: m[0], End: m[1]}}}
	}
	if m := claudeLines.FindStringIndex(text); m != nil && tool == "Bash" { // Bash's cap only
		return &model.Truncation{Kind: model.TruncClaudeLines, Markers: []model.Span{{Start: m[0], End: m[1]}}}
	}
	return nil
}

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
