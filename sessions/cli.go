package sessions

// Detection and discovery of the Gemini CLI stores beside opencode's (see
// geminicli.go).

import (
	"bytes"
	"path/filepath"
	"strings"
)

// openCLIDir opens dir as Gemini CLI's .gemini dir (or one project's temp
// dir, or its chats/).
func openCLIDir(dir string) (Store, bool) {
	if len(geminiChatFiles(dir)) > 0 {
		return &geminiStore{path: dir}, true
	}
	return nil, false
}

// openCLIFile opens a Gemini CLI chat file, told by its first line.
func openCLIFile(path string) (Store, bool) {
	name := filepath.Base(path)
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
	if bytes.Contains(head, []byte(`"sessionId"`)) && bytes.Contains(head, []byte(`"projectHash"`)) {
		return &geminiStore{path: path, file: true}, true
	}
	return nil, false
}

// cliLocations are the default Gemini CLI stores that exist.
func cliLocations() []string {
	if g := GeminiDir(); g != "" && isDir(filepath.Join(g, "tmp")) {
		return []string{g}
	}
	return nil
}
