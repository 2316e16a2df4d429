package formatters

import (
	"strings"
	"testing"

	"correx/model"
)

// The Codex CLI and Gemini CLI markers, as agent-formats.md and the
// recordings (testdata/codex, testdata/gemini-cli) give them (their
// drivers register them: drivers_test.go).
func TestDetectCLIMarkers(t *testing.T) {
	for _, tc := range []struct {
		name, tool, text string
		kind             model.TruncationKind
		markers          []string
		spill            string
	}{
		{"codex exec, token budget", "exec_command",
			"Chunk ID: b599e3\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 322224\nOutput:\nWarning: truncated output (original token count: 322224)\n... 240319 bytes omitted ...\n\n1\n2\n42…252152 tokens truncated…\n197144\n200000\n",
			model.TruncCodexTokens, []string{"Warning: truncated output (original token count: 322224)\n", "... 240319 bytes omitted ...\n\n", "…252152 tokens truncated…"}, ""},
		{"codex shell_command, chars and total lines", "shell_command",
			"Exit code: 0\nWall time: 1.5 seconds\nTotal output lines: 5000\nOutput:\nabc…1234 chars truncated…xyz",
			model.TruncCodexChars, []string{"Total output lines: 5000\n", "…1234 chars truncated…"}, ""},
		{"codex shell, structured JSON string", "shell",
			`{"output":"head…9 tokens truncated…tail","metadata":{"exit_code":0,"duration_seconds":0.1}}`,
			model.TruncCodexTokens, []string{"…9 tokens truncated…"}, ""},
		{"codex legacy lines", "shell", "a\nb\n[... omitted 10 of 266 lines ...]\n\ny\nz",
			model.TruncCodexLines, []string{"\n[... omitted 10 of 266 lines ...]\n\n"}, ""},
		{"codex legacy bytes", "shell", "a\n[... output truncated to fit 10240 bytes ...]\n\nz",
			model.TruncCodexBytes, []string{"\n[... output truncated to fit 10240 bytes ...]\n\n"}, ""},
		{"codex content items", "mcp__x__y", "first\n[omitted 3 text items ...]",
			model.TruncCodexItems, []string{"[omitted 3 text items ...]"}, ""},
		{"gemini too large", "run_shell_command",
			"Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /home/user/.gemini/tmp/proj/tool-outputs/session-1/run_shell_command__x.txt\n<untrusted_context>\nOutput: 1\n\n... [1,248,968 characters omitted] ...\n\n200000\n</untrusted_context>",
			model.TruncGeminiSpill, []string{"Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /home/user/.gemini/tmp/proj/tool-outputs/session-1/run_shell_command__x.txt\n", "\n\n... [1,248,968 characters omitted] ...\n\n"},
			"/home/user/.gemini/tmp/proj/tool-outputs/session-1/run_shell_command__x.txt"},
		{"codex exec, token budget under the 1 MiB buffer", "exec_command",
			"Chunk ID: 463653\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 15224\nOutput:\nWarning: truncated output (original token count: 15224)\nTotal output lines: 12000\n\n1\n2\n3…5224 tokens truncated…11999\n12000\n",
			model.TruncCodexTokens, []string{"Warning: truncated output (original token count: 15224)\n", "Total output lines: 12000\n\n", "…5224 tokens truncated…"}, ""},
		{"gemini read_file, lines left out", "read_file",
			"\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 1-2000 of 3001 total lines.\nAction: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use start_line: 2001.\n\n--- FILE CONTENT (truncated) ---\nbig line 1\nbig line 2000",
			model.TruncGeminiRead, []string{"\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 1-2000 of 3001 total lines.\nAction: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use start_line: 2001.\n\n--- FILE CONTENT (truncated) ---\n"}, ""},
		{"gemini read_file, a line cut", "read_file",
			"\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 1-3 of 3 total lines.\nAction: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use start_line: 4.\n\n--- FILE CONTENT (truncated) ---\nWWWW... [truncated]\nshort second line\n",
			model.TruncGeminiRead, []string{"\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 1-3 of 3 total lines.\nAction: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use start_line: 4.\n\n--- FILE CONTENT (truncated) ---\n", "... [truncated]"}, ""},
		{"gemini distilled", "run_shell_command",
			"[Message Normalized: Tool output exceeded size limit]\nhead\n...\ntail\n\nFull output saved to: /tmp/g/out.txt\n\n--- Strategic Significance of Truncated Content ---\nIt printed numbers.",
			model.TruncGeminiDistilled, []string{"[Message Normalized: Tool output exceeded size limit]\n", "\n...\n", "\n\nFull output saved to: /tmp/g/out.txt\n\n--- Strategic Significance of Truncated Content ---\n"}, "/tmp/g/out.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := Detect(tc.tool, tc.text, nil, nil)
			if tr == nil {
				t.Fatal("not detected")
			}
			if tr.Kind != tc.kind || tr.SpillPath != tc.spill {
				t.Errorf("kind %s spill %q, want %s %q", tr.Kind, tr.SpillPath, tc.kind, tc.spill)
			}
			var got []string
			for _, m := range tr.Markers {
				got = append(got, tc.text[m.Start:m.End])
			}
			if strings.Join(got, "|") != strings.Join(tc.markers, "|") {
				t.Errorf("markers %q, want %q", got, tc.markers)
			}
		})
	}
	for _, plain := range []string{
		"Chunk ID: e28a6d\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 12\nOutput:\nfirst note\n",
		"<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 1\n</untrusted_context>",
	} {
		if tr := Detect("exec_command", plain, nil, nil); tr != nil {
			t.Errorf("%q: detected %+v", plain, tr)
		}
	}
}
