package sessions_test

// Fuzz targets of the drivers' readers (scripts/fuzz.sh runs them), seeded
// from the recorded fixtures as those of parsers_fuzz_test.go are.

import (
	"bytes"
	"strings"
	"testing"

	"correx/internal/props"
	"correx/sessions/codex"
	"correx/sessions/geminicli"
)

// FuzzCodexRollout: a Codex CLI rollout.
func FuzzCodexRollout(f *testing.F) {
	for _, s := range props.JSONLSeeds(f, "codex", true) {
		f.Add(s)
	}
	dir := f.TempDir() // one per process: the fuzzer's workers call the target in turn
	f.Fuzz(func(t *testing.T, data []byte) {
		path := props.FuzzFile(t, dir, "sessions/2026/11/30/rollout-2026-11-30T04-13-24-01a22aa8-5313-7f13-8191-5987c14f27ee.jsonl", data)
		s, err := codex.ReadRollout(path, dir)
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
		s, err := geminicli.ReadChat(path)
		props.CheckRead(t, path, len(data), s, err)
	})
}
