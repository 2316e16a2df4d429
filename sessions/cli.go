package sessions

// Detection and discovery of the Codex CLI and Gemini CLI stores beside
// opencode's (see codex.go and geminicli.go).

import (
	"bytes"
	"path/filepath"
	"strings"
)

// openCLIDir opens dir as a CODEX_HOME (sessions/, archived_sessions/) or
// as Gemini CLI's .gemini dir (or one project's temp dir, or its chats/).
func openCLIDir(dir string) (Store, bool) {
	if isCodexHome(dir) {
		s, _ := openCodex(dir, false)
		return s, true
	}
	if len(geminiChatFiles(dir)) > 0 {
		return &geminiStore{path: dir}, true
	}
	return nil, false
}

// openCLIFile opens a Codex rollout or a Gemini CLI chat file, told apart
// by their first line.
func openCLIFile(path string) (Store, bool) {
	name := filepath.Base(path)
	if strings.HasSuffix(name, ".zst") && strings.HasPrefix(name, "rollout-") {
		s, _ := openCodex(path, true)
		return s, true
	}
	head, err := readHead(path, 4096)
	if err != nil {
		return nil, false
	}
	if strings.HasPrefix(name, "session-") && strings.HasSuffix(name, ".json") && bytes.Contains(head, []byte(`"sessionId"`)) {
		return &geminiStore{path: path, file: true}, true // legacy single JSON
	}
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	switch {
	case bytes.Contains(head, []byte(`"type":"session_meta"`)):
		s, _ := openCodex(path, true)
		return s, true
	case bytes.Contains(head, []byte(`"sessionId"`)) && bytes.Contains(head, []byte(`"projectHash"`)):
		return &geminiStore{path: path, file: true}, true
	}
	return nil, false
}

// cliLocations are the default Codex and Gemini CLI stores that exist.
func cliLocations() []string {
	var out []string
	if h := CodexHome(); h != "" && isCodexHome(h) {
		out = append(out, h)
	}
	if g := GeminiDir(); g != "" && isDir(filepath.Join(g, "tmp")) {
		out = append(out, g)
	}
	return out
}
