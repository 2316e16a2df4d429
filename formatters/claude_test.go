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

// Claude Code's Glob lists the first 100 files and says so in one of three
// notes (GlobTool's footer in 2.1.332): the total exact, unknown, or a floor.
func TestDetectClaudeGlob(t *testing.T) {
	files := "a.txt\nb.txt"
	for _, c := range []struct {
		note  string
		lines int // the full output's lines, 0 when unknown
	}{
		{"(Showing 2 of 120 matching files; 118 more are not listed. Narrow the pattern or path to see the rest.)", 120},
		{"(Results are truncated. Consider using a more specific path or pattern.)", 0},
		{"(Showing the first 2 files; there are more than 5000 matches. Narrow the pattern or path to see the rest.)", 0},
	} {
		text := files + "\n" + c.note
		tr := Detect("Glob", text, nil, nil)
		if tr == nil || tr.Kind != model.TruncClaudeGlob {
			t.Errorf("%s: %+v", c.note, tr)
			continue
		}
		if got := unmarked(text, tr.Markers); got != files {
			t.Errorf("%s: unmarked %q", c.note, got)
		}
		if tr.SeenLines != 2 || (c.lines == 0) != (tr.FullLines == nil) || (tr.FullLines != nil && *tr.FullLines != c.lines) {
			t.Errorf("%s: seen %d, full %v (%s)", c.note, tr.SeenLines, tr.FullLines, tr.FullUnknown)
		}
		// with system reminders appended after it
		if tr := Detect("Glob", text+"\n\n<system-reminder>\nx\n</system-reminder>", nil, nil); tr == nil {
			t.Errorf("%s: not found before a reminder", c.note)
		}
	}
	if tr := Detect("Glob", files, nil, nil); tr != nil {
		t.Errorf("no note: %+v", tr)
	}
}
