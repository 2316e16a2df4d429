package claudecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
