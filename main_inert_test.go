package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileExport writes a copy of a recorded export whose title, directory,
// call title and output carry a newline, tabs, bidi overrides and an
// escape sequence; it returns the file and the call's output.
func hostileExport(t *testing.T) (path, callID, output string) {
	b, err := os.ReadFile("testdata/opencode/gemini/exports/ses_dd56f3df9ffetILCxTgAb8532V.json")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	info := doc["info"].(map[string]any)
	info["title"] = "evil\nses_forged  2026-01-01 00:00:00  1  1  0  0  -  forged\tcol \u202Egnp.exe\u202C"
	info["directory"] = "/home/\u202Eresu\u202C"
	output = "line one \u202Etxt.exe\u202C\n\x1b[2Jcleared\tafter tab\n"
	for _, m := range doc["messages"].([]any) {
		for _, p := range m.(map[string]any)["parts"].([]any) {
			part := p.(map[string]any)
			if part["type"] != "tool" {
				continue
			}
			state := part["state"].(map[string]any)
			state["title"] = "a\tb\nc \u202Ed\u202C"
			state["output"] = output
			callID = part["callID"].(string)
		}
	}
	require.NotEmpty(t, callID)
	path = filepath.Join(t.TempDir(), "hostile.json")
	b, err = json.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path, callID, output
}

// TestTablesShowControlsInert: nothing in a transcript forges a row or a
// column of a table or reaches a terminal as a control; piped, show stays
// byte for byte.
func TestTablesShowControlsInert(t *testing.T) {
	path, callID, output := hostileExport(t)
	raw := func(t *testing.T, out string) {
		t.Helper()
		for _, c := range []string{"\u202E", "\u202C", "\x1b"} {
			assert.NotContains(t, out, c)
		}
		assert.Contains(t, out, "⟨U+202E⟩")
	}
	t.Run("ls", func(t *testing.T) {
		out, stderr, code := correx(t, "ls", "--source", path)
		require.Equal(t, 0, code, stderr)
		raw(t, out)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		require.Len(t, lines, 2, "a header and one session:\n%s", out)
		assert.Contains(t, lines[1], `evil\nses_forged`)
		assert.Contains(t, lines[1], `forged\tcol`)
	})
	t.Run("calls", func(t *testing.T) {
		out, stderr, code := correx(t, "calls", "--source", path, "--session", "ses_dd56f3df9ffetILCxTgAb8532V")
		require.Equal(t, 0, code, stderr)
		raw(t, out)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		require.Len(t, lines, 2, "a header and one call:\n%s", out)
		assert.True(t, strings.HasSuffix(lines[1], `a\tb\nc ⟨U+202E⟩d⟨U+202C⟩`), lines[1])
	})
	t.Run("transcript", func(t *testing.T) {
		out, stderr, code := correx(t, "transcript", "--source", path, "--session", "ses_dd56f3df9ffetILCxTgAb8532V")
		require.Equal(t, 0, code, stderr)
		raw(t, out)
		assert.Contains(t, out, "line one ⟨U+202E⟩txt.exe⟨U+202C⟩\n␛[2Jcleared\tafter tab\n")
		assert.Contains(t, out, `session ses_dd56f3df9ffetILCxTgAb8532V: evil\nses_forged`)
	})
	t.Run("show piped", func(t *testing.T) {
		out, stderr, code := correx(t, "show", "--source", path, "--session", "ses_dd56f3df9ffetILCxTgAb8532V", "--call", callID)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, output, out)
	})
	t.Run("show on a terminal", func(t *testing.T) {
		defer func(f func(io.Writer) bool) { isTerminal = f }(isTerminal)
		isTerminal = func(io.Writer) bool { return true }
		out, stderr, code := correx(t, "show", "--source", path, "--session", "ses_dd56f3df9ffetILCxTgAb8532V", "--call", callID)
		require.Equal(t, 0, code, stderr)
		raw(t, out)
		assert.Equal(t, "line one ⟨U+202E⟩txt.exe⟨U+202C⟩\n␛[2Jcleared\tafter tab\n", out)
	})
}

// TestTranscriptSeenRangesOnTheirOwnLines: the transcript's truncation note
// gives each seen range a line of its own (made inert line by line, not
// as one cell, which wrote its newlines as \n).
func TestTranscriptSeenRangesOnTheirOwnLines(t *testing.T) {
	out, stderr, code := correx(t, "transcript", "--source", "testdata/opencode/probe-claude/data", "--session", "ses_dcc9adb1effeZHyUx0Z2ebDYKR")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, out, `\n  seen:`)
	assert.Contains(t, out, "truncated (read-line): model saw 2 lines / 2006 bytes of 2 lines (full size unknown: the read tool does not report the file's size in bytes)\n"+
		"  seen: text bytes 71–2074 = lines 1–1; last line in part\n  seen: text bytes 2109–2118 = lines 2–2\n")
	assert.Contains(t, out, "truncated (bash-tail): model saw 0 lines / 0 bytes of 1 lines / 52001 bytes; full output: ")
}
