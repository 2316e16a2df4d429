package formatters

import (
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
func detectClaude(text string) *model.Truncation {
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
	if m := claudeLines.FindStringIndex(text); m != nil {
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
