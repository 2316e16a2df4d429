package sessions

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"correx/internal/props"
	"correx/model"
)

// The Codex CLI and Gemini CLI fixtures are real recordings (testdata/record);
// their drivers are registered in this test binary (drivers_test.go).
const (
	codexFixture  = "../testdata/codex/gpt-5.5/data"
	geminiFixture = "../testdata/gemini-cli/gemini-3.8-flash/data"
)

func openList(t *testing.T, path string) (Store, []model.SessionInfo) {
	return props.OpenList(t, Open, path)
}

func loadOnly(t *testing.T, path string) (Store, *model.Session) {
	return props.LoadOnly(t, Open, path)
}

func copyFixture(t *testing.T, src, dir, rel string) string {
	return props.CopyFile(t, src, dir, rel)
}

func TestCLIFilesOpenDirectly(t *testing.T) {
	rollouts, _ := filepath.Glob(codexFixture + "/sessions/*/*/*/rollout-*.jsonl")
	chats, _ := filepath.Glob(geminiFixture + "/tmp/*/chats/session-*.jsonl")
	if len(rollouts) != 1 || len(chats) != 1 {
		t.Fatalf("fixtures: %v %v", rollouts, chats)
	}
	for path, agent := range map[string]model.Agent{rollouts[0]: model.AgentCodex, chats[0]: model.AgentGeminiCLI} {
		_, sess := loadOnly(t, path)
		if sess.Info.Agent != agent {
			t.Errorf("%s: agent %s", path, sess.Info.Agent)
		}
	}
}

func TestDiscoverCLI(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, "claude"))
	t.Setenv("OPENCODE_DB", "")
	codex := filepath.Join(home, "codex")
	t.Setenv("CODEX_HOME", codex)
	t.Setenv("GEMINI_CLI_HOME", filepath.Join(home, "g"))
	rollouts, _ := filepath.Glob(codexFixture + "/sessions/*/*/*/rollout-*.jsonl")
	copyFixture(t, rollouts[0], codex, "sessions/2026/01/02/"+filepath.Base(rollouts[0]))
	chats, _ := filepath.Glob(geminiFixture + "/tmp/*/chats/session-*.jsonl")
	copyFixture(t, chats[0], filepath.Join(home, "g", ".gemini"), "tmp/proj/chats/"+filepath.Base(chats[0]))
	got := Discover()
	want := []string{codex, filepath.Join(home, "g", ".gemini")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Discover() = %v, want %v", got, want)
	}
	stores, errs := OpenAll(got)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	all := Combine(stores...)
	infos, err := all.List(context.Background())
	if err != nil || len(infos) != 2 || infos[0].Agent == infos[1].Agent {
		t.Fatalf("combined list %v %v", infos, err)
	}
}
