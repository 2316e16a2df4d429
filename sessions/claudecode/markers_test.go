package claudecode

import (
	"strings"
	"testing"

	"correx/formatters"
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
		tr := formatters.Detect(c.tool, c.text, nil, nil)
		if tr == nil || tr.Kind != c.kind || tr.SpillPath != c.spill {
			t.Errorf("%s: %+v", c.name, tr)
			continue
		}
		if c.seen != "" && formatters.Unmarked(c.text, tr.Markers) != c.seen {
			t.Errorf("%s: unmarked %q", c.name, formatters.Unmarked(c.text, tr.Markers))
		}
	}
	for _, plain := range []string{"hello from bash\nsecond line", "(Bash completed with no output)", "No files found"} {
		if tr := formatters.Detect("Bash", plain, nil, nil); tr != nil {
			t.Errorf("%q: %+v", plain, tr)
		}
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
		tr := formatters.Detect("Glob", text, nil, nil)
		if tr == nil || tr.Kind != model.TruncClaudeGlob {
			t.Errorf("%s: %+v", c.note, tr)
			continue
		}
		if got := formatters.Unmarked(text, tr.Markers); got != files {
			t.Errorf("%s: unmarked %q", c.note, got)
		}
		if tr.SeenLines != 2 || (c.lines == 0) != (tr.FullLines == nil) || (tr.FullLines != nil && *tr.FullLines != c.lines) {
			t.Errorf("%s: seen %d, full %v (%s)", c.note, tr.SeenLines, tr.FullLines, tr.FullUnknown)
		}
		// with system reminders appended after it
		if tr := formatters.Detect("Glob", text+"\n\n<system-reminder>\nx\n</system-reminder>", nil, nil); tr == nil {
			t.Errorf("%s: not found before a reminder", c.note)
		}
	}
	if tr := formatters.Detect("Glob", files, nil, nil); tr != nil {
		t.Errorf("no note: %+v", tr)
	}
}
