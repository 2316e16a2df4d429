package geminicli

// The Gemini CLI driver: where Gemini CLI keeps its chats and spills, and
// which paths are its stores.

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"correx/model"
	"correx/sessions"
)

func init() {
	model.RegisterAgent(model.AgentSpec{Agent: model.AgentGeminiCLI, Name: "Gemini CLI", Version: "0.61.0"})
	sessions.Register(sessions.Driver{
		Agent: model.AgentGeminiCLI,
		Locations: func() []string {
			if g := Dir(); g != "" && sessions.IsDir(filepath.Join(g, "tmp")) {
				return []string{g}
			}
			return nil
		},
		Open:         Open,
		SpillFolders: SpillFolders,
	})
}

// Dir returns Gemini CLI's data dir: $GEMINI_CLI_HOME/.gemini, by
// default ~/.gemini.
func Dir() string {
	home := os.Getenv("GEMINI_CLI_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = h
	}
	return filepath.Join(home, ".gemini")
}

// SpillFolders are the tool-outputs/ of a chat's project temp dir, beside
// the store and in Gemini CLI's data dir on this machine.
func SpillFolders(dataDir string) []string {
	var out []string
	if dataDir != "" {
		out = append(out, filepath.Join(dataDir, "tool-outputs"))
	}
	if d := Dir(); d != "" {
		out = append(out, filepath.Join(d, "tmp", filepath.Base(dataDir), "tool-outputs"))
	}
	return out
}

// Open opens a .gemini dir, one project's temp dir or its chats/, or a
// chat file, told by its first line (a legacy session-*.json by its
// name and sessionId).
func Open(path string, dir bool) (sessions.Store, bool, error) {
	if dir && len(ChatFiles(path)) == 0 || !dir && !isChat(path) {
		return nil, false, nil
	}
	files := func() []string {
		if !dir {
			return []string{path}
		}
		return ChatFiles(path)
	}
	return &sessions.LineStore{
		FileStore: &sessions.FileStore{
			Root: path,
			Files: func() ([]string, []string) {
				files := files()
				// a resumed legacy .json is rewritten as .jsonl beside it: the .jsonl wins
				sort.SliceStable(files, func(i, j int) bool {
					return strings.HasSuffix(files[i], ".jsonl") && !strings.HasSuffix(files[j], ".jsonl")
				})
				return files, nil
			},
			Read: ReadChat,
			Same: sameSession,
		},
		// a legacy .json is read whole (ReadChat)
		Reader: func(p string, warnf func(int, string, ...any)) sessions.LineReader {
			if strings.HasSuffix(p, ".json") {
				return nil
			}
			return newGCReader(p, warnf)
		},
		// session-<time>-<first 8 of the id>.jsonl, a subagent's <id>.jsonl;
		// none when several files may hold it (a resume's stub: the List
		// chooses, sameSession)
		Guess: func(id string) []string {
			var out []string
			for _, f := range files() {
				name := filepath.Base(f)
				if name == id+".jsonl" || len(id) >= 8 && strings.HasSuffix(name, "-"+id[:8]+".jsonl") {
					out = append(out, f)
				}
			}
			if len(out) > 1 {
				return nil
			}
			return out
		},
	}, true, nil
}

// isChat says whether a file is a chat file.
func isChat(path string) bool {
	name := filepath.Base(path)
	head, err := sessions.ReadHead(path, 4096)
	if err != nil {
		return false
	}
	if strings.HasPrefix(name, "session-") && strings.HasSuffix(name, ".json") && bytes.Contains(head, []byte(`"sessionId"`)) {
		return true // legacy single JSON
	}
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return bytes.Contains(head, []byte(`"sessionId"`)) && bytes.Contains(head, []byte(`"projectHash"`))
}

// ChatFiles lists the chat files under a .gemini dir, a project temp
// dir (<tmp>/<project>), or a chats/ dir.
func ChatFiles(dir string) []string {
	var chatDirs []string
	switch {
	case sessions.IsDir(filepath.Join(dir, "tmp")):
		chatDirs, _ = filepath.Glob(filepath.Join(dir, "tmp", "*", "chats"))
	case sessions.IsDir(filepath.Join(dir, "chats")):
		chatDirs = []string{filepath.Join(dir, "chats")}
	case filepath.Base(dir) == "chats":
		chatDirs = []string{dir}
	}
	var files []string
	for _, cd := range chatDirs {
		for _, pat := range []string{"session-*.jsonl", "session-*.json", "*/*.jsonl"} {
			m, _ := filepath.Glob(filepath.Join(cd, pat))
			files = append(files, m...)
		}
	}
	sort.Strings(files)
	return files
}

// sameSession chooses between two chat files of one session. A resumed
// legacy .json beside its .jsonl is dropped without a word. A resumed
// run in another minute than the file it resumes starts a chat file of
// its own, writes there only its session context and goes on in the
// resumed file: the file with the conversation (more messages) is the
// session, and the other one is said only if it holds a message the
// session has not.
func sameSession(kept, other *model.Session) (keepOther, warn bool) {
	if strings.HasSuffix(other.Info.Source, ".json") {
		return false, false
	}
	keep, drop := kept, other
	if len(other.Messages) > len(kept.Messages) {
		keep, drop = other, kept
	}
	have := map[string]bool{}
	for _, m := range keep.Messages {
		have[m.ID] = true
	}
	for _, m := range drop.Messages {
		if !have[m.ID] {
			return keep == other, true
		}
	}
	return keep == other, false
}
