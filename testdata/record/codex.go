package main

// Codex CLI: the real `codex exec` (npm @openai/codex) against the fake
// provider's OpenAI Responses endpoint, stored under testdata/codex/<flavour>/.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

const codexVersion = "0.171.0"

func init() {
	allFlavours = append(allFlavours, flavour{Name: "codex", Version: codexVersion, ProviderID: "oracle", ModelID: "gpt-5.5", Wire: "responses"})
	agentRecorders["codex"] = recordCodex
}

// codexFixtureDir is testdata/codex/<model>: beside -out's testdata/opencode.
func cliFixtureDir(opt options, agent, name string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(opt.outDir)), agent, name)
}

const (
	codexMainPrompt = "Please run the correx oracle scenario for Codex: exercise the tools as scripted, then summarise what happened."
	cliFollowUp     = "One more thing: show me the final contents of new.txt."
)

// codexScript is the scenario in Codex's own tool names (the gpt-5.5 tool
// set: unified exec `exec_command`, freeform `apply_patch`).
func codexScript(proj string) []step {
	exec := func(cmd string, extra ...any) call {
		return c("exec_command", J(append([]any{"cmd", cmd, "workdir", proj}, extra...)...))
	}
	patch := func(body string) call { return call{Name: "apply_patch", Args: body} }
	return []step{
		{
			Reasoning: "The user wants the scripted oracle scenario. I will read a file and run a shell command in parallel.",
			Text:      "I'll start by reading notes.txt and running a command.",
			Calls:     []call{exec("cat notes.txt"), exec("echo hello from shell; echo second line")},
		},
		{Calls: []call{exec("echo about to fail; echo this goes to stderr 1>&2; exit 3"), exec("true")}},
		{Calls: []call{exec("seq 1 200000")}},
		{Calls: []call{exec("seq 1 200000", "max_output_tokens", 500)}},
		{Text: "Creating a file with a patch.", Calls: []call{patch("*** Begin Patch\n*** Add File: new.txt\n+alpha\n+beta\n+gamma\n*** End Patch\n")}},
		{Calls: []call{patch("*** Begin Patch\n*** Update File: new.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n")}},
		{Calls: []call{patch("*** Begin Patch\n*** Update File: new.txt\n@@\n-no such line\n+replacement\n*** End Patch\n")}},
		{
			Text: "Searching the project.",
			Calls: []call{
				exec("rg -n needle"),
				exec("rg --files -g '*.txt'"),
				exec("rg -n zzz_no_match_zzz"),
			},
		},
		{Calls: []call{exec("cat does-not-exist.txt")}},
		{
			Reasoning: "Everything in the script has run; time to summarise.",
			Text:      "All done: reads, shell commands (ok, failing, silent, huge), patches (ok and failing), searches and a missing file.",
		},
		// follow-up prompt
		{Reasoning: "The user wants to see new.txt after the edits.", Calls: []call{exec("cat new.txt")}},
		{Text: "new.txt now holds alpha, BETA and gamma."},
	}
}

// codexCustomTools are freeform tools: their Args are the raw input text,
// sent as a custom_tool_call item.
var codexCustomTools = map[string]bool{"apply_patch": true}

// cliServer is a fake provider for an agent that shapes its requests itself:
// it captures like fakeProvider, but finds the script and the turn with the
// agent's own analyser and answers with the agent's own streamer.
type cliServer struct {
	*fakeProvider
	script  []step
	prompt  string // the main prompt that selects the script
	analyse func(wire string, doc map[string]any) conversation
	answer  func(w http.ResponseWriter, r *http.Request, c *captured, doc map[string]any, st step) bool
}

func startCLIServer(f flavour, script []step, prompt string) (*cliServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &cliServer{fakeProvider: &fakeProvider{f: f, ln: ln}, script: script, prompt: prompt}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func (s *cliServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		s.problem("unexpected %s %s", r.Method, r.URL.RequestURI())
		http.NotFound(w, r)
		return
	}
	body, err := readAll(r)
	if err != nil {
		s.problem("reading body of %s: %v", r.URL.RequestURI(), err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	wire, stream := wireOf(r.URL.Path, body)
	c := &captured{Method: r.Method, Path: r.URL.RequestURI(), Header: keptHeaders(r.Header), Body: body, Wire: wire}
	s.mu.Lock()
	c.Seq = len(s.requests) + 1
	s.requests = append(s.requests, c)
	s.mu.Unlock()
	if wire == "" {
		s.problem("request to unknown endpoint %s", c.Path)
		http.NotFound(w, r)
		return
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		s.problem("request %d: body is not JSON: %v", c.Seq, err)
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	c.conv = s.analyse(wire, doc)
	var st step
	if !c.conv.hasTools {
		c.Kind = "aux"
		st = step{Text: titleAnswer}
	} else {
		c.Kind = "main"
		c.Turn = c.conv.assistants
		inScript := false
		for _, t := range c.conv.userTexts {
			inScript = inScript || strings.Contains(t, s.prompt)
		}
		switch {
		case !inScript:
			s.problem("request %d: no script for user texts %q", c.Seq, clip(strings.Join(c.conv.userTexts, " | "), 120))
			st = step{Text: "I have nothing scripted for this."}
		case c.Turn >= len(s.script):
			s.problem("request %d: turn %d is past the end of the script (%d turns)", c.Seq, c.Turn, len(s.script))
			st = step{Text: "Nothing more is scripted."}
		default:
			c.Scenario = "main"
			st = s.script[c.Turn]
		}
	}
	logf("  request %03d %s %s kind=%s turn=%d -> %s", c.Seq, r.Method, c.Path, c.Kind, c.Turn, st)
	if s.answer != nil && s.answer(w, r, c, doc, st) {
		return
	}
	a := answer{step: st, ids: newIDs(s.f.Name, c), inTokens: len(body) / 4, model: s.f.ModelID}
	if !stream {
		writeNonStream(w, wire, a)
		return
	}
	writeStream(w, wire, a)
}

func readAll(r *http.Request) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(r.Body)
	return b.Bytes(), err
}

// codexAnalyse reads a Codex Responses request: the user texts, and the
// turn = the number of model responses already in `input`. A model response
// is a run of output items (reasoning, assistant message, calls) with the
// tool outputs that answer its calls; an output item that answers the last
// open call ends it.
func codexAnalyse(wire string, doc map[string]any) conversation {
	var cv conversation
	arr := func(v any) []any { a, _ := v.([]any); return a }
	obj := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	str := func(v any) string { s, _ := v.(string); return s }
	cv.hasTools = len(arr(doc["tools"])) > 0
	open := map[string]bool{} // call ids without output yet
	inStep := false
	for _, it := range arr(doc["input"]) {
		m := obj(it)
		typ, role := str(m["type"]), str(m["role"])
		switch {
		case typ == "function_call_output" || typ == "custom_tool_call_output":
			delete(open, str(m["call_id"]))
			if len(open) == 0 {
				inStep = false
			}
		case role == "assistant" || typ == "reasoning" || typ == "function_call" || typ == "custom_tool_call" || typ == "local_shell_call":
			if !inStep {
				cv.assistants++
				inStep = true
			}
			if id := str(m["call_id"]); id != "" {
				open[id] = true
			}
		case role != "":
			inStep = false
			if role != "user" {
				continue
			}
			for _, c := range arr(m["content"]) {
				if t := str(obj(c)["text"]); t != "" {
					if cv.firstUser == "" {
						cv.firstUser = t
					}
					cv.userTexts = append(cv.userTexts, t)
				}
			}
		}
	}
	return cv
}

// ensureNpmCLI installs pkg@version with npm into the cache (once) and
// returns the install dir.
func ensureNpmCLI(cacheDir, dirName, pkg, version string) (string, error) {
	dir := filepath.Join(cacheDir, dirName+"-"+version)
	manifest := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json")
	check := func() error {
		b, err := os.ReadFile(manifest)
		if err != nil {
			return err
		}
		var m struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		if m.Version != version {
			return fmt.Errorf("%s is version %q, want %s", manifest, m.Version, version)
		}
		return nil
	}
	if check() == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	logf("installing %s@%s into %s", pkg, version, dir)
	out, err := runQuiet(dir, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", pkg+"@"+version)
	if err != nil {
		return "", fmt.Errorf("npm install %s@%s: %v\n%s", pkg, version, err, out)
	}
	return dir, check()
}

func runQuiet(dir, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

func codexConfig(baseURL, modelID string) string {
	return `model = "` + modelID + `"
model_provider = "oracle"
approval_policy = "never"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.oracle]
name = "Oracle fake provider"
base_url = "` + baseURL + `/v1"
wire_api = "responses"
env_key = "ORACLE_FAKE_KEY"
request_max_retries = 0
stream_max_retries = 0
`
}

var codexThreadRe = regexp.MustCompile(`"thread_id"\s*:\s*"([0-9a-f-]{36})"`)

func recordCodex(opt options, f flavour) (err error) {
	dir, err := ensureNpmCLI(opt.cacheDir, "npm-codex", "@openai/codex", f.Version)
	if err != nil {
		return err
	}
	js := filepath.Join(dir, "node_modules", "@openai", "codex", "bin", "codex.js")
	l := newLayout(opt.home)
	codexHome := filepath.Join(l.Home, ".codex")
	script := codexScript(l.Proj)
	srv, err := startCLIServer(f, script, codexMainPrompt)
	if err != nil {
		return err
	}
	defer srv.close()
	srv.analyse = codexAnalyse
	srv.answer = func(w http.ResponseWriter, r *http.Request, c *captured, doc map[string]any, st step) bool {
		if c.Wire != "responses" {
			return false
		}
		streamResponses(w, answer{step: st, ids: newIDs(f.Name, c), inTokens: len(c.Body) / 4, model: f.ModelID}, codexCustomTools)
		return true
	}
	if err := setupProject(l, projectFiles()); err != nil {
		return err
	}
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		return err
	}
	config := codexConfig(srv.baseURL(), f.ModelID)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		return err
	}
	logDir := filepath.Join(opt.cacheDir, "logs", f.Name)
	_ = os.RemoveAll(logDir)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	logf("fake provider at %s; codex logs in %s", srv.baseURL(), logDir)
	env := append(baseEnv(l), "CODEX_HOME="+codexHome, "ORACLE_FAKE_KEY=sk-oracle-fake-key")

	var cmds []command
	args := []string{js, "exec", "--json", "--skip-git-repo-check", codexMainPrompt}
	out1, err := runOpencode(opt, "node", l.Proj, env, args, "", filepath.Join(logDir, "run-1"))
	cmds = append(cmds, command{Argv: append([]string{"codex"}, args[1:]...), Dir: l.Proj})
	if err != nil {
		return fmt.Errorf("main run: %w", err)
	}
	m := codexThreadRe.FindSubmatch(out1)
	if m == nil {
		return fmt.Errorf("codex exec printed no thread_id (see %s)", logDir)
	}
	thread := string(m[1])
	logf("thread %s", thread)
	args = []string{js, "exec", "--json", "--skip-git-repo-check", "resume", thread, cliFollowUp}
	if _, err := runOpencode(opt, "node", l.Proj, env, args, "", filepath.Join(logDir, "run-2")); err != nil {
		return fmt.Errorf("follow-up run: %w", err)
	}
	cmds = append(cmds, command{Argv: append([]string{"codex"}, args[1:]...), Dir: l.Proj})

	final := cliFixtureDir(opt, "codex", f.ModelID)
	stage := filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".partial")
	_ = os.RemoveAll(stage)
	defer func() {
		if err != nil {
			_ = os.RemoveAll(stage)
		}
	}()
	// the rollouts as written, nothing else of CODEX_HOME (SQLite indexes,
	// logs, bundled skills)
	var rollouts []string
	for _, sub := range []string{"sessions", "archived_sessions"} {
		src := filepath.Join(codexHome, sub)
		if !isDirPath(src) {
			continue
		}
		if err := copyTree(src, filepath.Join(stage, "data", sub)); err != nil {
			return err
		}
		_ = filepath.WalkDir(filepath.Join(stage, "data", sub), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rollouts = append(rollouts, p)
			}
			return nil
		})
	}
	if len(rollouts) == 0 {
		return fmt.Errorf("no rollout under %s", codexHome)
	}
	sort.Strings(rollouts)
	reqs := srv.captured()
	manifest := cliManifest(reqs, thread)
	if err := writeRequests(stage, reqs, manifest); err != nil {
		return err
	}
	problems := append([]string{}, srv.problems...)
	outputs, sent, resent, p := codexCheckVerbatim(rollouts, reqs)
	problems = append(problems, p...)
	logf("verbatim check: %d tool outputs in the rollout, %d sent verbatim next, %d re-sent in every later request", outputs, sent, resent)
	rec := map[string]any{
		"agent":         "codex",
		"codex_version": f.Version,
		"npm_package":   "@openai/codex@" + f.Version,
		"flavour":       f.ModelID,
		"model":         f.ModelID,
		"wire":          "responses",
		"date":          time.Now().UTC().Format(time.RFC3339),
		"recorder":      "go run ./testdata/record -flavour " + f.Name,
		"home":          l.Home,
		"project":       l.Proj,
		"codex_home":    codexHome,
		"config_toml":   config,
		"fake_provider": srv.baseURL(),
		"env":           env,
		"scenario": map[string]any{
			"prompt":    codexMainPrompt,
			"follow_up": cliFollowUp,
			"steps":     len(script),
		},
		"commands": cmds,
		"sessions": []string{thread},
		"requests": len(reqs),
		"verbatim": map[string]int{"outputs": outputs, "sent_next": sent, "resent_every_later": resent},
		"problems": problems,
	}
	return finishCLIFixture(opt, stage, final, rec, problems)
}

func isDirPath(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// cliManifest maps each request to the one session of the run: main
// requests are its steps in order.
func cliManifest(reqs []*captured, session string) []manifestEntry {
	out := manifestEntries(reqs)
	step := 0
	for i, r := range reqs {
		if r.Kind == "main" {
			step++
			out[i].Session, out[i].Step = session, step
		}
	}
	return out
}

func writeRequests(stage string, reqs []*captured, manifest []manifestEntry) error {
	if err := os.MkdirAll(filepath.Join(stage, "requests"), 0o755); err != nil {
		return err
	}
	for i, r := range reqs {
		if err := os.WriteFile(filepath.Join(stage, "requests", manifest[i].File), r.Body, 0o644); err != nil {
			return err
		}
	}
	return writeJSON(filepath.Join(stage, "requests", "manifest.json"), manifest)
}

func finishCLIFixture(opt options, stage, final string, rec map[string]any, problems []string) error {
	size, err := publishFixture(opt, stage, final, rec)
	if err != nil {
		return err
	}
	logf("%d requests, %.1f MB in %s", rec["requests"], float64(size)/1e6, final)
	for _, p := range problems {
		warnf("%s", p)
	}
	return nil
}

// codexCheckVerbatim compares every tool output in the rollouts with the
// output item of the same call id in the requests that follow it.
func codexCheckVerbatim(rollouts []string, reqs []*captured) (outputs, sent, resent int, problems []string) {
	stored := map[string]json.RawMessage{}
	var order []string
	for _, path := range rollouts {
		f, err := os.Open(path)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var line struct {
				Type    string `json:"type"`
				Payload struct {
					Type   string          `json:"type"`
					CallID string          `json:"call_id"`
					Output json.RawMessage `json:"output"`
				} `json:"payload"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil || line.Type != "response_item" {
				continue
			}
			if t := line.Payload.Type; t == "function_call_output" || t == "custom_tool_call_output" {
				if _, seen := stored[line.Payload.CallID]; !seen {
					order = append(order, line.Payload.CallID)
				}
				stored[line.Payload.CallID] = line.Payload.Output
			}
		}
		f.Close()
	}
	outputs = len(stored)
	for _, id := range order {
		want := stored[id]
		first, every, seenIn := false, true, 0
		for _, r := range reqs {
			var doc struct {
				Input []struct {
					Type   string          `json:"type"`
					CallID string          `json:"call_id"`
					Output json.RawMessage `json:"output"`
				} `json:"input"`
			}
			if r.Kind != "main" || json.Unmarshal(r.Body, &doc) != nil {
				continue
			}
			for _, it := range doc.Input {
				if it.CallID != id || !strings.HasSuffix(it.Type, "_output") {
					continue
				}
				seenIn++
				same := jsonEqual(it.Output, want)
				if seenIn == 1 {
					first = same
				}
				every = every && same
			}
		}
		if first {
			sent++
		} else {
			problems = append(problems, fmt.Sprintf("output of %s: not sent as stored", id))
		}
		if first && every {
			resent++
		}
	}
	return outputs, sent, resent, problems
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
