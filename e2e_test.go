package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTmuxDemoSpill drives the real binary in tmux: open the demo, select
// the truncated bash call, open its spilled output, and see its last line.
func TestTmuxDemoSpill(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("SKIPPED LOUDLY: tmux is not installed (.ci/run installs it); the end-to-end TUI test did not run")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "correx")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home") // no agent data: the demo opens
	sock := filepath.Join(dir, "tmux.sock")
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	env := "env -i TERM=xterm-256color PATH=" + os.Getenv("PATH") + " HOME=" + home + " XDG_DATA_HOME=" + home + "/data "
	tmux("new-session", "-d", "-s", "e2e", "-x", "100", "-y", "30", env+bin)
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })

	screen := func() string { return tmux("capture-pane", "-p", "-t", "e2e") }
	waitFor := func(what string) string {
		deadline := time.Now().Add(10 * time.Second)
		for {
			s := screen()
			if strings.Contains(s, what) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("%q never appeared; screen:\n%s", what, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	keys := func(k ...string) { tmux(append([]string{"send-keys", "-t", "e2e"}, k...)...) }

	waitFor("DEMO")
	waitFor("Oracle scenario run")
	keys("Enter")
	waitFor("seq 1 100000")
	// The seq call is the fourth: move down until it is selected.
	keys("j", "j", "j")
	waitFor("model saw 1,999 of 100,000 lines")
	keys("o")
	// the viewer's own header: "98002" alone also shows in the Model sees pane
	waitFor("Full output of bash")
	waitFor("▌│98002")
	keys("G")
	s := waitFor("│100000") // the last line of the output, in the gutter
	if strings.Contains(s, "gone") {
		t.Fatalf("spill file reported gone:\n%s", s)
	}
}
