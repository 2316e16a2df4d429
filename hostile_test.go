//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// copyTree copies a fixture folder, files 0644 and folders 0755.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	}))
}

// seqCall is the session and call id of the fixture's `seq 1 100000`
// bash call, whose output was spilled.
func seqCall(t *testing.T, src string) (session, call string) {
	last, _ := lastRequest(t, fixture)
	out, stderr, code := correx(t, "calls", "--source", src, "--session", last.Session, "--json")
	require.Equal(t, 0, code, stderr)
	var calls []struct {
		CallID string          `json:"call_id"`
		Input  json.RawMessage `json:"input"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &calls))
	for _, c := range calls {
		if strings.Contains(string(c.Input), "seq 1 100000") {
			return last.Session, c.CallID
		}
	}
	t.Fatal("the recording has a seq 1 100000 call")
	return "", ""
}

type spillFacts struct {
	Truncation struct {
		FullLines   *int   `json:"full_lines"`
		FullUnknown string `json:"full_unknown"`
		SpillFound  string `json:"spill_found"`
	} `json:"truncation"`
	SpillGone    bool   `json:"spill_gone"`
	SpillProblem string `json:"spill_problem"`
}

func parseSpillFacts(t *testing.T, out string) spillFacts {
	var f spillFacts
	require.NoError(t, json.Unmarshal([]byte(out), &f), out)
	return f
}

// TestShowAllowOutsideSpill: a spill that resolves outside the agent's
// spill folder (here a link out of tool-output/) is not read by show
// unless --allow-outside-spill, and --json says so.
func TestShowAllowOutsideSpill(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	copyTree(t, fixture+"/data", data)
	session, call := seqCall(t, data)
	out, _, code := correx(t, "show", "--source", data, "--session", session, "--call", call, "--json")
	require.Equal(t, 0, code)
	spill := parseSpillFacts(t, out).Truncation.SpillFound
	require.NotEmpty(t, spill)
	moved := filepath.Join(filepath.Dir(data), "elsewhere", "spill.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(moved), 0o755))
	require.NoError(t, os.Rename(spill, moved))
	require.NoError(t, os.Symlink(moved, spill))

	out, _, code = correx(t, "show", "--source", data, "--session", session, "--call", call, "--json")
	require.Equal(t, 0, code)
	f := parseSpillFacts(t, out)
	require.Equal(t, spill, f.Truncation.SpillFound)
	require.Nil(t, f.Truncation.FullLines, "not read")
	require.Equal(t, "outside opencode's spill folder: "+spill, f.Truncation.FullUnknown)
	require.False(t, f.SpillGone)
	require.Equal(t, "outside opencode's spill folder: "+spill, f.SpillProblem)

	out, _, code = correx(t, "show", "--source", data, "--session", session, "--call", call, "--json", "--allow-outside-spill")
	require.Equal(t, 0, code)
	f = parseSpillFacts(t, out)
	require.Equal(t, 100000, *f.Truncation.FullLines)
	require.Empty(t, f.SpillProblem)
}

// TestUnreadableAsNobody runs correx as a user who may not read the
// session files (tests run as root here, and root reads anything): each
// command names the file, "permission denied: FILE", never an empty list
// or "no agent sessions" or a spill "gone".
func TestUnreadableAsNobody(t *testing.T) {
	var cred *syscall.Credential
	if os.Getuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			t.Skipf("SKIPPED: no user nobody to run correx as (%v); permission denied is checked with an injected error only (sessions)", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	top := t.TempDir()
	require.NoError(t, os.Chmod(filepath.Dir(top), 0o755))
	require.NoError(t, os.Chmod(top, 0o755))
	bin := filepath.Join(top, "correx")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"HOME=" + top, "PATH=/usr/bin:/bin"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Skipf("SKIPPED: cannot run correx as nobody (%v); permission denied is checked with an injected error only (sessions)", err)
		}
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}
	unreadable := func(t *testing.T, path string) string {
		require.NoError(t, os.Chmod(path, 0o600))
		return path
	}

	// every session file of a fixture unreadable
	for name, c := range map[string]struct{ fixture, files string }{
		"Claude Code": {"testdata/claude-code/anthropic", "projects/*/*.jsonl"},
		"Codex":       {"testdata/codex/gpt-5.5/data", "sessions/*/*/*/rollout-*.jsonl"},
		"Gemini CLI":  {"testdata/gemini-cli/gemini-3.8-flash/data", "tmp/*/chats/*.jsonl tmp/*/chats/*/*.jsonl"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(top, strings.ReplaceAll(name, " ", ""))
			copyTree(t, c.fixture, dir)
			var files []string
			for _, pat := range strings.Fields(c.files) {
				m, _ := filepath.Glob(filepath.Join(dir, pat))
				files = append(files, m...)
			}
			require.NotEmpty(t, files, c.files)
			for _, f := range files {
				unreadable(t, f)
			}
			out, stderr, code := run("ls", "--source", dir)
			require.Equal(t, 1, code, out+stderr)
			named := false
			for _, f := range files {
				named = named || strings.Contains(stderr, "permission denied: "+f)
			}
			require.True(t, named, "names an unreadable file: %s", stderr)
		})
	}
	t.Run("spill", func(t *testing.T) {
		data := filepath.Join(top, "opencode")
		copyTree(t, fixture+"/data", data)
		session, call := seqCall(t, data)
		out, _, _ := correx(t, "show", "--source", data, "--session", session, "--call", call, "--json")
		spill := unreadable(t, parseSpillFacts(t, out).Truncation.SpillFound)
		out, stderr, code := run("show", "--source", data, "--session", session, "--call", call, "--json")
		require.Equal(t, 0, code, stderr)
		f := parseSpillFacts(t, out)
		require.False(t, f.SpillGone, "an unreadable spill is not gone")
		require.Equal(t, spill, f.Truncation.SpillFound)
		require.Equal(t, "permission denied: "+spill, f.SpillProblem)
	})
}
