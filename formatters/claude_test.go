package formatters

import (
	"strings"
	"testing"

	"correx/model"
)

func TestSentWhy(t *testing.T) {
	c := &model.ToolCall{Status: model.StatusCompleted, Output: "1\tx\n2\t",
		Sent: &model.ToolResultValue{Type: model.ResultText, Text: "1\tx\n2\n\n<system-reminder>\nr\n</system-reminder>"}}
	if v := Visible(c, nil); !strings.Contains(v.Why, "system reminders") || v.Text != c.Sent.Text {
		t.Errorf("%+v", v)
	}
	c.Sent.Text = c.Output
	if v := Visible(c, nil); v.Why != "" {
		t.Errorf("why %q", v.Why)
	}
}

// A Read over Claude Code's token cap: the notice as the bundled JS words
// it (2.1.332), sent beside the result or appended to it.
func TestClaudePartialRead(t *testing.T) {
	stored := "1\tline one\n2\tline two\n3\tline three"
	lines := "[Truncated: PARTIAL view — /home/user/proj/w.txt: showing lines 1-3 of 5 total (300 tokens, cap 250). Call Read with offset=4 limit=3 for the next page, or Grep to find a specific section. Do NOT answer from this page alone if the answer may be further in the file.]"
	chars := "[Truncated: PARTIAL view — /home/user/proj/w.txt: showing the first 40 of 900 characters (300 tokens, cap 250); this file has very long lines and cannot be paginated by line. Use Grep to find a specific section, or Read with offset/limit to page through it. Do NOT answer from this excerpt alone if the answer may be elsewhere in the file.]"
	appended := stored + "\n\n<system-reminder>\n" + lines + "\n</system-reminder>"
	for _, c := range []struct {
		name, sent, notice string
		markers, added     int
		partialLast        bool
	}{
		{"beside the result", stored, lines, 0, 0, false},
		{"appended to the result", appended, lines, 1, 2, false},
		{"cut inside a line", stored, chars, 0, 0, true},
	} {
		call := &model.ToolCall{Tool: "Read", Status: model.StatusCompleted, Output: stored,
			Metadata: []byte(`{"type":"text","file":{"filePath":"/home/user/proj/w.txt","content":"…","numLines":3,"startLine":1,"totalLines":5,"truncatedByTokenCap":true}}`),
			Sent:     &model.ToolResultValue{Type: model.ResultText, Text: c.sent},
			Notice:   &model.Notice{Text: c.notice, Where: "a \"system\" message of its own right after the result's user message"}}
		v := Visible(call, nil)
		tr := v.Truncation
		if v.Text != c.sent || tr == nil || tr.Kind != model.TruncClaudePartial || len(tr.Markers) != c.markers || len(tr.Added) != c.added || (c.markers == 0) != (tr.Notice != nil) {
			t.Errorf("%s: %q %+v", c.name, v.Text, tr)
			continue
		}
		if c.markers == 1 && v.Text[tr.Markers[0].Start:tr.Markers[0].End] != lines {
			t.Errorf("%s: marker %+v", c.name, tr.Markers)
		}
		if len(tr.Seen) != 1 || v.Text[tr.Seen[0].Text.Start:tr.Seen[0].Text.End] != stored || *tr.Seen[0].Lines != (model.LineRange{First: 1, Last: 3}) ||
			tr.SeenLines != 3 || *tr.FullLines != 5 || tr.Seen[0].PartialLast != c.partialLast || tr.AgentFlagged == nil || !*tr.AgentFlagged {
			t.Errorf("%s: seen %+v, %d of %v lines", c.name, tr.Seen, tr.SeenLines, tr.FullLines)
		}
	}
	// the same result without the record is no truncation
	plain := &model.ToolCall{Tool: "Read", Status: model.StatusCompleted, Output: stored, Sent: &model.ToolResultValue{Type: model.ResultText, Text: stored}}
	if v := Visible(plain, nil); v.Truncation != nil {
		t.Errorf("no record: %+v", v.Truncation)
	}
}
