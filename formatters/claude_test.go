package formatters

import (
	"strings"
	"testing"

	"correx/model"
)

func TestDetectClaude(t *testing.T) {
	preview := "1\n2\n3"
	persisted := "<persisted-output>\nOutput too large (1.2MB). Full output saved to: /home/user/.claude/projects/-home-user-proj/s/tool-results/b2h.txt\n\nPreview (first 2KB):\n" +
		preview + "\n...\n</persisted-output>\n\n<system-reminder>\nx\n</system-reminder>"
	middle := "Exit code 2\n" + strings.Repeat("a\n", 10) + "\n\n... [13904 characters truncated] ...\n\n" + strings.Repeat("b\n", 3)
	for _, c := range []struct {
		name, tool, text string
		kind             model.TruncationKind
		spill            string
		seen             string // the text without its markers
	}{
		{"persisted", "Bash", persisted, model.TruncClaudePersisted, "/home/user/.claude/projects/-home-user-proj/s/tool-results/b2h.txt", preview + "\n\n<system-reminder>\nx\n</system-reminder>"},
		{"persisted full preview", "Read", "<persisted-output>\nOutput too large (60KB). Full output saved to: /p/t.json\n\nPreview (first 2KB):\nall\n</persisted-output>", model.TruncClaudePersisted, "/p/t.json", "all"},
		{"middle", "Bash", middle, model.TruncClaudeMiddle, "", ""},
		{"lines", "Bash", "head\n\n... [120 lines truncated] ...", model.TruncClaudeLines, "", "head"},
		{"refused", "Read", "File content (30000 tokens) exceeds maximum allowed tokens (25000). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.", model.TruncClaudeRefused, "", ""},
		{"saved", "mcp__x__y", "Error: result (120,000 characters across 300 lines) exceeds maximum allowed tokens. Output has been saved to /p/out.txt.\nFormat: JSON\n", model.TruncClaudeSaved, "/p/out.txt", ""},
	} {
		tr := Detect(c.tool, c.text, nil, nil)
		if tr == nil || tr.Kind != c.kind || tr.SpillPath != c.spill {
			t.Errorf("%s: %+v", c.name, tr)
			continue
		}
		if c.seen != "" && unmarked(c.text, tr.Markers) != c.seen {
			t.Errorf("%s: unmarked %q", c.name, unmarked(c.text, tr.Markers))
		}
	}
	for _, plain := range []string{"hello from bash\nsecond line", "(Bash completed with no output)", "No files found"} {
		if tr := Detect("Bash", plain, nil, nil); tr != nil {
			t.Errorf("%q: %+v", plain, tr)
		}
	}
}

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
