package claudecode

import (
	"path/filepath"
	"strings"

	"correx/model"
	"correx/sessions"
)

// The version of Claude Code this reader and its wire rules were checked
// against (testdata/claude-code).
const checkedVersion = "2.1.332"

func init() {
	model.RegisterAgent(model.AgentSpec{Agent: model.AgentClaudeCode, Name: "Claude Code", Version: checkedVersion})
	sessions.Register(sessions.Driver{
		Agent:        model.AgentClaudeCode,
		Locations:    locations,
		Open:         open,
		SpillFolders: spillFolders,
		SpillPaths:   spillPaths,
	})
}

// locations is the config dir when its projects/ holds transcripts, or a
// transcript it cannot read (opening it names the problem).
func locations() []string {
	d := ConfigDir()
	if d == "" {
		return nil
	}
	if found, problem := hasClaudeTranscripts(filepath.Join(d, "projects")); found || problem != nil {
		return []string{d}
	}
	return nil
}

// open opens a config dir, its projects/, a project dir or one transcript
// (.jsonl) with its subagents.
func open(path string, dir bool) (sessions.Store, bool, error) {
	if dir {
		s, ok, problem := openClaudeDir(path)
		return s, ok, problem
	}
	if !strings.HasSuffix(path, ".jsonl") {
		return nil, false, nil
	}
	ok, err := looksClaude(path)
	if !ok {
		return nil, false, err
	}
	return newClaudeStore(path, []string{path}), true, nil
}

// spillFolders are the tool-results/ dirs of the sessions beside the
// store (dataDir is a config dir, or the folder of a transcript) and in
// the config dir on this machine.
func spillFolders(dataDir string) []string {
	var out []string
	for _, d := range []string{dataDir, ConfigDir()} {
		if d == "" {
			continue
		}
		for _, pat := range []string{filepath.Join(d, "projects", "*", "*", "tool-results"), filepath.Join(d, "*", "tool-results")} {
			dirs, _ := filepath.Glob(pat)
			out = append(out, dirs...)
		}
	}
	return out
}

// spillPaths: a spill recorded as
// <config>/projects/<encoded-cwd>/<session>/tool-results/<id>.txt, beside
// a config dir or beside a transcript.
func spillPaths(dataDir, recorded string) []string {
	i := strings.LastIndex(recorded, "/projects/")
	if i < 0 || dataDir == "" {
		return nil
	}
	rel := recorded[i+1:]
	out := []string{filepath.Join(dataDir, rel)}
	if parts := strings.SplitN(rel, "/", 3); len(parts) == 3 {
		out = append(out, filepath.Join(dataDir, parts[2]))
	}
	return out
}
