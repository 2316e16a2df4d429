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
	for _, name := range []string{"codex", "codex-second", "codex-third"} {
		model := "gpt-5.5"
		if name == "codex-third" {
			// not among 0.171.0's bundled model presets: Codex's fallback
			// model info (its tools and truncation policy)
			model = "gpt-5.3-codex"
		}
		allFlavours = append(allFlavours, flavour{Name: name, Version: codexVersion, ProviderID: "oracle", ModelID: model, Wire: "responses"})
		agentRecorders[name] = recordCodex
	}
}

// cliFixtureDir is testdata/<agent>/<name>: beside -out's testdata/opencode.
func cliFixtureDir(opt options, agent, name string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(opt.outDir)), agent, name)
}

// cliScenario is one recording of Codex or Gemini CLI: the main prompt, the
// follow-ups each sent to a resumed session, and the script of the whole
// session (the follow-ups' turns after the main run's).
type cliScenario struct {
	suffix    string // of the fixture's folder name: "" or "-second"
	prompt    string
	followUps []string
	steps     []step
	subs      []cliScript // subagents' scripts
	// newMinute[i]: before follow-up i, wait until the clock is in another
	// minute than the run before started in (a Gemini CLI resume then
	// starts a chat file of its own; without it, the first resume starts in
	// the main run's minute)
	newMinute []bool
	model     string            // Gemini CLI: `-m`, if not the default
	files     map[string][]byte // beside projectFiles()
}

func (sc cliScenario) scripts() []cliScript {
	return append(append([]cliScript{}, sc.subs...), cliScript{name: "main", prompt: sc.prompt, alt: sc.followUps, steps: sc.steps})
}

const cliFollowUp = "One more thing: show me the final contents of new.txt."

// codexScenario is the flavour's scenario in Codex's own tool names (the
// gpt-5.5 tool set: unified exec `exec_command`, freeform `apply_patch`,
// `view_image`). Each huge output is just big enough for its kind:
// `seq 1 195000` (1,058,895 bytes) passes the 1 MiB head+tail exec
// buffer, `seq 1 12000` (50,895 bytes) only the default 10,000-token
// budget, `seq 1 3000` only `max_output_tokens: 200`. `codex exec` 0.171.0
// offers no subagent tool by default (spawn_agent is in the `collaboration`
// namespace behind `features.multi_agent_v2`), so there is no subagent.
func codexScenario(name, proj string) cliScenario {
	exec := func(cmd string, extra ...any) call {
		return c("exec_command", J(append([]any{"cmd", cmd, "workdir", proj}, extra...)...))
	}
	patch := func(body string) call { return call{Name: "apply_patch", Args: body} }
	image := func(rel string) call { return c("view_image", J("path", proj+"/"+rel)) }
	if name == "codex-third" {
		return codexThirdScenario(proj, exec, patch, image)
	}
	if name == "codex-second" {
		const prompt = "Please run the second correx oracle scenario for Codex: patch first, then look around, then summarise."
		const follow = "Last request: show other.txt again and look at the pixel once more."
		return cliScenario{suffix: "-second", prompt: prompt, followUps: []string{follow}, steps: []step{
			{Reasoning: "The second scenario starts with a patch.", Calls: []call{patch("*** Begin Patch\n*** Add File: other.txt\n+one\n+two\n*** End Patch\n")}},
			{
				Text:  "Looking at the new file, a missing image and a CRLF file at once.",
				Calls: []call{exec("cat other.txt"), image("no-such-image.png"), exec("head -n 2 crlf.txt | od -c | head -n 3")},
			},
			{Calls: []call{exec("yes correx | head -n 20000")}},
			{Calls: []call{exec("seq 1000001 1150000", "max_output_tokens", 300)}},
			{Calls: []call{exec("ls sub; ls no-such-dir; exit 7")}},
			{Reasoning: "Done with the second script.", Text: "Second scenario done: a patch, reads, a missing image, two huge outputs and a failing ls."},
			// follow-up prompt
			{Calls: []call{image("pixel.png"), exec("cat other.txt")}},
			{Text: "other.txt holds one and two; the pixel is orange."},
		}}
	}
	const prompt = "Please run the correx oracle scenario for Codex: exercise the tools as scripted, then summarise what happened."
	return cliScenario{prompt: prompt, followUps: []string{cliFollowUp}, steps: []step{
		{
			Reasoning: "The user wants the scripted oracle scenario. I will read a file, run a shell command and view an image in parallel.",
			Text:      "I'll start by reading notes.txt, running a command and viewing the pixel.",
			Calls:     []call{exec("cat notes.txt"), exec("echo hello from shell; echo second line"), image("pixel.png")},
		},
		{Calls: []call{exec("echo about to fail; echo this goes to stderr 1>&2; exit 3"), exec("true")}},
		{Calls: []call{exec("seq 1 195000")}},
		{Calls: []call{exec("seq 1 12000")}},
		{Calls: []call{exec("seq 1 3000", "max_output_tokens", 200)}},
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
			Text:      "All done: reads, an image, shell commands (ok, failing, silent, three huge ones), patches (ok and failing), searches and a missing file.",
		},
		// follow-up prompt
		{Reasoning: "The user wants to see new.txt after the edits.", Calls: []call{exec("cat new.txt")}},
		{Text: "new.txt now holds alpha, BETA and gamma."},
	}}
}

// codexCustomTools are freeform tools: their Args are the raw input text,
// sent as a custom_tool_call item.
var codexCustomTools = map[string]bool{"apply_patch": true}

// cliScript is one conversation's script, picked by its prompt: the main
// session's (its follow-ups continue the turns) or a subagent's.
type cliScript struct {
	name   string // the manifest's scenario: main, or the subagent's
	prompt string // a user text containing it selects the script
	// or, failing that, one of these (the follow-ups: a Gemini CLI resume
	// can lose the main prompt from its history)
	alt   []string
	steps []step
}

// cliServer is a fake provider for an agent that shapes its requests itself:
// it captures like fakeProvider, but finds the script and the turn with the
// agent's own analyser and answers with the agent's own streamer.
type cliServer struct {
	*fakeProvider
	scripts []cliScript // subagents' first: a subagent's prompt names no main prompt
	analyse func(wire string, doc map[string]any) conversation
	answer  func(w http.ResponseWriter, r *http.Request, c *captured, doc map[string]any, st step) bool
}

func startCLIServer(f flavour, scripts ...cliScript) (*cliServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &cliServer{fakeProvider: &fakeProvider{f: f, ln: ln}, scripts: scripts}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func (s *cliServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/page.html" {
		s.fakeProvider.ServeHTTP(w, r) // web_fetch
		return
	}
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
	if wire == "" && strings.HasSuffix(r.URL.Path, ":countTokens") {
		// Gemini CLI counts the tokens of a large tool result (an image
		// read) before it sends it
		c.Kind = "aux"
		logf("  request %03d %s %s kind=aux (countTokens)", c.Seq, r.Method, c.Path)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(J("totalTokens", len(body)/4)))
		return
	}
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
		var sc *cliScript
		for i := range s.scripts {
			for _, t := range c.conv.userTexts {
				if sc == nil && strings.Contains(t, s.scripts[i].prompt) {
					sc = &s.scripts[i]
				}
			}
		}
		for i := range s.scripts {
			for _, t := range c.conv.userTexts {
				for _, a := range s.scripts[i].alt {
					if sc == nil && strings.Contains(t, a) {
						sc = &s.scripts[i]
					}
				}
			}
		}
		switch {
		case sc == nil:
			s.problem("request %d: no script for user texts %q", c.Seq, clip(strings.Join(c.conv.userTexts, " | "), 120))
			st = step{Text: "I have nothing scripted for this."}
		case c.Turn >= len(sc.steps):
			s.problem("request %d: turn %d is past the end of the %s script (%d turns)", c.Seq, c.Turn, sc.name, len(sc.steps))
			st = step{Text: "Nothing more is scripted."}
		default:
			c.Scenario = sc.name
			st = fillPlaceholders(sc.steps[c.Turn], body, s.baseURL())
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
// returns the install dir; extra are more npm install arguments.
func ensureNpmCLI(cacheDir, dirName, pkg, version string, extra ...string) (string, error) {
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
	args := append([]string{"install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", pkg + "@" + version}, extra...)
	out, err := runQuiet(dir, "npm", args...)
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
	scen := codexScenario(f.Name, l.Proj)
	srv, err := startCLIServer(f, scen.scripts()...)
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
	args := []string{js, "exec", "--json", "--skip-git-repo-check", scen.prompt}
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
	for i, follow := range scen.followUps {
		args = []string{js, "exec", "--json", "--skip-git-repo-check", "resume", thread, follow}
		if _, err := runOpencode(opt, "node", l.Proj, env, args, "", filepath.Join(logDir, fmt.Sprintf("run-%d", i+2))); err != nil {
			return fmt.Errorf("follow-up run %d: %w", i+1, err)
		}
		cmds = append(cmds, command{Argv: append([]string{"codex"}, args[1:]...), Dir: l.Proj})
	}

	final := cliFixtureDir(opt, "codex", f.ModelID+scen.suffix)
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
	bySession := map[string]string{"main": thread}
	sessions := []string{thread}
	for i, id := range codexSubagentThreads(rollouts) {
		if i < len(scen.subs) {
			bySession[scen.subs[i].name] = id
			sessions = append(sessions, id)
		}
	}
	manifest := cliManifest(reqs, bySession)
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
		"flavour":       f.ModelID + scen.suffix,
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
			"prompt":     scen.prompt,
			"follow_ups": scen.followUps,
			"steps":      len(scen.steps),
		},
		"commands":       cmds,
		"sessions":       sessions,
		"requests":       len(reqs),
		"stored_vs_sent": map[string]int{"results": outputs, "sent_next": sent, "resent_all": resent},
		"problems":       problems,
	}
	return finishCLIFixture(opt, stage, final, rec, problems)
}

// codexSubagentThreads are the ids of the rollouts a spawned agent wrote
// (session_meta.source.subagent), in the order of their files' names.
func codexSubagentThreads(rollouts []string) []string {
	var ids []string
	for _, p := range rollouts {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		line, _, _ := bytes.Cut(b, []byte("\n"))
		var meta struct {
			Payload struct {
				ID     string `json:"id"`
				Source struct {
					Subagent json.RawMessage `json:"subagent"`
				} `json:"source"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &meta) == nil && meta.Payload.Source.Subagent != nil {
			ids = append(ids, meta.Payload.ID)
		}
	}
	return ids
}

func isDirPath(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// cliManifest maps each main request to the session of its script
// (bySession: script name -> session id); steps count per session.
func cliManifest(reqs []*captured, bySession map[string]string) []manifestEntry {
	out := manifestEntries(reqs)
	steps := map[string]int{}
	for i, r := range reqs {
		if r.Kind == "main" {
			steps[r.Scenario]++
			out[i].Session, out[i].Step = bySession[r.Scenario], steps[r.Scenario]
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
