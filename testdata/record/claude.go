package main

// Claude Code: the real `claude` CLI (npm @anthropic-ai/claude-code) driven
// in print mode against a scripted fake Anthropic Messages endpoint. The
// fixture goes to testdata/claude-code/<wire>/ (beside -out's folder):
//
//	projects/…           the config dir's projects tree: transcripts,
//	                     <session>/subagents/, <session>/tool-results/
//	requests/NNN.json    every request body verbatim, manifest.json
//	record.json          version, commands, environment, sessions, checks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

const claudeVersion = "2.1.332"

// The Claude Code flavours: one scenario each, recorded into
// testdata/claude-code/<scenario dir>/; ModelID is the model Claude Code
// is told to use.
var (
	claudeFlavour         = flavour{Name: "claude-code", Version: claudeVersion, ProviderID: "anthropic", ModelID: "claude-sonnet-4-5", Wire: "anthropic"}
	claudeParallelFlavour = flavour{Name: "claude-code-parallel", Version: claudeVersion, ProviderID: "anthropic", ModelID: "claude-sonnet-5-5", Wire: "anthropic"}
	claudeProbeFlavour    = flavour{Name: "claude-code-probe", Version: claudeVersion, ProviderID: "anthropic", ModelID: "claude-opus-5", Wire: "anthropic"}
)

func init() {
	allFlavours = append(allFlavours, claudeFlavour, claudeParallelFlavour, claudeProbeFlavour)
	for _, f := range []flavour{claudeFlavour, claudeParallelFlavour, claudeProbeFlavour} {
		agentRecorders[f.Name] = recordClaude
	}
}

const claudeAPIKey = "sk-ant-oracle-fake-key"

// claudeAllowedTools are granted up front (print mode asks no questions);
// naming Glob and Grep also makes the native build offer them.
const claudeAllowedTools = "Bash,Read,Write,Edit,Glob,Grep,Agent"

// claudeScenario is one recorded Claude Code run: the main prompt, the
// prompts of the resumes that follow it (each `--resume <session>`), the
// subagent's prompt, the main conversation's turns (the resumes' at the
// end: a turn is picked by the number of assistant messages before it)
// and the subagent's.
type claudeScenario struct {
	Dir         string // testdata/claude-code/<Dir>
	Prompt      string
	FollowUps   []string
	AgentPrompt string
	Steps       []step
	Agent       []step
	Files       map[string][]byte // project files besides projectFiles()
	// PromptBlocks, when set, are the first prompt's text blocks, sent as
	// one stream-json user message on stdin (Prompt is one of them).
	PromptBlocks []string
	Allowed      string // --allowedTools; claudeAllowedTools when empty
}

func claudeScenarioOf(f flavour, proj string) claudeScenario {
	switch f.Name {
	case claudeParallelFlavour.Name:
		return claudeParallelScenario(proj)
	case claudeProbeFlavour.Name:
		return claudeProbeScenario(proj)
	}
	return claudeFirstScenario(proj)
}

func claudeCalls(proj string) (p func(string) string, bash func(cmd, desc string, extra ...any) call, read func(rel string, extra ...any) call) {
	p = func(rel string) string { return proj + "/" + rel }
	bash = func(cmd, desc string, extra ...any) call {
		return c("Bash", J(append([]any{"command", cmd, "description", desc}, extra...)...))
	}
	read = func(rel string, extra ...any) call {
		return c("Read", J(append([]any{"file_path", p(rel)}, extra...)...))
	}
	return p, bash, read
}

// claudeFirstScenario is testdata/claude-code/anthropic.
func claudeFirstScenario(proj string) claudeScenario {
	p, bash, read := claudeCalls(proj)
	sc := claudeScenario{
		Dir:         "anthropic",
		Prompt:      "Please run the correx oracle scenario for Claude Code: exercise the tools as scripted, then summarise what happened.",
		FollowUps:   []string{"One more thing: show me the final contents of new.txt."},
		AgentPrompt: "List the text files at the top of the project directory and report how many there are.",
	}
	sc.Steps = []step{
		{
			Reasoning: "The user wants the scripted oracle scenario. A read and a shell command first, in parallel.",
			Text:      "I'll start with a read and a shell command.",
			Calls: []call{
				read("notes.txt"),
				bash("echo hello from bash; echo second line", "Print two lines"),
			},
		},
		{Calls: []call{
			bash("echo about to fail; echo this goes to stderr 1>&2; exit 3", "Fail with exit code 3"),
			bash("true", "Produce no output"),
		}},
		{Calls: []call{bash("seq 1 200000", "Print two hundred thousand lines")}},
		{Calls: []call{bash("seq 1 5000; exit 2", "Fail with a long output")}},
		{Calls: []call{bash(`printf '\033[31mred\033[0m plain\n'; printf 'emoji 🎉 ünïcödé\r\nsecond line\r\n'; printf 'no trailing newline'`, "Print ANSI, unicode and CRLF")}},
		{Text: "Creating a file.", Calls: []call{c("Write", J("file_path", p("new.txt"), "content", "alpha\nbeta\ngamma\n"))}},
		{Calls: []call{
			c("Edit", J("file_path", p("new.txt"), "old_string", "beta", "new_string", "BETA")),
			c("Edit", J("file_path", p("new.txt"), "old_string", "no such text", "new_string", "replacement")),
			c("Edit", J("file_path", p("crlf.txt"), "old_string", "beta", "new_string", "BETA")),
		}},
		{
			Text: "Searching the project.",
			Calls: []call{
				c("Grep", J("pattern", "needle", "output_mode", "content", "-n", true)),
				c("Grep", J("pattern", "zzz_no_match_zzz")),
				c("Glob", J("pattern", "**/*.txt")),
				c("Glob", J("pattern", "*.nomatch", "path", proj)),
			},
		},
		{Calls: []call{
			read("does-not-exist.txt"),
			read("big.txt"),
			read("big.txt", "offset", 2990, "limit", 5),
			read("long-line.txt"),
		}},
		{Calls: []call{read("pixel.png"), read("crlf.txt"), read("empty.txt")}},
		{
			Reasoning: "A subagent can list the text files while I wait.",
			Calls:     []call{c("Agent", J("description", "Find text files", "prompt", sc.AgentPrompt, "subagent_type", "general-purpose", "run_in_background", false))},
		},
		{
			Reasoning: "Everything in the script has run; time to summarise.",
			Text:      "All done: the shell, file, search and subagent tools have each been exercised, including their failure cases.",
		},
		// follow-up prompt (--resume)
		{
			Reasoning: "The user wants to see new.txt after the edits.",
			Calls:     []call{read("new.txt")},
		},
		{Text: "new.txt now holds alpha, BETA and gamma."},
	}
	sc.Agent = []step{
		{
			Reasoning: "I'll glob for text files at the top level.",
			Calls:     []call{c("Glob", J("pattern", "*.txt", "path", proj))},
		},
		{Text: "There are several text files at the top of the project, among them notes.txt, big.txt, large.txt and crlf.txt."},
	}
	return sc
}

// claudeParallelScenario is testdata/claude-code/parallel-resume: four
// parallel calls whose results arrive out of call order (the slow Bash
// last), an image and a Read over the token cap, failing Bash and Edit,
// each spill kind just over its threshold, a subagent, and two resumes.
func claudeParallelScenario(proj string) claudeScenario {
	p, bash, read := claudeCalls(proj)
	sc := claudeScenario{
		Dir:         "parallel-resume",
		Prompt:      "Run the correx parallel-and-resume scenario: fan out, hit the size limits, delegate once, then report.",
		FollowUps:   []string{"Resumed: please write a short todo list file and fix its first item.", "Resumed again: print the todo list."},
		AgentPrompt: "Count the lines of notes.txt with a shell command and report the number.",
		Files:       map[string][]byte{"wide.txt": claudeWideFile()},
	}
	sc.Steps = []step{
		{
			Reasoning: "Four independent look-ups: a slow shell command, a read, a grep and a glob, all at once.",
			Text:      "Fanning out four calls.",
			Calls: []call{
				bash("sleep 2; echo slow shell done", "Wait, then print"),
				read("notes.txt"),
				c("Grep", J("pattern", "needle", "output_mode", "files_with_matches")),
				c("Glob", J("pattern", "src/*.py")),
			},
		},
		{Calls: []call{read("pixel.png"), read("wide.txt")}},
		{Calls: []call{bash("echo checking; ls does-not-exist.txt", "List a missing file")}},
		{Calls: []call{c("Edit", J("file_path", p("notes.txt"), "old_string", "not in the notes", "new_string", "anything"))}},
		{Calls: []call{bash("seq 1 20000", "Print twenty thousand lines")}},
		{Calls: []call{bash("seq 1 2500; exit 1", "Fail after a long output")}},
		{
			Reasoning: "A subagent can count the lines.",
			Calls:     []call{c("Agent", J("description", "Count note lines", "prompt", sc.AgentPrompt, "subagent_type", "general-purpose", "run_in_background", false))},
		},
		{Text: "Done: four parallel calls, an image, the read and shell size limits, two failures and a subagent."},
		// first resume
		{Text: "Writing the todo list.", Calls: []call{c("Write", J("file_path", p("todo.txt"), "content", "1. buy milk\n2. call home\n"))}},
		{Calls: []call{c("Edit", J("file_path", p("todo.txt"), "old_string", "buy milk", "new_string", "buy oat milk"))}},
		{Text: "todo.txt is written and its first item fixed."},
		// second resume
		{Calls: []call{bash("cat todo.txt", "Print the todo list")}},
		{Text: "The todo list has two items."},
	}
	sc.Agent = []step{
		{Calls: []call{bash("wc -l notes.txt", "Count lines")}},
		{Text: "notes.txt has 3 lines."},
	}
	return sc
}

// claudeWideFile is just over Read's 25,000-token cap: 1,000 lines of 110
// characters.
func claudeWideFile() []byte {
	var b strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&b, "wide line %04d %s\n", i, strings.Repeat("w", 95))
	}
	return []byte(b.String())
}

// ensureClaude installs @anthropic-ai/claude-code@version into the cache
// (once) and returns the platform package's native binary.
func ensureClaude(cacheDir, version string) (string, error) {
	dir := filepath.Join(cacheDir, "claude-"+version)
	if bin, err := findClaudeBinary(dir, version); err == nil {
		return bin, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", errors.New("npm is not on PATH: it is needed once to install @anthropic-ai/claude-code")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	logf("installing @anthropic-ai/claude-code@%s into %s", version, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// The wrapper declares node >= 22; the native binary needs no node.
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save",
		"--engine-strict=false", "@anthropic-ai/claude-code@"+version)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install @anthropic-ai/claude-code@%s: %v\n%s", version, err, out.String())
	}
	return findClaudeBinary(dir, version)
}

func findClaudeBinary(dir, version string) (string, error) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	bin := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code-"+runtime.GOOS+"-"+arch, "claude")
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s: %v", bin, err)
	}
	if got := strings.Fields(string(out)); len(got) == 0 || got[0] != version {
		return "", fmt.Errorf("%s reports version %q, want %s", bin, strings.TrimSpace(string(out)), version)
	}
	return bin, nil
}

// claudeProvider is the fake Anthropic endpoint for Claude Code. It picks
// the script by any user text of the conversation (Claude Code puts
// <system-reminder> blocks before the prompt).
type claudeProvider struct {
	f  flavour
	sc claudeScenario

	mu       sync.Mutex
	requests []*captured
	problems []string
	srv      *http.Server
	ln       net.Listener
}

func startClaudeProvider(f flavour, sc claudeScenario) (*claudeProvider, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &claudeProvider{f: f, sc: sc, ln: ln}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

func (p *claudeProvider) baseURL() string { return "http://" + p.ln.Addr().String() }
func (p *claudeProvider) close()          { _ = p.srv.Close() }

func (p *claudeProvider) problem(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	warnf("fake provider: %s", msg)
	p.mu.Lock()
	p.problems = append(p.problems, msg)
	p.mu.Unlock()
}

func (p *claudeProvider) captured() []*captured {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*captured(nil), p.requests...)
}

func (p *claudeProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		p.problem("unexpected %s %s", r.Method, r.URL.RequestURI())
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, string(J("input_tokens", len(body)/4)))
		return
	}
	wire, stream := wireOf(r.URL.Path, body)
	c := &captured{Method: r.Method, Path: r.URL.RequestURI(), Header: keptHeaders(r.Header), Body: body, Wire: wire}
	p.mu.Lock()
	c.Seq = len(p.requests) + 1
	p.requests = append(p.requests, c)
	p.mu.Unlock()
	if wire != "anthropic" {
		p.problem("request to unexpected endpoint %s", c.Path)
		http.NotFound(w, r)
		return
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		p.problem("request %d: body is not JSON: %v", c.Seq, err)
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	c.conv = analyze(wire, doc)
	model, _ := doc["model"].(string)
	var st step
	all := strings.Join(c.conv.userTexts, "\n")
	switch {
	case !c.conv.hasTools:
		c.Kind = "aux"
		st = step{Text: titleAnswer}
	case strings.Contains(all, p.sc.AgentPrompt):
		c.Kind, c.Scenario = "main", "agent"
	case strings.Contains(all, p.sc.Prompt):
		c.Kind, c.Scenario = "main", "main"
	default:
		c.Kind = "main"
		p.problem("request %d: no script for user texts %q", c.Seq, clip(all, 120))
		st = step{Text: "I have nothing scripted for this."}
	}
	if c.Scenario != "" {
		script := p.sc.Steps
		if c.Scenario == "agent" {
			script = p.sc.Agent
		}
		c.Turn = c.conv.assistants
		if c.Turn < len(script) {
			st = script[c.Turn]
		} else {
			p.problem("request %d: %s turn %d is past the end of its script (%d turns)", c.Seq, c.Scenario, c.Turn, len(script))
			st = step{Text: "Nothing more is scripted."}
		}
	}
	logf("  request %03d %s kind=%s scenario=%s turn=%d model=%s -> %s", c.Seq, c.Path, c.Kind, c.Scenario, c.Turn, model, st)
	if model == "" {
		model = p.f.ModelID
	}
	a := answer{step: st, ids: newIDs(p.f.Name, c), inTokens: len(body) / 4, model: model}
	if !stream {
		writeNonStream(w, wire, a)
		return
	}
	writeStream(w, wire, a)
}

// claudeConfigDir is CLAUDE_CONFIG_DIR under the neutral home.
func claudeConfigDir(l layout) string { return filepath.Join(l.Home, ".claude") }

func claudeEnv(l layout, baseURL string) []string {
	return append(baseEnv(l),
		"CLAUDE_CONFIG_DIR="+claudeConfigDir(l),
		"ANTHROPIC_BASE_URL="+baseURL,
		"ANTHROPIC_API_KEY="+claudeAPIKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
	)
}

// setupClaudeHome lays out the neutral home and the project (the scenario's
// files plus a CLAUDE.md).
func setupClaudeHome(l layout, sc claudeScenario) error {
	files := projectFiles()
	for name, b := range sc.Files {
		files[name] = b
	}
	files["CLAUDE.md"] = []byte("# Project instructions\n\nThis is the correx oracle project. Keep answers short.\n")
	return setupProject(l, files, claudeConfigDir(l))
}

var claudeSessionRe = regexp.MustCompile(`"session_id":\s*"([0-9a-f-]{36})"`)

// claudeOutDir is testdata/claude-code/<scenario dir>, beside -out's folder.
func claudeOutDir(opt options, sc claudeScenario) string {
	return filepath.Join(filepath.Dir(filepath.Clean(opt.outDir)), "claude-code", sc.Dir)
}

func recordClaude(opt options, f flavour) (err error) {
	bin, err := ensureClaude(opt.cacheDir, f.Version)
	if err != nil {
		return err
	}
	l := newLayout(opt.home)
	sc := claudeScenarioOf(f, l.Proj)
	prov, err := startClaudeProvider(f, sc)
	if err != nil {
		return err
	}
	defer prov.close()
	if err := setupClaudeHome(l, sc); err != nil {
		return err
	}
	logDir := filepath.Join(opt.cacheDir, "logs", f.Name)
	_ = os.RemoveAll(logDir)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	logf("fake provider at %s; claude logs in %s", prov.baseURL(), logDir)
	env := claudeEnv(l, prov.baseURL())
	allowed := claudeAllowedTools
	if sc.Allowed != "" {
		allowed = sc.Allowed
	}
	common := []string{"--output-format", "stream-json", "--verbose", "--model", f.ModelID, "--allowedTools", allowed}
	var cmds []command

	args1, stdin1 := append([]string{"-p", sc.Prompt}, common...), ""
	if len(sc.PromptBlocks) > 0 {
		args1 = append([]string{"-p", "--input-format", "stream-json"}, common...)
		stdin1 = claudeStreamInput(sc.PromptBlocks)
	}
	out1, err := runOpencode(opt, bin, l.Proj, env, args1, stdin1, filepath.Join(logDir, "run-1"))
	cmds = append(cmds, command{Argv: append([]string{"claude"}, args1...), Stdin: stdin1, Dir: l.Proj})
	if err != nil {
		return fmt.Errorf("main run: %w", err)
	}
	m := claudeSessionRe.FindSubmatch(out1)
	if m == nil {
		return fmt.Errorf("main run printed no session_id (see %s)", logDir)
	}
	rootID := string(m[1])
	logf("root session %s", rootID)
	var resumedIDs []string
	for i, prompt := range sc.FollowUps {
		args := append([]string{"-p", prompt, "--resume", rootID}, common...)
		out, err := runOpencode(opt, bin, l.Proj, env, args, "", filepath.Join(logDir, fmt.Sprintf("run-%d", i+2)))
		cmds = append(cmds, command{Argv: append([]string{"claude"}, args...), Dir: l.Proj})
		if err != nil {
			return fmt.Errorf("follow-up run %d: %w", i+1, err)
		}
		for _, m := range claudeSessionRe.FindAllSubmatch(out, -1) {
			resumedIDs = appendUnique(resumedIDs, string(m[1]))
		}
	}

	final := claudeOutDir(opt, sc)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return err
	}
	stage := filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".partial")
	_ = os.RemoveAll(stage)
	defer func() {
		if err != nil {
			_ = os.RemoveAll(stage)
		}
	}()
	if err := copyTree(filepath.Join(claudeConfigDir(l), "projects"), filepath.Join(stage, "projects")); err != nil {
		return fmt.Errorf("copying projects: %w", err)
	}
	trans, err := readClaudeTranscripts(filepath.Join(stage, "projects"))
	if err != nil {
		return err
	}
	reqs := prov.captured()
	manifest := claudeManifest(reqs, trans, rootID, sc.AgentPrompt)
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
	problems = append(problems, claudeCheckSteps(manifest, trans)...)
	vr := claudeCheckVerbatim(reqs, manifest, trans)
	problems = append(problems, vr.problems...)
	logf("stored vs sent: %d tool results: %d sent as stored, %d with system reminders appended (in every later request)", vr.Results, vr.Equal, vr.ReminderAppend)
	var sessionIDs []string
	for _, t := range trans {
		sessionIDs = append(sessionIDs, t.id)
	}
	rec := map[string]any{
		"agent":          "claude-code",
		"claude_version": f.Version,
		"npm_package":    "@anthropic-ai/claude-code@" + f.Version,
		"flavour":        filepath.Base(final),
		"model":          f.ModelID,
		"wire":           f.Wire,
		"date":           time.Now().UTC().Format(time.RFC3339),
		"recorder":       "go run ./testdata/record -flavour " + f.Name,
		"home":           l.Home,
		"project":        l.Proj,
		"config_dir":     claudeConfigDir(l),
		"fake_provider":  prov.baseURL(),
		"env":            env,
		"scenario": map[string]any{
			"prompt":          sc.Prompt,
			"follow_ups":      sc.FollowUps,
			"subagent_prompt": sc.AgentPrompt,
			"main_steps":      len(sc.Steps),
			"subagent_steps":  len(sc.Agent),
		},
		"commands":         cmds,
		"root_session":     rootID,
		"resumed_sessions": resumedIDs,
		"sessions":         sessionIDs,
		"requests":         len(reqs),
		"stored_vs_sent":   vr,
		"problems":         problems,
	}
	size, err := publishFixture(opt, stage, final, rec)
	if err != nil {
		return err
	}
	logf("%s: %d requests, %d transcripts, %.1f MB in %s", f.Name, len(reqs), len(trans), float64(size)/1e6, final)
	for _, p := range problems {
		warnf("%s: %s", f.Name, p)
	}
	return nil
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// claudeTranscript is what the checks need of one transcript file: the
// session (or subagent) id, its user texts, its assistant steps (distinct
// message.id) and its tool results.
type claudeTranscript struct {
	id, file  string
	userTexts []string
	steps     int
	results   []claudeResult
}

type claudeResult struct {
	ToolUseID string
	Block     map[string]any
	Step      int // assistant steps before it
}

func readClaudeTranscripts(projects string) ([]*claudeTranscript, error) {
	var files []string
	err := filepath.WalkDir(projects, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []*claudeTranscript
	for _, fn := range files {
		b, err := os.ReadFile(fn)
		if err != nil {
			return nil, err
		}
		t := &claudeTranscript{file: fn, id: strings.TrimSuffix(filepath.Base(fn), ".jsonl")}
		if strings.HasPrefix(t.id, "agent-") {
			t.id = strings.TrimPrefix(t.id, "agent-")
		}
		seen := map[string]bool{}
		for _, line := range bytes.Split(b, []byte("\n")) {
			var rec struct {
				Type    string `json:"type"`
				Message struct {
					ID      string          `json:"id"`
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(line, &rec) != nil {
				continue
			}
			switch rec.Type {
			case "assistant":
				if !seen[rec.Message.ID] {
					seen[rec.Message.ID] = true
					t.steps++
				}
			case "user":
				var s string
				if json.Unmarshal(rec.Message.Content, &s) == nil {
					t.userTexts = append(t.userTexts, s)
					continue
				}
				var blocks []map[string]any
				_ = json.Unmarshal(rec.Message.Content, &blocks)
				for _, bl := range blocks {
					switch bl["type"] {
					case "text":
						s, _ := bl["text"].(string)
						t.userTexts = append(t.userTexts, s)
					case "tool_result":
						id, _ := bl["tool_use_id"].(string)
						t.results = append(t.results, claudeResult{ToolUseID: id, Block: bl, Step: t.steps})
					}
				}
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// claudeManifest maps each request to the transcript whose user texts it
// carries, and numbers the main requests of each transcript.
func claudeManifest(reqs []*captured, trans []*claudeTranscript, rootID, agentPrompt string) []manifestEntry {
	steps := map[string]int{}
	out := manifestEntries(reqs)
	for i, r := range reqs {
		e := &out[i]
		switch r.Scenario {
		case "main":
			e.Session = rootID
		case "agent":
			for _, t := range trans {
				if t.id != rootID && len(t.userTexts) > 0 && strings.Contains(t.userTexts[0], agentPrompt) {
					e.Session = t.id
				}
			}
		}
		if e.Kind == "main" && e.Session != "" {
			steps[e.Session]++
			e.Step = steps[e.Session]
		}
	}
	return out
}

func claudeCheckSteps(manifest []manifestEntry, trans []*claudeTranscript) []string {
	var problems []string
	count := map[string]int{}
	for _, e := range manifest {
		if e.Kind == "main" {
			if e.Session == "" {
				problems = append(problems, fmt.Sprintf("request %s: main request matches no transcript", e.File))
				continue
			}
			count[e.Session]++
		}
	}
	for _, t := range trans {
		if count[t.id] != t.steps {
			problems = append(problems, fmt.Sprintf("transcript %s: %d main requests but %d assistant messages", t.id, count[t.id], t.steps))
		} else {
			logf("transcript %s: %d main requests = %d assistant messages, %d tool results", t.id, count[t.id], t.steps, len(t.results))
		}
	}
	return problems
}

// claudeVerbatim counts how the stored tool_result blocks compare with
// the blocks sent in the later requests of their transcript (cache_control
// left out): equal, equal but for system reminders Claude Code appended to
// the content, or different.
type claudeVerbatim struct {
	Results        int `json:"tool_results"`
	Equal          int `json:"equal_in_every_later_request"`
	ReminderAppend int `json:"reminders_appended"`
	problems       []string
}

func claudeCheckVerbatim(reqs []*captured, manifest []manifestEntry, trans []*claudeTranscript) claudeVerbatim {
	var res claudeVerbatim
	sent := make([]map[string]map[string]any, len(reqs))
	for i, r := range reqs {
		var doc struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal(r.Body, &doc) != nil {
			continue
		}
		sent[i] = map[string]map[string]any{}
		for _, m := range doc.Messages {
			var blocks []map[string]any
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b["type"] == "tool_result" {
					delete(b, "cache_control")
					id, _ := b["tool_use_id"].(string)
					sent[i][id] = b
				}
			}
		}
	}
	for _, t := range trans {
		for _, tr := range t.results {
			res.Results++
			want := canonical(tr.Block)
			later, equal, appended := 0, 0, 0
			for i, e := range manifest {
				if e.Kind != "main" || e.Session != t.id || e.Step <= tr.Step || sent[i] == nil {
					continue
				}
				later++
				got := sent[i][tr.ToolUseID]
				switch {
				case got == nil:
				case canonical(got) == want:
					equal++
				case remindersAppended(tr.Block, got):
					appended++
				}
			}
			switch {
			case later == 0:
				res.problems = append(res.problems, fmt.Sprintf("%s %s (step %d): no later request carries it", t.id, tr.ToolUseID, tr.Step))
			case equal == later:
				res.Equal++
			case appended == later:
				res.ReminderAppend++
			default:
				res.problems = append(res.problems, fmt.Sprintf("%s %s (step %d): of %d later requests, %d carry the stored block, %d it with reminders appended",
					t.id, tr.ToolUseID, tr.Step, later, equal, appended))
			}
		}
	}
	return res
}

// remindersAppended says whether sent is stored with <system-reminder>
// text appended to its content: to a string (after trimming its end and a
// blank line), or as further text blocks.
func remindersAppended(stored, sent map[string]any) bool {
	for k, v := range stored {
		if k != "content" && canonical(sent[k]) != canonical(v) {
			return false
		}
	}
	switch sc := stored["content"].(type) {
	case string:
		got, ok := sent["content"].(string)
		base := strings.TrimRight(sc, " \t\r\n")
		return ok && strings.HasPrefix(got, base+"\n\n<system-reminder>")
	case []any:
		got, ok := sent["content"].([]any)
		if !ok || len(got) <= len(sc) {
			return false
		}
		for i := range sc { // a text block may gain a final newline
			a, _ := sc[i].(map[string]any)
			b, _ := got[i].(map[string]any)
			at, _ := a["text"].(string)
			bt, _ := b["text"].(string)
			if a["type"] != b["type"] || strings.TrimRight(at, "\n") != strings.TrimRight(bt, "\n") {
				return false
			}
		}
		for _, b := range got[len(sc):] {
			m, _ := b.(map[string]any)
			if txt, _ := m["text"].(string); !strings.HasPrefix(txt, "<system-reminder>") {
				return false
			}
		}
		return true
	}
	return false
}

// canonical is a value as JSON with sorted keys.
func canonical(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
