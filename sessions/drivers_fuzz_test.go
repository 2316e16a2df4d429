package sessions_test

// Fuzz targets of the drivers' readers, with the checks of
// parsers_fuzz_test.go.

import (
	"testing"

	"correx/sessions"
	"correx/sessions/codex"
)

// FuzzCodexRollout: a Codex CLI rollout.
func FuzzCodexRollout(f *testing.F) {
	for _, s := range sessions.JSONLSeeds(f, "codex", true) {
		f.Add(s)
	}
	dir := sessions.FuzzDir(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := sessions.FuzzFile(t, dir, "sessions/2026/11/30/rollout-2026-11-30T04-13-24-01a22aa8-5313-7f13-8191-5987c14f27ee.jsonl", data)
		s, err := codex.ReadRollout(path, dir)
		sessions.CheckRead(t, path, len(data), s, err)
	})
}
