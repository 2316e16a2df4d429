package main

// Gemini CLI: the real `gemini -p` (npm @google/gemini-cli) against the fake
// provider's Gemini endpoints, stored under testdata/gemini-cli/<flavour>/.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

const geminiCLIVersion = "0.61.0"

func init() {
	for _, name := range []string{"gemini-cli", "gemini-cli-second", "gemini-cli-third", "gemini-cli-masked"} {
		allFlavours = append(allFlavours, flavour{Name: name, Version: geminiCLIVersion, ProviderID: "gemini-api-key", ModelID: "default", Wire: "gemini"})
		agentRecorders[name] = recordGeminiCLI
	}
}

// geminiSubPrompt is the request the main session gives the generalist
// subagent (invoke_agent); it selects the subagent's script.
const geminiSubPrompt = "List what is in the sub directory of the project and report it in one sentence."

// geminiScenario is the flavour's scenario in Gemini CLI's own tool names.
// Each huge output is just big enough for its kind: `seq 1 10000` (48,894
// characters) passes the 40,000-character shell threshold (head and tail
// shown, the whole saved in tool-outputs/); read_file shows 2,000 lines of
// big.txt's 3,000.
func geminiScenario(name, proj string) cliScenario {
	p, shell, read := geminiCalls(proj)
	if name == "gemini-cli-third" {
		return geminiThirdScenario(proj, p, shell, read)
	}
	if name == "gemini-cli-masked" {
		return geminiMaskedScenario(proj, read)
	}
	if name == "gemini-cli-second" {
		const prompt = "Please run the second correx oracle scenario for Gemini CLI: look around the project, then summarise."
		return cliScenario{
			suffix: "-second", prompt: prompt,
			followUps: otherTxtFollowUps,
			newMinute: []bool{true, true},
			steps: append([]step{
				{
					Reasoning: "The second scenario starts by listing.",
					Calls:     []call{c("list_directory", J("dir_path", proj)), c("glob", J("pattern", "*.md"))},
				},
				{Calls: []call{shell("ls no-such-dir", "List a missing directory"), shell("wc -l big.txt", "Count lines")}},
				{Calls: []call{read("long-line.txt")}},
				{Calls: []call{shell("seq 1 9000 | sed 's/^/r/'", "Print nine thousand rows")}},
				{Calls: []call{read("big.txt", "start_line", 2990)}},
				{Text: "Second scenario done: listings, a failing ls, a long line, a huge output and the end of big.txt."},
			}, otherTxtResumes(p, shell, read)...),
		}
	}
	const prompt = "Please run the correx oracle scenario for Gemini CLI: exercise the tools as scripted, then summarise what happened."
	return cliScenario{
		prompt: prompt, followUps: []string{cliFollowUp},
		subs: []cliScript{{name: "generalist", prompt: geminiSubPrompt, steps: []step{
			{Reasoning: "I will list sub/.", Calls: []call{shell("ls sub", "List sub")}},
			{Calls: []call{c("complete_task", J("result", J("response", "sub holds AGENTS.md and example.txt.")))}},
		}}},
		steps: []step{
			{
				Reasoning: "The user wants the scripted oracle scenario. I will read a file, run a shell command and read an image in parallel.",
				Text:      "I'll start by reading notes.txt, running a command and reading the pixel.",
				Calls:     []call{read("notes.txt"), shell("echo hello from shell; echo second line", "Print two lines"), read("pixel.png")},
			},
			{Calls: []call{shell("echo about to fail; echo this goes to stderr 1>&2; exit 3", "Fail with exit code 3"), shell("true", "Produce no output")}},
			{Calls: []call{shell("seq 1 10000", "Print ten thousand lines")}},
			{Calls: []call{read("big.txt")}},
			{Text: "Creating a file.", Calls: []call{c("write_file", J("file_path", p("new.txt"), "content", "alpha\nbeta\ngamma\n"))}},
			{Calls: []call{c("replace", J("file_path", p("new.txt"), "old_string", "beta", "new_string", "BETA", "instruction", "Capitalise beta."))}},
			{Calls: []call{c("replace", J("file_path", p("new.txt"), "old_string", "no such text", "new_string", "replacement", "instruction", "Replace text that is not there."))}},
			{
				Text: "Searching the project.",
				Calls: []call{
					c("grep_search", J("pattern", "needle")),
					c("glob", J("pattern", "**/*.txt")),
					c("grep_search", J("pattern", "zzz_no_match_zzz")),
				},
			},
			{Calls: []call{read("does-not-exist.txt")}},
			{Text: "Asking a subagent.", Calls: []call{c("invoke_agent", J("agent_name", "generalist", "prompt", geminiSubPrompt))}},
			{
				Reasoning: "Everything in the script has run; time to summarise.",
				Text:      "All done: reads (an image, a truncated file), shell commands (ok, failing, silent, huge), write, edits (ok and failing), searches, a missing file and a subagent.",
			},
			// follow-up prompt
			{Reasoning: "The user wants to see new.txt after the edits.", Calls: []call{read("new.txt")}},
			{Text: "new.txt now holds alpha, BETA and gamma."},
		},
	}
}

// geminiCalls are Gemini CLI's path, shell and read_file call builders
// (Qwen Code, its fork, has the same tools).
func geminiCalls(proj string) (p func(string) string, shell func(cmd, desc string) call, read func(string, ...any) call) {
	p = func(rel string) string { return proj + "/" + rel }
	shell = func(cmd, desc string) call {
		return c("run_shell_command", J("command", cmd, "description", desc))
	}
	read = func(rel string, extra ...any) call {
		return c("read_file", J(append([]any{"file_path", p(rel)}, extra...)...))
	}
	return p, shell, read
}

// otherTxtFollowUps and otherTxtResumes are the two resumes of the second
// scenarios of Gemini CLI and Qwen Code: write other.txt, then read it back
// and cat it.
var otherTxtFollowUps = []string{
	"Next: write other.txt with two lines.",
	"Last: read other.txt back, and cat it too.",
}

func otherTxtResumes(p func(string) string, shell func(cmd, desc string) call, read func(string, ...any) call) []step {
	return []step{
		// first resume
		{Calls: []call{c("write_file", J("file_path", p("other.txt"), "content", "one\ntwo\n"))}},
		{Text: "other.txt is written."},
		// second resume
		{Calls: []call{read("other.txt"), shell("cat other.txt", "Print other.txt")}},
		{Text: "other.txt holds one and two."},
	}
}

// geminiAnalyse reads a Gemini request: user texts, and the turn = the
// number of model contents already in `contents`.
func geminiAnalyse(wire string, doc map[string]any) conversation {
	var cv conversation
	arr := func(v any) []any { a, _ := v.([]any); return a }
	obj := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	str := func(v any) string { s, _ := v.(string); return s }
	// google_web_search asks the model with only {"googleSearch":{}}: a
	// side request, like the title ones
	for _, t := range arr(doc["tools"]) {
		cv.hasTools = cv.hasTools || len(arr(obj(t)["functionDeclarations"])) > 0
	}
	for _, m := range arr(doc["contents"]) {
		mm := obj(m)
		switch str(mm["role"]) {
		case "user":
			for _, p := range arr(mm["parts"]) {
				if t := str(obj(p)["text"]); t != "" {
					if cv.firstUser == "" {
						cv.firstUser = t
					}
					cv.userTexts = append(cv.userTexts, t)
				}
			}
		case "model":
			cv.assistants++
		}
	}
	return cv
}

// geminiSchemaAnswer answers a tool-less request that asks for JSON (the
// model router's {complexity_reasoning, complexity_score}, the next-speaker
// check, ...): an object that fits the schema, simple task, user speaks next.
func geminiSchemaAnswer(doc map[string]any) (string, bool) {
	gc, _ := doc["generationConfig"].(map[string]any)
	schema, _ := gc["responseJsonSchema"].(map[string]any)
	if schema == nil {
		schema, _ = gc["responseSchema"].(map[string]any)
	}
	if schema == nil {
		return "", false
	}
	props, _ := schema["properties"].(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var kv []any
	for _, k := range keys {
		p, _ := props[k].(map[string]any)
		var v any = "The task is simple."
		if enum, ok := p["enum"].([]any); ok && len(enum) > 0 {
			v = enum[0]
		} else {
			switch strings.ToLower(fmt.Sprint(p["type"])) {
			case "integer", "number":
				v = 1
			case "boolean":
				v = false
			case "array":
				v = rawJSON("[]")
			case "object":
				v = rawJSON("{}")
			}
		}
		kv = append(kv, k, v)
	}
	return string(J(kv...)), true
}

var geminiSessionRe = regexp.MustCompile(`"session_id"\s*:\s*"([0-9a-f-]{36})"`)

func recordGeminiCLI(opt options, f flavour) (err error) {
	dir, err := ensureNpmCLI(opt.cacheDir, "npm-gemini-cli", "@google/gemini-cli", f.Version)
	if err != nil {
		return err
	}
	js := filepath.Join(dir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")
	l := newLayout(opt.home)
	scen := geminiScenario(f.Name, l.Proj)
	srv, err := startCLIServer(f, scen.scripts()...)
	if err != nil {
		return err
	}
	defer srv.close()
	srv.analyse = geminiAnalyse
	var models []string
	srv.answer = func(w http.ResponseWriter, r *http.Request, c *captured, doc map[string]any, st step) bool {
		if i := strings.Index(r.URL.Path, "/models/"); i >= 0 {
			m := r.URL.Path[i+len("/models/"):]
			if j := strings.IndexByte(m, ':'); j >= 0 {
				m = m[:j]
			}
			srv.mu.Lock()
			models = append(models, m)
			srv.mu.Unlock()
		}
		if c.Kind == "main" {
			return false
		}
		if text, ok := geminiSchemaAnswer(doc); ok {
			st = step{Text: text}
		}
		a := answer{step: st, ids: newIDs(f.Name, c), inTokens: len(c.Body) / 4, model: "gemini"}
		if strings.Contains(r.URL.Path, ":streamGenerateContent") {
			writeStream(w, "gemini", a)
		} else {
			writeNonStream(w, "gemini", a)
		}
		return true
	}
	files := projectFiles()
	for k, v := range scen.files {
		files[k] = v
	}
	if err := setupProject(l, files); err != nil {
		return err
	}
	// The CLI puts its install path into every request (the location of
	// its bundled skills): run a copy in a user-level npm prefix.
	modules, err := copyIntoHome(l, dir)
	if err != nil {
		return err
	}
	js = filepath.Join(modules, "@google", "gemini-cli", "bundle", "gemini.js")
	gdir := filepath.Join(l.Home, ".gemini")
	if err := os.MkdirAll(gdir, 0o755); err != nil {
		return err
	}
	settings := `{"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},"general":{"disableAutoUpdate":true,"disableUpdateNag":true}}` + "\n"
	if err := os.WriteFile(filepath.Join(gdir, "settings.json"), []byte(settings), 0o644); err != nil {
		return err
	}
	logDir := filepath.Join(opt.cacheDir, "logs", f.Name)
	_ = os.RemoveAll(logDir)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	logf("fake provider at %s; gemini logs in %s", srv.baseURL(), logDir)
	env := append(baseEnv(l), "GEMINI_CLI_HOME="+l.Home, "GOOGLE_GEMINI_BASE_URL="+srv.baseURL(),
		"GEMINI_API_KEY=oracle-fake-gemini-key", "GEMINI_CLI_TRUST_WORKSPACE=true")

	var cmds []command
	args := []string{js, "-p", scen.prompt, "--yolo", "--output-format", "stream-json"}
	if scen.model != "" {
		args = append(args, "-m", scen.model)
	}
	if len(scen.followUps) > 0 && (len(scen.newMinute) == 0 || !scen.newMinute[0]) && time.Now().Second() > 3 {
		// the first resume is to start in the minute the chat file is
		// named for: start at the top of a minute (a run takes ~25 s)
		next := time.Now().Truncate(time.Minute).Add(time.Minute + time.Second)
		logf("waiting %s for the top of a minute", time.Until(next).Round(time.Second))
		time.Sleep(time.Until(next))
	}
	started := time.Now()
	out1, err := runOpencode(opt, "node", l.Proj, env, args, "", filepath.Join(logDir, "run-1"))
	cmds = append(cmds, command{Argv: append([]string{"gemini"}, args[1:]...), Dir: l.Proj})
	if err != nil {
		return fmt.Errorf("main run: %w", err)
	}
	session := ""
	if m := geminiSessionRe.FindSubmatch(out1); m != nil {
		session = string(m[1])
	}
	for i, follow := range scen.followUps {
		if i < len(scen.newMinute) && scen.newMinute[i] {
			next := started.Truncate(time.Minute).Add(time.Minute + time.Second)
			logf("waiting %s for another minute than the last run's", time.Until(next).Round(time.Second))
			time.Sleep(time.Until(next))
		}
		started = time.Now()
		args = []string{js, "-p", follow, "--yolo", "--output-format", "stream-json", "--resume", "latest"}
		if scen.model != "" {
			args = append(args, "-m", scen.model)
		}
		if _, err := runOpencode(opt, "node", l.Proj, env, args, "", filepath.Join(logDir, fmt.Sprintf("run-%d", i+2))); err != nil {
			return fmt.Errorf("follow-up run %d: %w", i+1, err)
		}
		cmds = append(cmds, command{Argv: append([]string{"gemini"}, args[1:]...), Dir: l.Proj})
	}

	// the project temp dirs as written: chats/ and tool-outputs/ (not
	// logs.json, shell_history or the shadow git history)
	tmps, _ := filepath.Glob(filepath.Join(gdir, "tmp", "*"))
	var project string
	for _, t := range tmps {
		if isDirPath(filepath.Join(t, "chats")) {
			project = filepath.Base(t)
		}
	}
	if project == "" {
		return fmt.Errorf("no chats/ under %s", filepath.Join(gdir, "tmp"))
	}
	name := f.ModelID
	srv.mu.Lock()
	for _, m := range models {
		if !strings.Contains(m, "lite") {
			name = m
		}
	}
	srv.mu.Unlock()
	final := cliFixtureDir(opt, "gemini-cli", name+scen.suffix)
	stage := filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".partial")
	_ = os.RemoveAll(stage)
	defer func() {
		if err != nil {
			_ = os.RemoveAll(stage)
		}
	}()
	for _, sub := range []string{"chats", "tool-outputs"} {
		src := filepath.Join(gdir, "tmp", project, sub)
		if !isDirPath(src) {
			continue
		}
		if err := copyTree(src, filepath.Join(stage, "data", "tmp", project, sub)); err != nil {
			return err
		}
	}
	if b, err := os.ReadFile(filepath.Join(gdir, "projects.json")); err == nil {
		if err := os.WriteFile(filepath.Join(stage, "data", "projects.json"), b, 0o644); err != nil {
			return err
		}
	}
	chatDir := filepath.Join(stage, "data", "tmp", project, "chats")
	chats, _ := filepath.Glob(filepath.Join(chatDir, "session-*.jsonl"))
	subChats, _ := filepath.Glob(filepath.Join(chatDir, "*", "*.jsonl"))
	if session == "" && len(chats) > 0 {
		session = geminiChatSession(chats[0])
	}
	// the main session's requests, and each subagent's (one chat file each,
	// in the order they ran)
	bySession := map[string]string{"main": session}
	for i, sc := range scen.subs {
		if i < len(subChats) {
			bySession[sc.name] = geminiChatSession(subChats[i])
		}
	}
	reqs := srv.captured()
	manifest := cliManifest(reqs, bySession)
	if err := writeRequests(stage, reqs, manifest); err != nil {
		return err
	}
	problems := append([]string{}, srv.problems...)
	check, p := geminiCheckStoredVsSent(append(chats, subChats...), reqs, manifest)
	problems = append(problems, p...)
	logf("stored-vs-sent check: %+v", check)
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, _ := filepath.Rel(stage, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	var sessionIDs []string
	for _, sc := range scen.scripts() {
		sessionIDs = append(sessionIDs, bySession[sc.name])
	}
	rec := map[string]any{
		"agent":              "gemini-cli",
		"gemini_cli_version": f.Version,
		"npm_package":        "@google/gemini-cli@" + f.Version,
		"flavour":            name + scen.suffix,
		"models":             models,
		"wire":               "gemini",
		"date":               time.Now().UTC().Format(time.RFC3339),
		"recorder":           "go run ./testdata/record -flavour " + f.Name,
		"home":               l.Home,
		"project":            l.Proj,
		"gemini_dir":         gdir,
		"project_id":         project,
		"settings_json":      settings,
		"fake_provider":      srv.baseURL(),
		"env":                env,
		"scenario": map[string]any{
			"prompt":     scen.prompt,
			"follow_ups": scen.followUps,
			"new_minute": scen.newMinute,
			"steps":      len(scen.steps),
		},
		"commands":       cmds,
		"sessions":       sessionIDs,
		"chat_files":     rel(append(chats, subChats...)),
		"requests":       len(reqs),
		"stored_vs_sent": check,
		"problems":       problems,
	}
	return finishCLIFixture(opt, stage, final, rec, problems)
}

// geminiChatSession is the sessionId of a chat file's first line.
func geminiChatSession(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	var meta struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(b, &meta)
	return meta.SessionID
}

// geminiStoredVsSent is what the check found: every functionResponse
// stored in a chat record (toolCalls[].result, in any version of the
// record) against the functionResponse with its wire id in each request of
// the session after it.
type geminiStoredVsSent struct {
	Results   int `json:"results"`    // distinct stored results (by wire id)
	SentNext  int `json:"sent_next"`  // equal to the stored one in the first request that has it
	ResentAll int `json:"resent_all"` // and in every later request
	// or in every later request as stored or masked by Gemini CLI's
	// context management (a resume's setHistory: "<tool_output_masked>")
	ResentMasked int `json:"resent_masked,omitempty"`
	MaxCopies    int `json:"max_copies"` // most copies of one result in one request
	Final        int `json:"final"`      // never sent: a subagent's complete_task, which ends its loop
}

func geminiCheckStoredVsSent(chats []string, reqs []*captured, manifest []manifestEntry) (geminiStoredVsSent, []string) {
	type result struct {
		session, tool string
		resp          json.RawMessage
	}
	stored := map[string]result{}
	var order []string
	var problems []string
	note := func(session string, rec json.RawMessage) {
		var r struct {
			ToolCalls []struct {
				Name   string `json:"name"`
				Result []struct {
					FunctionResponse *struct {
						ID       string          `json:"id"`
						Name     string          `json:"name"`
						Response json.RawMessage `json:"response"`
					} `json:"functionResponse"`
				} `json:"result"`
			} `json:"toolCalls"`
		}
		if json.Unmarshal(rec, &r) != nil {
			return
		}
		for _, tc := range r.ToolCalls {
			for _, part := range tc.Result {
				fr := part.FunctionResponse
				if fr == nil {
					continue
				}
				// a resume's rewrite gives each call its batch's results
				id := strings.TrimPrefix(fr.ID, fr.Name+"__")
				if prev, seen := stored[id]; seen {
					if !jsonEqual(prev.resp, fr.Response) {
						problems = append(problems, fmt.Sprintf("result %s: stored twice, differently", id))
					}
					continue
				}
				order = append(order, id)
				stored[id] = result{session, fr.Name, fr.Response}
			}
		}
	}
	for _, path := range chats {
		session := geminiChatSession(path)
		b, err := os.ReadFile(path)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			var top struct {
				Set struct {
					Messages []json.RawMessage `json:"messages"`
				} `json:"$set"`
			}
			if json.Unmarshal(line, &top) != nil {
				continue
			}
			note(session, line)
			for _, m := range top.Set.Messages {
				note(session, m)
			}
		}
	}
	var out geminiStoredVsSent
	out.Results = len(order)
	for _, id := range order {
		want := stored[id]
		seen, first, every, masked := 0, false, true, false
		for i, r := range reqs {
			if r.Kind != "main" || manifest[i].Session != want.session {
				continue
			}
			var doc struct {
				Contents []struct {
					Parts []struct {
						FunctionResponse *struct {
							ID       string          `json:"id"`
							Response json.RawMessage `json:"response"`
						} `json:"functionResponse"`
					} `json:"parts"`
				} `json:"contents"`
			}
			if json.Unmarshal(r.Body, &doc) != nil {
				continue
			}
			copies := 0
			for _, c := range doc.Contents {
				for _, p := range c.Parts {
					if p.FunctionResponse == nil || p.FunctionResponse.ID != id {
						continue
					}
					copies++
					same := jsonEqual(p.FunctionResponse.Response, want.resp)
					if seen == 0 {
						first = same
					}
					seen++
					if !same && seen > 1 && geminiMasked(p.FunctionResponse.Response) {
						masked = true
						continue
					}
					every = every && same
				}
			}
			out.MaxCopies = max(out.MaxCopies, copies)
		}
		switch {
		case seen == 0 && want.tool == "complete_task":
			out.Final++ // a subagent's last call: its loop ends there
		case seen == 0:
			problems = append(problems, fmt.Sprintf("result %s: never sent", id))
		case !first:
			problems = append(problems, fmt.Sprintf("result %s: not sent as stored", id))
		default:
			out.SentNext++
			switch {
			case every && masked:
				out.ResentMasked++
			case every:
				out.ResentAll++
			default:
				problems = append(problems, fmt.Sprintf("result %s: re-sent differently", id))
			}
		}
	}
	return out, problems
}

// geminiMasked says whether a function response is the form Gemini CLI's
// ToolOutputMaskingService sends instead of a big older output.
func geminiMasked(resp json.RawMessage) bool {
	var r struct {
		Output string `json:"output"`
	}
	return json.Unmarshal(resp, &r) == nil && strings.HasPrefix(r.Output, "<tool_output_masked>\n")
}

// copyIntoHome copies an npm install (dir/node_modules) into a user-level
// npm prefix in the neutral home, and returns its node_modules there: an
// agent that sends its install path then sends a user's path.
func copyIntoHome(l layout, dir string) (string, error) {
	modules := filepath.Join(l.Home, ".npm-global", "lib", "node_modules")
	if err := copyTreeLinks(filepath.Join(dir, "node_modules"), modules); err != nil {
		return "", fmt.Errorf("copying %s into the home: %w", dir, err)
	}
	return modules, nil
}

// copyTreeLinks copies a tree, recreating symlinks as they are.
func copyTreeLinks(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&os.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		}
		if err := copyFile(p, target); err != nil {
			return err
		}
		if st, err := d.Info(); err == nil {
			return os.Chmod(target, st.Mode().Perm())
		}
		return nil
	})
}
