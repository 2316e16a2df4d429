package claudecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/sessions"
)

// TestLooksClaude: the driver claims a .jsonl by Claude Code's records
// only, never by keys other agents share (Gemini CLI's and Qwen Code's
// records carry sessionId, Qwen Code's parentUuid and isSidechain too),
// and reads the keys of a first record cut off at 4 KiB.
func TestLooksClaude(t *testing.T) {
	big := strings.Repeat("x", 8000)
	cases := map[string]bool{
		`{"type":"summary","summary":"t","leafUuid":"u"}`:                                                                                                true,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"t","sessionId":"s"}`:                                                               true,
		`{"parentUuid":null,"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"x"}}`:                                           true,
		`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"` + big + `"}}`:                                        true,
		`{"parentUuid":"p","isSidechain":false,"type":"system","subtype":"compact_boundary"}`:                                                            true,
		`{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}`:                                                            false, // Gemini CLI
		`{"timestamp":"t","type":"session_meta","payload":{"id":"x","sessionId":"s"}}`:                                                                   false, // Codex
		`{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","parts":[{"text":"x"}]}}`:                                  false, // Qwen Code
		`{"type":"file-history-snapshot","messageId":"m"}` + "\n" + `{"parentUuid":null,"isSidechain":false,"type":"user"}`:                              true,
		`{"type":"file-history-snapshot","messageId":"m","snapshot":{"trackedFileBackups":{"` + big + `":{}}}}`:                                          true,
		`{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user","agentId":"a","isSidechain":true,"message":{"role":"user","parts":[{"text":"x"}]}}`: false, // a Qwen Code subagent
		"\x00\x00\x00": false,
	}
	dir := t.TempDir()
	for text, want := range cases {
		p := filepath.Join(dir, "t.jsonl")
		require.NoError(t, os.WriteFile(p, []byte(text+"\n"), 0o644))
		got, err := looksClaude(p)
		require.NoError(t, err)
		require.Equal(t, want, got, "%.120s", text)
	}
}

// TestFingerprintFollowsTranscripts: a Claude Code store's fingerprint
// stays while no transcript changes (an idle TUI lists nothing) and
// changes when one grows.
func TestFingerprintFollowsTranscripts(t *testing.T) {
	racy := sessions.RacyWindow
	sessions.RacyWindow = 0
	t.Cleanup(func() { sessions.RacyWindow = racy })
	src := filepath.Join("..", "..", "testdata", "claude-code", "anthropic", "projects", "-home-user-proj", "32e57bf8-f980-492f-9700-2d786061b4d4.jsonl")
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "projects", "-home-user-proj")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	file := filepath.Join(dir, filepath.Base(src))
	require.NoError(t, os.WriteFile(file, data, 0o644))
	st, err := sessions.Open(filepath.Dir(dir))
	require.NoError(t, err)
	defer st.Close()
	fp, ok := sessions.Fingerprint(st)
	require.True(t, ok, "a Claude Code store can say")
	again, _ := sessions.Fingerprint(st)
	require.Equal(t, fp, again)
	require.NoError(t, os.WriteFile(file, append(data, '\n'), 0o644))
	grown, ok := sessions.Fingerprint(st)
	require.True(t, ok)
	require.NotEqual(t, fp, grown, "a transcript grew")
}
