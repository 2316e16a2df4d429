package formatters_test

import (
	"errors"
	"strings"
	"testing"

	"correx/formatters"
	"correx/internal/props"
	"correx/model"
)

// memSpill is a spill file held in memory, found at its path.
type memSpill struct{ path, content string }

func (m memSpill) FindSpill(p string) (string, int, int, bool) {
	if p != m.path {
		return "", 0, 0, false
	}
	return p, formatters.CountLines(m.content), len(m.content), true
}

func (m memSpill) ReadSpill(p string, off int64, n int) ([]byte, error) {
	if p != m.path || off > int64(len(m.content)) {
		return nil, errors.New("no such spill")
	}
	return []byte(m.content[off:min(int(off)+n, len(m.content))]), nil
}

func (m memSpill) read(p string) ([]byte, error) {
	if p != m.path {
		return nil, errors.New("no such spill")
	}
	return []byte(m.content), nil
}

func numbers(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		b.WriteString(strings.Repeat("x", i%7) + "\n")
	}
	return b.String()
}

// Each agent's truncation templates, from the agent's source where no
// recording has one (recorded kinds are checked on the fixtures): the text
// splits into the seen pieces and added pieces expected, and the property
// checks of the fixtures hold.
func TestTruncationPiecesFromTemplates(t *testing.T) {
	const out = "/home/user/.local/share/opencode/tool-output/tool_1"
	long := strings.Repeat("y", 2500) + "\nz\n"
	for _, c := range []struct {
		name, tool, text string
		spill            *memSpill
		kind             model.TruncationKind
		seen             []string
		added            []string
		seenLines        int
		partial          [][2]bool // per seen piece: partial first, partial last
	}{
		{"opencode glob cap (glob.ts)", "glob",
			"/p/a\n/p/b\n\n(Results are truncated: showing first 100 results. Consider using a more specific path or pattern.)", nil,
			model.TruncGlobCap, []string{"/p/a\n/p/b"}, nil, 2, nil},
		{"opencode grep cap (grep.ts)", "grep",
			"Found 100 matches (more matches available)\n/p/a:\n  Line 1: x\n\n\n(Results truncated. Consider using a more specific path or pattern.)", nil,
			model.TruncGrepCap, []string{"/p/a:\n  Line 1: x\n"}, []string{"\n"}, 2, nil},
		{"opencode bash tail with shell_metadata (shell.ts)", "bash",
			"...output truncated...\n\nFull output saved to: " + out + "\n\nxx\nxxx\n\n\n<shell_metadata>\nUser aborted the command\n</shell_metadata>",
			&memSpill{out, numbers(1, 10)}, model.TruncBashTail, []string{"xx\nxxx\n"}, []string{"\n\n<shell_metadata>\nUser aborted the command\n</shell_metadata>"}, 2, [][2]bool{{false, false}}},
		{"opencode bash tail of an oversized last line (shell.ts)", "bash",
			"...output truncated...\n\nFull output saved to: " + out + "\n\n" + long[2000:],
			&memSpill{out, long}, model.TruncBashTail, []string{long[2000:]}, nil, 2, [][2]bool{{true, false}}},
		{"opencode bash tail of a last line over the byte cap, with its newline (shell.ts: an empty tail, \"(no output)\")", "bash",
			"...output truncated...\n\nFull output saved to: " + out + "\n\n(no output)",
			&memSpill{out, strings.Repeat("x", 52000) + "\n"}, model.TruncBashTail, nil, []string{"(no output)"}, 0, nil},
		{"opencode bash tail that is the text \"(no output)\" (shell.ts)", "bash",
			"...output truncated...\n\nFull output saved to: " + out + "\n\n(no output)",
			&memSpill{out, numbers(1, 3000) + "(no output)"}, model.TruncBashTail, []string{"(no output)"}, nil, 1, [][2]bool{{false, false}}},
		{"opencode 1.1.65 read of a line over 2000 chars (read.ts: substring(0, 2000) + \"...\")", "read",
			"<path>/p/a.txt</path>\n<type>file</type>\n<content>1: " + strings.Repeat("é", 2000) + "...\n2: b...\n\n(End of file - total 2 lines)\n</content>", nil,
			model.TruncReadLine, []string{"1: " + strings.Repeat("é", 2000), "2: b..."}, []string{"<path>/p/a.txt</path>\n<type>file</type>\n<content>", "\n", "\n\n(End of file - total 2 lines)\n</content>"}, 2, [][2]bool{{false, true}, {false, false}}},
		{"opencode 1.18.33 read: a line ending with ... is not a cut; a cut last line before the footer", "read",
			"<path>/p/a.txt</path>\n<type>file</type>\n<content>\n1: " + strings.Repeat("x", 2000) + "...\n2: " + strings.Repeat("y", 2000) + "... (line truncated to 2000 chars)\n\n(End of file - total 2 lines)\n</content>", nil,
			model.TruncReadLine, []string{"1: " + strings.Repeat("x", 2000) + "...\n2: " + strings.Repeat("y", 2000)}, []string{"<path>/p/a.txt</path>\n<type>file</type>\n<content>\n", "\n\n(End of file - total 2 lines)\n</content>"}, 2, [][2]bool{{false, true}}},
		{"opencode read with a nested AGENTS.md (read.ts)", "read",
			"<path>/p/a.txt</path>\n<type>file</type>\n<content>\n2: b\n3: c\n\n(Showing lines 2-3 of 5. Use offset=4 to continue.)\n</content>\n\n<system-reminder>\nInstructions from: /p/AGENTS.md\nx\n</system-reminder>", nil,
			model.TruncReadLines, []string{"2: b\n3: c"}, []string{"<path>/p/a.txt</path>\n<type>file</type>\n<content>\n", "\n</content>\n\n<system-reminder>\nInstructions from: /p/AGENTS.md\nx\n</system-reminder>"}, 2, nil},
		{"opencode read of a directory at its entry limit (read.ts)", "read",
			"<path>/p/sub</path>\n<type>directory</type>\n<entries>\nb.ts\ninner/\n\n(Showing 2 of 5 entries. Use 'offset' parameter to read beyond entry 3)\n</entries>", nil,
			model.TruncReadEntries, []string{"b.ts\ninner/"}, []string{"<path>/p/sub</path>\n<type>directory</type>\n<entries>\n", "\n</entries>"}, 2, nil},
		{"Claude Code persisted preview cut inside a line", "Bash",
			"<persisted-output>\nOutput too large (2.5KB). Full output saved to: /c/tool-results/b.txt\n\nPreview (first 2KB):\n" + long[:2000] + "\n...\n</persisted-output>",
			&memSpill{"/c/tool-results/b.txt", long}, model.TruncClaudePersisted, []string{long[:2000]}, nil, 1, [][2]bool{{false, true}}},
		{"Claude Code persisted preview, spill file not matching", "Bash",
			"<persisted-output>\nOutput too large (2.5KB). Full output saved to: /c/tool-results/b.txt\n\nPreview (first 2KB):\nabc\n...\n</persisted-output>",
			&memSpill{"/c/tool-results/b.txt", "other\n"}, model.TruncClaudePersisted, []string{"abc"}, nil, 1, nil},
		{"Claude Code line cap (<= 2.1.1)", "Bash", "head\nmore\n\n... [120 lines truncated] ...", nil,
			model.TruncClaudeLines, []string{"head\nmore"}, nil, 2, nil},
		{"Claude Code Read refused", "Read", "File content (30000 tokens) exceeds maximum allowed tokens (25000). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.", nil,
			model.TruncClaudeRefused, nil, nil, 0, nil},
		{"Claude Code large MCP result saved", "mcp__x__y", "Error: result (120,000 characters across 300 lines) exceeds maximum allowed tokens. Output has been saved to /p/out.txt.\nFormat: JSON\nUse Read with offset and limit.", nil,
			model.TruncClaudeSaved, nil, []string{"Format: JSON\nUse Read with offset and limit."}, 0, nil},
		{"Codex shell_command, char budget", "shell_command",
			"Exit code: 0\nWall time: 1.5 seconds\nTotal output lines: 5000\nOutput:\nabc…1234 chars truncated…xyz", nil,
			model.TruncCodexChars, []string{"abc", "xyz"}, []string{"Exit code: 0\nWall time: 1.5 seconds\n", "Output:\n"}, 2, [][2]bool{{false, true}, {true, false}}},
		{"Codex legacy line cut", "shell", "a\nb\n[... omitted 10 of 266 lines ...]\n\ny\nz", nil,
			model.TruncCodexLines, []string{"a\nb", "y\nz"}, nil, 4, [][2]bool{{false, false}, {false, false}}},
		{"Codex legacy byte cut", "shell", "a\nb\n[... output truncated to fit 10240 bytes ...]\n\nz", nil,
			model.TruncCodexBytes, []string{"a\nb", "z"}, nil, 3, [][2]bool{{false, true}, {true, false}}},
		{"Codex content items dropped", "mcp__x__y", "first\n[omitted 3 text items ...]", nil,
			model.TruncCodexItems, []string{"first\n"}, nil, 1, nil},
		{"Codex exec buffer alone", "exec_command",
			"Chunk ID: 0a1b2c\nWall time: 0.1000 seconds\nProcess running with session ID 7\nOriginal token count: 300000\nOutput:\n... 10 bytes omitted ...\n\nbody\n", nil,
			model.TruncCodexBuffer, []string{"body\n"}, []string{"Chunk ID: 0a1b2c\nWall time: 0.1000 seconds\nProcess running with session ID 7\nOriginal token count: 300000\nOutput:\n"}, 1, nil},
		{"Gemini CLI distilled", "run_shell_command",
			"[Message Normalized: Tool output exceeded size limit]\nhead\n...\ntail\n\nFull output saved to: /g/out.txt\n\n--- Strategic Significance of Truncated Content ---\nIt printed numbers.",
			&memSpill{"/g/out.txt", "head\nmiddle\ntail"}, model.TruncGeminiDistilled, []string{"head", "tail"}, []string{"It printed numbers."}, 2, [][2]bool{{false, false}, {false, false}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var finder formatters.SpillFinder
			read := func(string) ([]byte, error) { return nil, errors.New("no spill") }
			if c.spill != nil {
				finder, read = *c.spill, c.spill.read
			}
			tr := formatters.Detect(c.tool, c.text, nil, finder)
			if tr == nil || tr.Kind != c.kind {
				t.Fatalf("detected %+v, want %s", tr, c.kind)
			}
			var seen, added []string
			for _, r := range tr.Seen {
				seen = append(seen, c.text[r.Text.Start:r.Text.End])
			}
			for _, a := range tr.Added {
				added = append(added, c.text[a.Start:a.End])
			}
			if strings.Join(seen, "|") != strings.Join(c.seen, "|") || strings.Join(added, "|") != strings.Join(c.added, "|") {
				t.Errorf("seen %q added %q, want %q %q", seen, added, c.seen, c.added)
			}
			if tr.SeenLines != c.seenLines {
				t.Errorf("seen lines %d, want %d", tr.SeenLines, c.seenLines)
			}
			for i, p := range c.partial {
				if i < len(tr.Seen) && [2]bool{tr.Seen[i].PartialFirst, tr.Seen[i].PartialLast} != p {
					t.Errorf("seen piece %d: partial %v, want %v", i, [2]bool{tr.Seen[i].PartialFirst, tr.Seen[i].PartialLast}, p)
				}
			}
			if c.spill != nil && c.spill.content == "other\n" {
				if tr.Seen[0].Placed || tr.Seen[0].Lines != nil {
					t.Errorf("placed in a spill file that does not hold it: %+v", tr.Seen[0])
				}
				return
			}
			props.CheckFacts(t, c.name, c.text, tr, read)
		})
	}
}
