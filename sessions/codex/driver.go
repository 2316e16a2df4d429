package codex

// The Codex CLI driver: where Codex keeps its rollouts, and which paths
// are its stores.

import (
	"bytes"
	"path/filepath"
	"strings"

	"correx/model"
	"correx/sessions"
)

func init() {
	model.RegisterAgent(model.AgentSpec{Agent: model.AgentCodex, Name: "Codex", Version: "0.171.0"})
	sessions.Register(sessions.Driver{
		Agent: model.AgentCodex,
		Locations: func() []string {
			if h := Home(); h != "" && isHome(h) {
				return []string{h}
			}
			return nil
		},
		Open: Open,
		// SpillFolders: none, Codex keeps no spill file
	})
}

// Home returns $CODEX_HOME, by default ~/.codex.
func Home() string { return sessions.AgentDir("CODEX_HOME", ".codex") }

// isHome says whether dir looks like a CODEX_HOME with rollouts.
func isHome(dir string) bool {
	for _, sub := range rolloutDirs {
		if hasRollouts(filepath.Join(dir, sub)) {
			return true
		}
	}
	return false
}

// Open opens a CODEX_HOME (sessions/, archived_sessions/), one of those
// folders, or a rollout file, told by its name or its first line.
func Open(path string, dir bool) (sessions.Store, bool, error) {
	var roots []string
	switch {
	case dir && isHome(path):
		for _, sub := range rolloutDirs {
			roots = append(roots, filepath.Join(path, sub))
		}
	case dir && isRolloutDir(path):
		roots = []string{path}
	case dir || !isRollout(path):
		return nil, false, nil
	}
	dataDir := path
	if !dir {
		dataDir = filepath.Dir(path)
	}
	st := &sessions.LineStore{
		FileStore: &sessions.FileStore{
			Root: path,
			Files: func() ([]string, []string) {
				if !dir {
					return []string{path}, nil
				}
				return rollouts(roots)
			},
			Read: func(f string) (*model.Session, error) { return ReadRollout(f, dataDir) },
		},
		Reader: func(f string, warnf func(int, string, ...any)) sessions.LineReader {
			if strings.HasSuffix(f, ".zst") {
				return nil
			}
			return newReader(f, dataDir, warnf, true)
		},
		Guess: func(id string) []string {
			if !dir {
				return []string{path}
			}
			return guessRollouts(roots, id)
		},
	}
	return st, true, nil
}

// guessRollouts are the rollouts under roots that may hold session id: a
// rollout's name ends in its session's id (rollout-<time>-<id>.jsonl), in
// sessions/YYYY/MM/DD/ or, archived, in archived_sessions/.
func guessRollouts(roots []string, id string) []string {
	if id == "" || strings.ContainsAny(id, `*?[\/`) {
		return nil
	}
	literal := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	var files []string
	for _, root := range roots {
		for _, pattern := range []string{"rollout-*-" + id + ".jsonl", "*/*/*/rollout-*-" + id + ".jsonl"} {
			found, _ := filepath.Glob(filepath.Join(literal.Replace(root), pattern))
			files = append(files, found...)
		}
	}
	return files
}

// isRolloutDir says whether dir is a CODEX_HOME's sessions/ or
// archived_sessions/ with rollouts.
func isRolloutDir(dir string) bool {
	base := filepath.Base(dir)
	return (base == "sessions" || base == "archived_sessions") && hasRollouts(dir)
}

// isRollout says whether a file is a rollout: a compressed one by its
// name, else by its session_meta first line.
func isRollout(path string) bool {
	name := filepath.Base(path)
	if strings.HasSuffix(name, ".zst") && strings.HasPrefix(name, "rollout-") {
		return true
	}
	head, err := sessions.ReadHead(path, 4096)
	if err != nil {
		return false
	}
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return bytes.Contains(head, []byte(`"type":"session_meta"`))
}
