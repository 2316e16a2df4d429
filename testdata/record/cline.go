package main

// Cline CLI: the real `cline --json` (npm cline, a Bun-compiled binary)
// against the fake provider's OpenAI Chat endpoint, stored under
// testdata/cline/<flavour>/. Its resume is interactive only (`--id` opens
// the terminal UI), so the follow-up is typed into the UI on a
// pseudo-terminal made by script(1).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

const clineVersion = "3.0.65"

func init() {
	for _, name := range []string{"cline", "cline-second"} {
		// a model id with "gpt" in it: Cline then offers apply_patch
		// instead of its editor tool
		allFlavours = append(allFlavours, flavour{Name: name, Version: clineVersion, ProviderID: "openai-compatible", ModelID: "gpt-5.5", Wire: "chat"})
		agentRecorders[name] = recordCline
	}
}

// clineScenario is the flavour's scenario in Cline's tool names. Each big
// output is just big enough for its cut: `seq 1 1830` (8,043 chars) passes
// the message builder's 8,000-character send-time cut, `seq 1 10000`
// (48,894 chars) run_commands' 48,000-character stored middle cut.
func clineScenario(name, proj string) cliScenario {
	p := func(rel string) string { return proj + "/" + rel }
	read := func(rels ...string) call {
		var files []any
		for _, r := range rels {
			files = append(files, J("path", p(r)))
		}
		return c("read_files", J("files", A(files...)))
	}
	run := func(cmds ...any) call { return c("run_commands", J("commands", A(cmds...))) }
	patch := func(body string) call { return c("apply_patch", J("input", body)) }
	if name == "cline-second" {
		const prompt = "Please run the second correx oracle scenario for Cline: search, read odd files, then summarise."
		const follow = "Last request: list the sub directory and show other.txt."
		return cliScenario{suffix: "-second", prompt: prompt, followUps: []string{follow}, steps: []step{
			{
				Reasoning: "The second scenario starts with searches.",
				Text:      "Searching the project first.",
				Calls:     []call{c("search_codebase", J("queries", A("needle", "zzz_no_match_zzz")))},
			},
			{Calls: []call{
				c("read_files", J("files", A(J("path", p("crlf.txt")), J("path", p("unicode.txt")), J("path", p("big.txt"), "start_line", 2990, "end_line", 2995)))),
				run(`printf 'emoji 🎉 ünïcödé\r\nsecond line\r\n'`, "printf 'tab\\there\\001\\177 bell\\a\\n'"),
			}},
			{Calls: []call{run(`for i in $(seq 1 500); do printf 'astral 🎉 line %d ü\n' $i; done`)}},
			{Calls: []call{patch("*** Begin Patch\n*** Add File: other.txt\n+one\n+zwei ✓\n*** End Patch\n")}},
			{Calls: []call{patch("*** Begin Patch\n*** Update File: other.txt\n@@\n-no such line\n+replacement\n*** End Patch\n")}},
			{Reasoning: "Done with the second script.", Text: "Second scenario done: searches, odd files, an astral output over the send-time cut and two patches."},
			// follow-up prompt
			{Calls: []call{run("ls sub"), read("other.txt")}},
			{Text: "sub holds AGENTS.md and example.txt; other.txt holds one and zwei ✓."},
		}, files: map[string][]byte{
			"unicode.txt": []byte("ünïcödé 🎉 line\nsecond ✓ line\n"),
		}}
	}
	const prompt = "Please run the correx oracle scenario for Cline: exercise the tools as scripted, then summarise what happened."
	return cliScenario{prompt: prompt, followUps: []string{cliFollowUp}, steps: []step{
		{
			Reasoning: "The user wants the scripted oracle scenario. I will read files and run commands in parallel.",
			Text:      "I'll start by reading two files and running two commands.",
			Calls: []call{
				read("notes.txt", "sub/example.txt"),
				run("echo hello from shell; echo second line", `printf '\033[31mred\033[0m plain\n'`),
			},
		},
		{Calls: []call{run("echo about to fail; echo this goes to stderr 1>&2; exit 3", "true"), read("does-not-exist.txt")}},
		{Calls: []call{run("seq 1 1830")}},
		{Calls: []call{run("seq 1 10000")}},
		{Text: "Creating a file with a patch.", Calls: []call{patch("*** Begin Patch\n*** Add File: new.txt\n+alpha\n+beta\n+gamma\n*** End Patch\n")}},
		{Calls: []call{patch("*** Begin Patch\n*** Update File: new.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n")}},
		{
			Reasoning: "Everything in the script has run; time to summarise.",
			Text:      "All done: reads (one missing), commands (ok, failing, ANSI, two big ones) and two patches.",
		},
		// follow-up prompt
		{Reasoning: "The user wants to see new.txt after the edits.", Calls: []call{run("cat new.txt")}},
		{Text: "new.txt now holds alpha, BETA and gamma."},
	}}
}

func recordCline(opt options, f flavour) (err error) {
	dir, err := ensureNpmCLI(opt.cacheDir, "npm-cline", "cline", f.Version)
	if err != nil {
		return err
	}
	l := newLayout(opt.home)
	scen := clineScenario(f.Name, l.Proj)
	srv, err := startCLIServer(f, scen.scripts()...)
	if err != nil {
		return err
	}
	defer srv.close()
	srv.analyse = analyze
	files := projectFiles()
	for k, v := range scen.files {
		files[k] = v
	}
	if err := setupProject(l, files); err != nil {
		return err
	}
	// the binary runs from a copy in the home: no install path of the
	// build machine reaches its requests or files
	bin := filepath.Join(l.Home, ".npm-global", "bin", "cline")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(dir, "node_modules", "@cline", "cli-linux-x64", "bin", "cline"), bin); err != nil {
		return err
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		return err
	}
	logDir := filepath.Join(opt.cacheDir, "logs", f.Name)
	_ = os.RemoveAll(logDir)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	clineDir := filepath.Join(l.Home, ".cline")
	logf("fake provider at %s; cline logs in %s", srv.baseURL(), logDir)
	env := append(baseEnv(l), "CLINE_DIR="+clineDir, "CLINE_SESSION_BACKEND_MODE=local")

	var cmds []command
	authArgs := []string{"auth", "-p", "openai-compatible", "-k", "sk-oracle-fake-key", "-m", f.ModelID, "-b", srv.baseURL() + "/v1"}
	if _, err := runOpencode(opt, bin, l.Proj, env, authArgs, "", filepath.Join(logDir, "auth")); err != nil {
		return fmt.Errorf("cline auth: %w", err)
	}
	cmds = append(cmds, command{Argv: append([]string{"cline"}, authArgs...), Dir: l.Proj})
	args := []string{"--json", scen.prompt}
	if _, err := runOpencode(opt, bin, l.Proj, env, args, "", filepath.Join(logDir, "run-1")); err != nil {
		return fmt.Errorf("main run: %w", err)
	}
	cmds = append(cmds, command{Argv: append([]string{"cline"}, args...), Dir: l.Proj})
	sessDir := filepath.Join(clineDir, "data", "sessions")
	ids, _ := filepath.Glob(filepath.Join(sessDir, "*", "*.messages.json"))
	if len(ids) != 1 {
		return fmt.Errorf("want one session under %s after the main run, found %d", sessDir, len(ids))
	}
	session := strings.TrimSuffix(filepath.Base(ids[0]), ".messages.json")
	logf("session %s", session)
	for i, follow := range scen.followUps {
		// each follow-up's two turns (a call, an answer) end the script:
		// wait for the last of this one's
		last := len(scen.steps) - (len(scen.followUps)-i-1)*2
		if err := clineTypeFollowUp(opt, bin, l.Proj, env, session, follow, srv, last, filepath.Join(logDir, fmt.Sprintf("run-%d", i+2))); err != nil {
			return fmt.Errorf("follow-up %d: %w", i+1, err)
		}
		cmds = append(cmds, command{Argv: []string{"cline", "--id", session}, Dir: l.Proj})
	}

	final := cliFixtureDir(opt, "cline", f.Name)
	stage := filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".partial")
	_ = os.RemoveAll(stage)
	defer func() {
		if err != nil {
			_ = os.RemoveAll(stage)
		}
	}()
	// the session files as written (no logs, caches, databases or
	// checkpoint scratch)
	if err := copyTree(filepath.Join(sessDir, session), filepath.Join(stage, "data", "data", "sessions", session)); err != nil {
		return err
	}
	reqs := srv.captured()
	manifest := cliManifest(reqs, map[string]string{"main": session})
	if err := writeRequests(stage, reqs, manifest); err != nil {
		return err
	}
	problems := append([]string{}, srv.problems...)
	check, p := clineCheckStoredVsSent(filepath.Join(stage, "data", "data", "sessions", session, session+".messages.json"), reqs)
	problems = append(problems, p...)
	logf("stored-vs-sent check: %+v", check)
	rec := map[string]any{
		"agent":         "cline",
		"cline_version": f.Version,
		"npm_package":   "cline@" + f.Version,
		"flavour":       f.Name,
		"model":         f.ModelID,
		"wire":          "chat",
		"date":          time.Now().UTC().Format(time.RFC3339),
		"recorder":      "go run ./testdata/record -flavour " + f.Name,
		"home":          l.Home,
		"project":       l.Proj,
		"cline_dir":     clineDir,
		"fake_provider": srv.baseURL(),
		"env":           env,
		"scenario": map[string]any{
			"prompt":     scen.prompt,
			"follow_ups": scen.followUps,
			"steps":      len(scen.steps),
		},
		"commands":       cmds,
		"sessions":       []string{session},
		"requests":       len(reqs),
		"stored_vs_sent": check,
		"problems":       problems,
	}
	return finishCLIFixture(opt, stage, final, rec, problems)
}

// clineTypeFollowUp resumes session in Cline's terminal UI on a
// pseudo-terminal (script -qfc), types the follow-up once the UI is up,
// waits until the fake provider answered the script's last turn (lastTurn
// main requests in all) and the session file settled, then quits. The
// screen is kept in logBase.screen.
func clineTypeFollowUp(opt options, bin, dir string, env []string, session, text string, srv *cliServer, lastTurn int, logBase string) error {
	ctx, cancel := context.WithTimeout(context.Background(), opt.timeout)
	defer cancel()
	inner := "stty cols 120 rows 40; exec " + bin + " --id " + session
	cmd := exec.CommandContext(ctx, "script", "-qfc", inner, "/dev/null")
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, env...), "TERM=xterm-256color")
	for i, e := range cmd.Env {
		if e == "TERM=dumb" {
			cmd.Env[i] = "TERM=xterm-256color"
		}
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	var screen lockedBuffer
	cmd.Stdout, cmd.Stderr = &screen, &screen
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	logf("running cline --id %s in a pseudo-terminal", session)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	finish := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		_ = os.WriteFile(logBase+".screen", screen.Bytes(), 0o644)
	}
	wait := func(what string, ok func() bool) error {
		for !ok() {
			select {
			case err := <-done:
				done <- err
				return fmt.Errorf("cline exited while waiting for %s: %v (screen in %s.screen)", what, err, logBase)
			case <-ctx.Done():
				return fmt.Errorf("timed out waiting for %s", what)
			case <-time.After(200 * time.Millisecond):
			}
		}
		return nil
	}
	// the UI is up once it has drawn for a while and gone quiet
	if err := wait("the terminal UI", func() bool { return screen.Len() > 0 && screen.quietFor() > 3*time.Second }); err != nil {
		finish()
		return err
	}
	before := srv.mainRequests()
	for _, r := range text {
		if _, err := io.WriteString(stdin, string(r)); err != nil {
			finish()
			return err
		}
		time.Sleep(15 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	if _, err := io.WriteString(stdin, "\r"); err != nil {
		finish()
		return err
	}
	if err := wait("the follow-up's requests", func() bool { return srv.mainRequests() >= before+1 && srv.lastTurnServed(lastTurn) }); err != nil {
		finish()
		return err
	}
	// the answer is written to the session file after it streamed
	time.Sleep(3 * time.Second)
	if err := wait("the UI to settle", func() bool { return screen.quietFor() > 2*time.Second }); err != nil {
		finish()
		return err
	}
	finish()
	return nil
}

// mainRequests counts the scripted requests served so far.
func (s *cliServer) mainRequests() int {
	n := 0
	for _, r := range s.captured() {
		if r.Kind == "main" {
			n++
		}
	}
	return n
}

// lastTurnServed says whether a request of turn n-1 (the script's last
// step, 0-based) was served.
func (s *cliServer) lastTurnServed(n int) bool {
	for _, r := range s.captured() {
		if r.Kind == "main" && r.Turn == n-1 {
			return true
		}
	}
	return false
}

// lockedBuffer collects a process's output from several goroutines and
// says how long it has been quiet.
type lockedBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	last time.Time
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = time.Now()
	return l.b.Write(p)
}

func (l *lockedBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Len()
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]byte(nil), l.b.Bytes()...)
}

func (l *lockedBuffer) quietFor() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return time.Since(l.last)
}

// clineStoredVsSent is what the check found: every tool_result stored in
// messages.json against the tool message of its id in each request after
// it, once Cline's send-time cut is applied (clineSent).
type clineStoredVsSent struct {
	Results   int `json:"results"`
	SentNext  int `json:"sent_next"`
	ResentAll int `json:"resent_all"`
	Cut       int `json:"cut_when_sent"` // results over the send-time cut
}

func clineCheckStoredVsSent(messagesFile string, reqs []*captured) (clineStoredVsSent, []string) {
	var out clineStoredVsSent
	var problems []string
	b, err := os.ReadFile(messagesFile)
	if err != nil {
		return out, []string{err.Error()}
	}
	var doc struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return out, []string{messagesFile + ": " + err.Error()}
	}
	stored := map[string]string{}
	var order []string
	for _, m := range doc.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, bl := range blocks {
			if bl.Type != "tool_result" {
				continue
			}
			order = append(order, bl.ToolUseID)
			stored[bl.ToolUseID] = clineExpectedSent(bl.Content)
		}
	}
	out.Results = len(order)
	for _, id := range order {
		want := stored[id]
		seen, first, every, cut := 0, false, true, false
		for _, r := range reqs {
			if r.Kind != "main" {
				continue
			}
			var body struct {
				Messages []struct {
					Role       string `json:"role"`
					ToolCallID string `json:"tool_call_id"`
					Content    any    `json:"content"`
				} `json:"messages"`
			}
			if json.Unmarshal(r.Body, &body) != nil {
				continue
			}
			for _, m := range body.Messages {
				if m.Role != "tool" || m.ToolCallID != id {
					continue
				}
				s, _ := m.Content.(string)
				same := s == want
				if seen == 0 {
					first = same
					cut = strings.Contains(s, "...[truncated ")
				}
				seen++
				every = every && same
			}
		}
		switch {
		case seen == 0:
			problems = append(problems, fmt.Sprintf("result %s: never sent", id))
		case !first:
			problems = append(problems, fmt.Sprintf("result %s: not sent as the recorder expects from the store", id))
		default:
			out.SentNext++
			if every {
				out.ResentAll++
			} else {
				problems = append(problems, fmt.Sprintf("result %s: re-sent differently", id))
			}
		}
		if cut {
			out.Cut++
		}
	}
	sort.Strings(problems)
	return out, problems
}

// clineExpectedSent is the recorder's own, independent guess at what Cline
// sent for a stored tool_result content: node's JSON.stringify after the
// send-time cut, computed by node itself.
func clineExpectedSent(content json.RawMessage) string {
	const js = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{` +
		`const M=8000,Q=n=>'\n\n...[truncated '+n+' chars]...\n\n';` +
		`const H=x=>{if(x.length<=M)return x;const J=Q(x.length-M),X=Math.max(0,Math.floor((M-J.length)/2)),W=Math.max(0,x.length-X*2),Y=Q(W),j=Math.max(0,Math.floor((M-Y.length)/2));return x.slice(0,j)+Y+(j>0?x.slice(-j):'')};` +
		`const T=v=>typeof v==='string'?H(v):Array.isArray(v)?v.map(T):v&&typeof v==='object'?Object.fromEntries(Object.entries(v).map(([k,x])=>[k,T(x)])):v;` +
		`const c=JSON.parse(s);process.stdout.write(typeof c==='string'?H(c):JSON.stringify(T(c)))})`
	cmd := exec.Command("node", "-e", js)
	cmd.Stdin = bytes.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		return "node failed: " + err.Error()
	}
	return string(out)
}
