package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

// command is one opencode invocation, as stored in record.json.
type command struct {
	Argv  []string `json:"argv"`
	Stdin string   `json:"stdin,omitempty"`
	Dir   string   `json:"dir"`
}

func opencodeEnv(l layout, f flavour) []string {
	env := baseEnv(l)
	env = append(env, "OPENCODE_DISABLE_LSP_DOWNLOAD=true")
	if f.Legacy {
		env = append(env, "OPENCODE_DISABLE_MODELS_FETCH=1")
	}
	if f.Name == "local" {
		env = append(env, "ORACLE_LOCAL_KEY=sk-local-fake-key")
	}
	if f.Wire == "bedrock" {
		env = append(env,
			"AWS_ACCESS_KEY_ID=AKIAORACLEFAKEKEY000",
			"AWS_SECRET_ACCESS_KEY=oracleFakeSecretAccessKey0000000000000000",
			"AWS_REGION=us-east-1")
	}
	env = append(env, loweringEnv(f)...)
	return env
}

var sessionIDRe = regexp.MustCompile(`"sessionID":\s*"(ses_[0-9A-Za-z]+)"`)

func recordFlavour(opt options, f flavour) (err error) {
	if f.Lowering == "v2" {
		return recordV2(opt, f)
	}
	bin, err := ensureOpencode(opt.cacheDir, f.Version)
	if err != nil {
		return err
	}
	l := newLayout(opt.home)
	prov, err := startFakeProvider(f)
	if err != nil {
		return err
	}
	defer prov.close()
	if err := setupHome(l, f, prov.baseURL()); err != nil {
		return err
	}
	mainScript, exploreScript := scripts(f, l.Proj, prov.baseURL())
	mainPrompt, followUpPrompt, explorePrompt, secondPrompt := f.prompts()
	prov.setScripts(mainScript, exploreScript)
	logDir := filepath.Join(opt.cacheDir, "logs", f.Name)
	_ = os.RemoveAll(logDir)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	logf("fake provider at %s; opencode logs in %s", prov.baseURL(), logDir)
	env := opencodeEnv(l, f)

	runArgs := []string{"run"}
	if !f.Legacy {
		runArgs = append(runArgs, "--auto")
	}
	runArgs = append(runArgs, "--format", "json", "-m", f.model())
	var cmds []command

	out1, err := runOpencodeUntil(opt, bin, l.Proj, env, runArgs, mainPrompt, filepath.Join(logDir, "run-1"), prov.interrupt)
	cmds = append(cmds, command{Argv: append([]string{"opencode"}, runArgs...), Stdin: mainPrompt, Dir: l.Proj})
	if errors.Is(err, errInterrupted) {
		logf("main run interrupted as scripted")
	} else if err != nil {
		return fmt.Errorf("main run: %w", err)
	}
	m := sessionIDRe.FindSubmatch(out1)
	if m == nil {
		return fmt.Errorf("main run printed no sessionID (see %s)", logDir)
	}
	rootID := string(m[1])
	logf("root session %s", rootID)

	followArgs := append(append([]string(nil), runArgs...), "--session", rootID)
	_, err = runOpencode(opt, bin, l.Proj, env, followArgs, followUpPrompt, filepath.Join(logDir, "run-2"))
	cmds = append(cmds, command{Argv: append([]string{"opencode"}, followArgs...), Stdin: followUpPrompt, Dir: l.Proj})
	if err != nil {
		return fmt.Errorf("follow-up run: %w", err)
	}
	if secondPrompt != "" {
		_, err = runOpencode(opt, bin, l.Proj, env, followArgs, secondPrompt, filepath.Join(logDir, "run-3"))
		cmds = append(cmds, command{Argv: append([]string{"opencode"}, followArgs...), Stdin: secondPrompt, Dir: l.Proj})
		if err != nil {
			return fmt.Errorf("second follow-up run: %w", err)
		}
	}

	sessionIDs, err := listSessions(l, f)
	if err != nil {
		return fmt.Errorf("listing sessions: %w", err)
	}
	logf("sessions: %v", sessionIDs)
	exports := map[string][]byte{}
	for _, id := range sessionIDs {
		args := []string{"export", id}
		out, err := runOpencode(opt, bin, l.Proj, env, args, "", filepath.Join(logDir, "export-"+id))
		cmds = append(cmds, command{Argv: append([]string{"opencode"}, args...), Dir: l.Proj})
		if err != nil {
			return fmt.Errorf("export %s: %w", id, err)
		}
		exports[id] = out
	}

	// Stage the fixture next to its final place, then swap it in.
	final := filepath.Join(opt.outDir, f.Name)
	stage := filepath.Join(opt.outDir, "."+f.Name+".partial")
	_ = os.RemoveAll(stage)
	if err := os.MkdirAll(filepath.Join(stage, "data"), 0o755); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(stage)
		}
	}()
	if f.Legacy {
		src := filepath.Join(l.opencodeData(), "storage")
		if err := copyTree(src, filepath.Join(stage, "data", "storage")); err != nil {
			return fmt.Errorf("copying storage: %w", err)
		}
	} else {
		if err := backupDB(filepath.Join(l.opencodeData(), "opencode.db"), filepath.Join(stage, "data", "opencode.db")); err != nil {
			return fmt.Errorf("copying opencode.db: %w", err)
		}
	}
	if err := saveConfigChain(l, stage); err != nil {
		return fmt.Errorf("copying the config files: %w", err)
	}
	spills, _ := filepath.Glob(filepath.Join(l.opencodeData(), "tool-output", "tool_*"))
	if len(spills) > 0 {
		if err := os.MkdirAll(filepath.Join(stage, "data", "tool-output"), 0o755); err != nil {
			return err
		}
		for _, s := range spills {
			if err := copyFile(s, filepath.Join(stage, "data", "tool-output", filepath.Base(s))); err != nil {
				return err
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(stage, "exports"), 0o755); err != nil {
		return err
	}
	var sessions []*sessionInfo
	for _, id := range sessionIDs {
		if err := os.WriteFile(filepath.Join(stage, "exports", id+".json"), exports[id], 0o644); err != nil {
			return err
		}
		si, err := parseExport(exports[id])
		if err != nil {
			return fmt.Errorf("export of %s: %w", id, err)
		}
		sessions = append(sessions, si)
	}

	reqs := prov.captured()
	manifest := buildManifest(reqs, sessions)
	if err := os.MkdirAll(filepath.Join(stage, "requests"), 0o755); err != nil {
		return err
	}
	for i, r := range reqs {
		if err := os.WriteFile(filepath.Join(stage, "requests", manifest[i].File), r.Body, 0o644); err != nil {
			return err
		}
	}
	if err := writeJSON(filepath.Join(stage, "requests", "manifest.json"), manifest); err != nil {
		return err
	}

	problems := append([]string{}, prov.problems...)
	problems = append(problems, checkStepCounts(manifest, sessions)...)
	if f.Lowering == "native" {
		nativeExpectations(sessions, exports)
	}
	verbatim := checkVerbatim(reqs, manifest, sessions)
	problems = append(problems, verbatim.problems...)
	logf("verbatim check: %d tool parts, %d found verbatim in their session's requests, %d re-sent in every later request",
		verbatim.parts, verbatim.found, verbatim.resent)

	rec := map[string]any{
		"opencode_version": f.Version,
		"flavour":          f.Name,
		"provider":         f.ProviderID,
		"model":            f.ModelID,
		"wire":             f.Wire,
		"lowering":         f.lowering(),
		// text_only: the model is declared without image input, which changes
		// how opencode sends images. correx's tests read it from the config
		// files stored in root/, not from here.
		"text_only":     f.Name == "openai" || f.Name == "legacy" || f.Name == "local",
		"date":          time.Now().UTC().Format(time.RFC3339),
		"recorder":      "go run ./testdata/record -flavour " + f.Name,
		"home":          l.Home,
		"project":       l.Proj,
		"data_dir":      l.opencodeData(),
		"fake_provider": prov.baseURL(),
		"env":           env,
		"opencode_json": opencodeConfig(f, prov.baseURL()),
		"scenario": map[string]any{
			"prompt":          mainPrompt,
			"follow_up":       followUpPrompt,
			"subagent_prompt": explorePrompt,
			"main_steps":      len(mainScript),
			"subagent_steps":  len(exploreScript),
		},
		"commands":     cmds,
		"root_session": rootID,
		"sessions":     sessionIDs,
		"requests":     len(reqs),
		"problems":     problems,
	}
	return finishOpencodeFixture(opt, f, stage, final, rec, manifest, sessionIDs, problems)
}

// runOpencode runs one opencode command in its own process group, with the
// prompt on stdin, and returns its stdout. Output is kept under logBase.*.
func runOpencode(opt options, bin, dir string, env, args []string, stdin, logBase string) ([]byte, error) {
	return runOpencodeUntil(opt, bin, dir, env, args, stdin, logBase, nil)
}

// noStdin as runOpencode's stdin runs the command with /dev/null there, not
// an empty pipe (which Crush reads and puts before the prompt).
const noStdin = "\x00/dev/null"

// errInterrupted is runOpencodeUntil's error when it interrupted opencode.
var errInterrupted = errors.New("interrupted by the recorder")

// runOpencodeUntil is runOpencode that, once interrupt is closed, waits two
// seconds (the tool is running) and sends SIGINT to opencode's process
// group, as Ctrl-C in a terminal does.
func runOpencodeUntil(opt options, bin, dir string, env, args []string, stdin, logBase string, interrupt <-chan struct{}) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opt.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	if stdin != noStdin {
		cmd.Stdin = strings.NewReader(stdin)
	}
	// stdout goes to a file, not a pipe: opencode (Bun) can exit before a
	// pipe is drained, which cuts `opencode export` output at 64 KiB.
	outFile, err := os.Create(logBase + ".stdout")
	if err != nil {
		return nil, err
	}
	defer outFile.Close()
	var stderr bytes.Buffer
	cmd.Stdout = outFile
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	logf("running opencode %s", strings.Join(args, " "))
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	interrupted := make(chan struct{})
	if interrupt != nil {
		go func() {
			select {
			case <-interrupt:
				time.Sleep(2 * time.Second)
				logf("  sending SIGINT to opencode")
				close(interrupted)
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
			case <-ctx.Done():
			}
		}()
	}
	err = cmd.Wait()
	if cmd.Process != nil {
		// Leftovers (a timed-out shell command, a language server) die with the group.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	_ = os.WriteFile(logBase+".stderr", stderr.Bytes(), 0o644)
	stdout, rerr := os.ReadFile(logBase + ".stdout")
	if rerr != nil {
		return nil, rerr
	}
	logf("  exited after %s: %v", time.Since(start).Round(time.Millisecond), errOrOK(err))
	if ctx.Err() != nil {
		return stdout, fmt.Errorf("timed out after %s", opt.timeout)
	}
	select {
	case <-interrupted:
		return stdout, errInterrupted
	default:
	}
	if err != nil {
		return stdout, fmt.Errorf("%v; stderr tail: %s", err, tail(stderr.String(), 1500))
	}
	return stdout, nil
}

func errOrOK(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// listSessions returns every session id in the store, oldest first.
func listSessions(l layout, f flavour) ([]string, error) {
	if f.Legacy {
		files, err := filepath.Glob(filepath.Join(l.opencodeData(), "storage", "session", "*", "ses_*.json"))
		if err != nil {
			return nil, err
		}
		type s struct {
			ID   string `json:"id"`
			Time struct {
				Created int64 `json:"created"`
			} `json:"time"`
		}
		var all []s
		for _, fn := range files {
			b, err := os.ReadFile(fn)
			if err != nil {
				return nil, err
			}
			var x s
			if err := json.Unmarshal(b, &x); err != nil {
				return nil, fmt.Errorf("%s: %w", fn, err)
			}
			all = append(all, x)
		}
		sort.Slice(all, func(i, j int) bool { return all[i].Time.Created < all[j].Time.Created })
		var ids []string
		for _, x := range all {
			ids = append(ids, x.ID)
		}
		return ids, nil
	}
	return sqliteSessions(filepath.Join(l.opencodeData(), "opencode.db"))
}

// finishOpencodeFixture publishes an opencode flavour's fixture and reports
// it (rec holds "requests").
func finishOpencodeFixture(opt options, f flavour, stage, final string, rec map[string]any, manifest []manifestEntry, sessionIDs, problems []string) error {
	size, err := publishFixture(opt, stage, final, rec)
	if err != nil {
		return err
	}
	counts := map[string]int{}
	for _, e := range manifest {
		counts[e.Kind]++
	}
	logf("%s: %d requests (%v), %d sessions, %.1f MB in %s", f.Name, rec["requests"], counts, len(sessionIDs), float64(size)/1e6, final)
	for _, p := range problems {
		warnf("%s: %s", f.Name, p)
	}
	return nil
}

// publishFixture writes record.json into the staged fixture, checks it for
// host paths and puts it in place of final; it returns the fixture's size.
func publishFixture(opt options, stage, final string, rec map[string]any) (int64, error) {
	if err := writeJSON(filepath.Join(stage, "record.json"), rec); err != nil {
		return 0, err
	}
	if err := checkNoHostPaths(stage, opt); err != nil {
		return 0, err
	}
	size, err := treeSize(stage)
	if err != nil {
		return 0, err
	}
	if err := os.RemoveAll(final); err != nil {
		return 0, err
	}
	return size, os.Rename(stage, final)
}

func writeJSON(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		return copyFile(p, target)
	})
}

func treeSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			st, err := d.Info()
			if err != nil {
				return err
			}
			n += st.Size()
		}
		return nil
	})
	return n, err
}

// checkNoHostPaths fails if any stored file mentions the build machine's
// own paths (the repository, root's home, the install cache, the host tmp).
func checkNoHostPaths(dir string, opt options) error {
	needles := []string{"/work/", "/root/", "/root\"", "/tmp/"}
	if abs, err := filepath.Abs(opt.cacheDir); err == nil {
		needles = append(needles, abs)
	}
	if wd, err := os.Getwd(); err == nil {
		needles = append(needles, wd)
	}
	if h, err := os.UserHomeDir(); err == nil && h != "/" && !strings.HasPrefix(h, neutralHome) {
		needles = append(needles, h+"/")
	}
	var found []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, n := range needles {
			for off := 0; ; {
				i := bytes.Index(b[off:], []byte(n))
				if i < 0 {
					break
				}
				i += off
				off = i + 1
				// only where the needle starts a path (not /home/user/tmp/)
				if i > 0 && isPathByte(b[i-1]) {
					continue
				}
				lo, hi := max(0, i-60), min(len(b), i+len(n)+60)
				found = append(found, fmt.Sprintf("%s: %q in …%q…", p, n, b[lo:hi]))
				break
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(found) > 0 {
		return errors.New("build-machine paths found in the fixtures:\n  " + strings.Join(found, "\n  "))
	}
	return nil
}

func isPathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-/~", c) >= 0
}
