package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tmuxRun is the real binary running in a tmux pane, in an empty HOME (so
// the demo opens) and its own TMPDIR.
type tmuxRun struct {
	t          *testing.T
	sock, tmp  string
	bin, shell string // the binary, and the pane's command line before it
}

// startTmux builds correx and runs it in tmux; before, when not empty, is
// a shell command run in the pane first, after one run after correx ends.
func startTmux(t *testing.T, before, after string) *tmuxRun {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("SKIPPED LOUDLY: tmux is not installed (.ci/run installs it); the end-to-end TUI test did not run")
	}
	dir := t.TempDir()
	r := &tmuxRun{t: t, sock: filepath.Join(dir, "tmux.sock"), tmp: filepath.Join(dir, "tmp"), bin: filepath.Join(dir, "correx")}
	if out, err := exec.Command("go", "build", "-o", r.bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	if err := os.Mkdir(r.tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home") // no agent data: the demo opens
	env := "env -i TERM=xterm-256color PATH=" + os.Getenv("PATH") + " HOME=" + home + " XDG_DATA_HOME=" + home + "/data TMPDIR=" + r.tmp + " "
	cmd := env + r.bin
	if before != "" || after != "" {
		cmd = fmt.Sprintf("sh -c %q", before+"; exec "+env+"sh -c '"+r.bin+"; "+after+"'")
	}
	r.tmux("new-session", "-d", "-s", "e2e", "-x", "100", "-y", "30", cmd)
	t.Cleanup(func() { exec.Command("tmux", "-S", r.sock, "kill-server").Run() })
	return r
}

func (r *tmuxRun) tmux(args ...string) string {
	r.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", r.sock}, args...)...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (r *tmuxRun) screen() string { return r.tmux("capture-pane", "-p", "-t", "e2e") }

func (r *tmuxRun) keys(k ...string) { r.tmux(append([]string{"send-keys", "-t", "e2e"}, k...)...) }

// display is a tmux format of the pane, such as #{pane_title}.
func (r *tmuxRun) display(format string) string {
	return strings.TrimSpace(r.tmux("display-message", "-p", "-t", "e2e", format))
}

// eventually waits up to 10 seconds for ok, and fails with what otherwise.
func (r *tmuxRun) eventually(ok func() bool, what func() string) {
	r.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			r.t.Fatal(what())
		}
	}
}

func (r *tmuxRun) waitFor(what string) string {
	r.t.Helper()
	var s string
	r.eventually(func() bool { s = r.screen(); return strings.Contains(s, what) },
		func() string { return fmt.Sprintf("%q never appeared; screen:\n%s", what, s) })
	return s
}

// TestTmuxDemoSpill drives the real binary in tmux: open the demo, select
// the truncated bash call, open its spilled output, and see its last line.
func TestTmuxDemoSpill(t *testing.T) {
	r := startTmux(t, "", "")
	r.waitFor("DEMO")
	r.waitFor("Oracle scenario run")
	r.keys("Enter")
	r.waitFor("seq 1 100000")
	// The seq call is the fourth: move down until it is selected.
	r.keys("j", "j", "j")
	r.waitFor("model saw 1,999 of 100,000 lines")
	r.keys("o")
	// the viewer's own header: "98002" alone also shows in the Model sees pane
	r.waitFor("Full output of bash")
	r.waitFor("▌│98002")
	r.keys("G")
	s := r.waitFor("│100000") // the last line of the output, in the gutter
	if strings.Contains(s, "gone") {
		t.Fatalf("spill file reported gone:\n%s", s)
	}
}

// TestTmuxQuitRestoresTitle: correx titles the window while it runs and
// gives the terminal its own title back when it ends.
func TestTmuxQuitRestoresTitle(t *testing.T) {
	r := startTmux(t, `printf '\033]2;before correx\033\\'`, "sleep 60")
	r.waitFor("DEMO")
	r.eventually(func() bool { return r.display("#{pane_title}") == "correx" },
		func() string { return "title while running: " + r.display("#{pane_title}") })
	r.keys("q")
	r.eventually(func() bool { return r.display("#{pane_title}") == "before correx" },
		func() string { return "title after quitting: " + r.display("#{pane_title}") })
}

// TestTmuxHangupRemovesTempFiles: whichever way correx ends (the terminal
// closed, killed, quit, ctrl+c) it leaves no temporary file behind, after
// making some: the demo's copy and the Request and Compare panes' spool
// directory.
func TestTmuxHangupRemovesTempFiles(t *testing.T) {
	for _, way := range []string{"hangup", "sigterm", "quit", "ctrl+c"} {
		t.Run(way, func(t *testing.T) {
			r := startTmux(t, "", "")
			r.waitFor("Oracle scenario run")
			pid, err := strconv.Atoi(r.display("#{pane_pid}"))
			if err != nil {
				t.Fatal(err)
			}
			r.keys("Enter")
			r.waitFor("seq 1 100000")
			r.keys("j", "j", "j")
			r.waitFor("model saw 1,999 of 100,000 lines")
			r.keys("4")
			r.waitFor("Request 1–")
			r.keys("5")
			r.waitFor("rows differ")
			// the spool directory (its files, under 4 MB here, are read back and removed at once)
			spools, _ := filepath.Glob(filepath.Join(r.tmp, "correx-spool-*"))
			demos, _ := filepath.Glob(filepath.Join(r.tmp, "correx-demo-*"))
			if len(spools) == 0 || len(demos) == 0 {
				t.Fatalf("no temporary files to remove: spools %v, demo %v", spools, demos)
			}
			switch way {
			case "hangup":
				r.tmux("kill-session", "-t", "e2e")
			case "sigterm":
				syscall.Kill(pid, syscall.SIGTERM)
			case "quit":
				r.keys("q")
			case "ctrl+c":
				r.keys("C-c")
			}
			r.eventually(func() bool { return exited(pid) }, func() string { return "correx did not end" })
			left, _ := filepath.Glob(filepath.Join(r.tmp, "*"))
			if len(left) > 0 {
				t.Fatalf("temporary files left: %v", left)
			}
		})
	}
}

// exited reports whether process pid has ended (gone, or a zombie).
func exited(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) == 0 || f[0] == "Z"
}
