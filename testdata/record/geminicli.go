package main

// Gemini CLI: the real `gemini -p` (npm @google/gemini-cli) against the fake
// provider's Gemini endpoints, stored under testdata/gemini-cli/<flavour>/.

import (
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
	allFlavours = append(allFlavours, flavour{Name: "gemini-cli", Version: geminiCLIVersion, ProviderID: "gemini-api-key", ModelID: "default", Wire: "gemini"})
	agentRecorders["gemini-cli"] = recordGeminiCLI
}

const geminiMainPrompt = "Please run the correx oracle scenario for Gemini CLI: exercise the tools as scripted, then summarise what happened."

// geminiScript is the scenario in Gemini CLI's own tool names.
func geminiScript(proj string) []step {
	p := func(rel string) string { return proj + "/" + rel }
	shell := func(cmd, desc string) call {
		return c("run_shell_command", J("command", cmd, "description", desc))
	}
	return []step{
		{
			Reasoning: "The user wants the scripted oracle scenario. I will read a file and run a shell command in parallel.",
			Text:      "I'll start by reading notes.txt and running a command.",
			Calls:     []call{c("read_file", J("file_path", p("notes.txt"))), shell("echo hello from shell; echo second line", "Print two lines")},
		},
		{Calls: []call{shell("echo about to fail; echo this goes to stderr 1>&2; exit 3", "Fail with exit code 3"), shell("true", "Produce no output")}},
		{Calls: []call{shell("seq 1 200000", "Print two hundred thousand lines")}},
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
		{Calls: []call{c("read_file", J("file_path", p("does-not-exist.txt")))}},
		{
			Reasoning: "Everything in the script has run; time to summarise.",
			Text:      "All done: reads, shell commands (ok, failing, silent, huge), write, edits (ok and failing), searches and a missing file.",
		},
		// follow-up prompt
		{Reasoning: "The user wants to see new.txt after the edits.", Calls: []call{c("read_file", J("file_path", p("new.txt")))}},
		{Text: "new.txt now holds alpha, BETA and gamma."},
	}
}

// geminiAnalyse reads a Gemini request: user texts, and the turn = the
// number of model contents already in `contents`.
func geminiAnalyse(wire string, doc map[string]any) conversation {
	var cv conversation
	arr := func(v any) []any { a, _ := v.([]any); return a }
	obj := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	str := func(v any) string { s, _ := v.(string); return s }
	cv.hasTools = len(arr(doc["tools"])) > 0
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
	script := geminiScript(l.Proj)
	srv, err := startCLIServer(f, script, geminiMainPrompt)
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
	if err := setupProject(l, projectFiles()); err != nil {
		return err
	}
	// The CLI puts its install path into every request (the location of
	// its bundled skills): run a copy in a user-level npm prefix.
	npmPrefix := filepath.Join(l.Home, ".npm-global")
	if err := copyTreeLinks(filepath.Join(dir, "node_modules"), filepath.Join(npmPrefix, "lib", "node_modules")); err != nil {
		return fmt.Errorf("copying gemini-cli into the home: %w", err)
	}
	js = filepath.Join(npmPrefix, "lib", "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")
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
	args := []string{js, "-p", geminiMainPrompt, "--yolo", "--output-format", "stream-json"}
	out1, err := runOpencode(opt, "node", l.Proj, env, args, "", filepath.Join(logDir, "run-1"))
	cmds = append(cmds, command{Argv: append([]string{"gemini"}, args[1:]...), Dir: l.Proj})
	if err != nil {
		return fmt.Errorf("main run: %w", err)
	}
	session := ""
	if m := geminiSessionRe.FindSubmatch(out1); m != nil {
		session = string(m[1])
	}
	args = []string{js, "-p", cliFollowUp, "--yolo", "--output-format", "stream-json", "--resume", "latest"}
	if _, err := runOpencode(opt, "node", l.Proj, env, args, "", filepath.Join(logDir, "run-2")); err != nil {
		return fmt.Errorf("follow-up run: %w", err)
	}
	cmds = append(cmds, command{Argv: append([]string{"gemini"}, args[1:]...), Dir: l.Proj})

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
	final := cliFixtureDir(opt, "gemini-cli", name)
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
	if session == "" {
		chats, _ := filepath.Glob(filepath.Join(gdir, "tmp", project, "chats", "session-*"))
		for _, ch := range chats {
			if b, err := os.ReadFile(ch); err == nil {
				var meta struct {
					SessionID string `json:"sessionId"`
				}
				line := b
				if i := strings.IndexByte(string(b), '\n'); i >= 0 {
					line = b[:i]
				}
				if json.Unmarshal(line, &meta) == nil && meta.SessionID != "" {
					session = meta.SessionID
				}
			}
		}
	}
	reqs := srv.captured()
	manifest := cliManifest(reqs, session)
	if err := writeRequests(stage, reqs, manifest); err != nil {
		return err
	}
	problems := append([]string{}, srv.problems...)
	rec := map[string]any{
		"agent":              "gemini-cli",
		"gemini_cli_version": f.Version,
		"npm_package":        "@google/gemini-cli@" + f.Version,
		"flavour":            name,
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
			"prompt":    geminiMainPrompt,
			"follow_up": cliFollowUp,
			"steps":     len(script),
		},
		"commands": cmds,
		"sessions": []string{session},
		"requests": len(reqs),
		"problems": problems,
	}
	return finishCLIFixture(opt, stage, final, rec, problems)
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
