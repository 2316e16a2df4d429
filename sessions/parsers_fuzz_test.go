package sessions

// Fuzz targets for the readers of Codex CLI and Gemini CLI records
// (scripts/fuzz.sh runs them; Claude Code's is in sessions/claudecode):
// each is seeded from the recorded fixtures and checks the properties of props.CheckSession whatever the
// input, and, where there is one, agreement with a reference.

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"correx/internal/props"
)

// FuzzCodexRollout: a Codex CLI rollout.
func FuzzCodexRollout(f *testing.F) {
	for _, s := range props.JSONLSeeds(f, "codex", true) {
		f.Add(s)
	}
	dir := f.TempDir() // one per process: the fuzzer's workers call the target in turn
	f.Fuzz(func(t *testing.T, data []byte) {
		path := props.FuzzFile(t, dir, "sessions/2026/11/30/rollout-2026-11-30T04-13-24-01a22aa8-5313-7f13-8191-5987c14f27ee.jsonl", data)
		s, err := readCodexRollout(path, dir)
		props.CheckRead(t, path, len(data), s, err)
	})
}

// FuzzGeminiChat: a Gemini CLI chat, JSON Lines or (older) one JSON
// document.
func FuzzGeminiChat(f *testing.F) {
	for _, w := range props.JSONLSeeds(f, "gemini-cli", true) {
		f.Add(w, false)
		// the same records as an older single-document chat
		recs := bytes.Join(bytes.Split(bytes.TrimSpace(w), []byte("\n")), []byte(","))
		f.Add([]byte(`{"sessionId":"9dc52e36","messages":[`+string(recs)+`]}`), true)
	}
	dir := f.TempDir() // one per process: the fuzzer's workers call the target in turn
	f.Fuzz(func(t *testing.T, data []byte, document bool) {
		name := "tmp/proj/chats/session-2026-11-30T04-13-9dc52e36.jsonl"
		if document {
			name = strings.TrimSuffix(name, "l")
		}
		path := props.FuzzFile(t, dir, name, data)
		s, err := readGeminiChat(path)
		props.CheckRead(t, path, len(data), s, err)
	})
}

// FuzzReadJSONL: readJSONL gives every non-blank line, trimmed, with its
// number, as splitting the file at newlines does.
func FuzzReadJSONL(f *testing.F) {
	for _, agent := range []string{"claude-code", "codex", "gemini-cli"} {
		for _, s := range props.JSONLSeeds(f, agent, false) {
			f.Add(s)
		}
	}
	f.Add([]byte("\n\n  \r\n{}\r\n \t{\"a\":1}  \n{\"partial\""))
	type line struct {
		n    int
		text string
		last bool
	}
	dir := f.TempDir() // one per process: the fuzzer's workers call the target in turn
	f.Fuzz(func(t *testing.T, data []byte) {
		path := props.FuzzFile(t, dir, "f.jsonl", data)
		var got, want []line
		warnf := func(n int, format string, args ...any) { t.Fatalf("line %d: "+format, append([]any{n}, args...)...) }
		if err := readJSONL(path, func(n int, l []byte, last bool) { got = append(got, line{n, string(l), last}) }, warnf); err != nil {
			t.Fatal(err)
		}
		split := bytes.Split(data, []byte("\n"))
		for i, l := range split {
			if l = bytes.TrimSpace(l); len(l) > 0 {
				want = append(want, line{i + 1, string(l), i == len(split)-1})
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("lines\n%v\nwant\n%v", got, want)
		}
	})
}
