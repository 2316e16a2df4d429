package main

// Kilo Code CLI: the real `kilo run` (npm @kilocode/cli, opencode's fork)
// against the fake provider's OpenAI Chat endpoint (an
// @ai-sdk/openai-compatible provider), stored under
// testdata/kilo/<flavour>/ in the layout of the Codex and Gemini CLI
// fixtures.

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

const (
	// kiloVersion is the npm launcher; its platform package of that
	// version is not on the registry, so the newest one there runs.
	kiloVersion       = "7.8.1"
	kiloBinaryVersion = "7.7.9"
)

func init() {
	for _, name := range []string{"kilo", "kilo-second"} {
		allFlavours = append(allFlavours, flavour{Name: name, Version: kiloVersion, ProviderID: "oracle-kilo", ModelID: "oracle-model", Wire: "chat"})
		agentRecorders[name] = recordKilo
	}
}

// kiloScenario is the flavour's scenario in Kilo's (opencode's) tool names.
// Each huge output is just over its limit: `seq 1 2100` over bash's 2,000
// lines, big.txt's 3,000 lines over read's 2,000.
func kiloScenario(name, proj string) cliScenario {
	p := func(rel string) string { return proj + "/" + rel }
	bash := func(cmd, desc string) call { return c("bash", J("command", cmd, "description", desc)) }
	read := func(rel string, extra ...any) call {
		return c("read", J(append([]any{"filePath", p(rel)}, extra...)...))
	}
	if name == "kilo-second" {
		const prompt = "Please run the second correx oracle scenario for Kilo: search, delegate, then summarise."
		const sub = "List the markdown files of the project and say how many there are."
		files := map[string][]byte{}
		scenarioFiles3(files)
		delete(files, "huge-line.txt")
		delete(files, "blob.bin")
		return cliScenario{
			suffix: "-second", prompt: prompt,
			followUps: []string{"Thanks. Now count the lines of notes.txt.", "Last one: show notes.txt once more."},
			files:     files,
			steps: []step{
				{
					Reasoning: "The second scenario starts with searches past their caps.",
					Text:      "Searching first.",
					Calls: []call{
						c("grep", J("pattern", "hit", "path", proj, "include", "*.log")),
						c("glob", J("pattern", "many/*.txt", "path", proj)),
						c("grep", J("pattern", "zzz_no_match_zzz", "path", proj)),
					},
				},
				{Calls: []call{
					bash(`printf 'emoji 🎉 ünïcödé\r\nsecond line\r\n'; printf 'no trailing newline'`, "Print unicode and CRLF"),
					read("crlf.txt"),
					read("big.txt", "offset", 2990, "limit", 5),
				}},
				{
					Reasoning: "A subagent can find the markdown files.",
					Calls:     []call{c("task", J("description", "Find markdown files", "prompt", sub, "subagent_type", "explore"))},
				},
				{Reasoning: "Done; summarise.", Text: "Second scenario done: capped searches, unicode and CRLF, a window of a file and a subagent."},
				// resume 1
				{Calls: []call{bash("wc -l notes.txt", "Count the lines")}},
				{Text: "notes.txt has 3 lines."},
				// resume 2
				{Calls: []call{read("notes.txt")}},
				{Text: "That is notes.txt."},
			},
			subs: []cliScript{{name: "explore", prompt: sub, steps: []step{
				{Reasoning: "Globbing for markdown.", Calls: []call{c("glob", J("pattern", "**/*.md", "path", proj))}},
				{Text: "There are three markdown files: AGENTS.md, README.md and sub/AGENTS.md."},
			}}},
		}
	}
	const prompt = "Please run the correx oracle scenario for Kilo: exercise the tools as scripted, then summarise what happened."
	return cliScenario{prompt: prompt, followUps: []string{cliFollowUp}, steps: []step{
		{
			Reasoning: "The user wants the scripted oracle scenario. Shell commands first: one with output, one silent, one failing.",
			Text:      "I'll start with a few shell commands.",
			Calls: []call{
				bash("echo hello from bash; echo second line", "Print two lines"),
				bash("true", "Produce no output"),
				bash("echo about to fail; echo this goes to stderr 1>&2; exit 3", "Fail with exit code 3"),
			},
		},
		{Calls: []call{bash("seq 1 2100", "Print 2,100 lines")}},
		{Calls: []call{bash(`printf '\033[31mred\033[0m plain\n'`, "Print ANSI colours")}},
		{
			Reasoning: "Now reads: a small file, a missing one, one past the line limit.",
			Calls:     []call{read("notes.txt"), read("does-not-exist.txt"), read("big.txt")},
		},
		{Calls: []call{read("pixel.png")}},
		{Text: "Creating a file.", Calls: []call{c("write", J("filePath", p("new.txt"), "content", "alpha\nbeta\ngamma\n"))}},
		{Calls: []call{
			c("edit", J("filePath", p("new.txt"), "oldString", "beta", "newString", "BETA")),
			c("edit", J("filePath", p("crlf.txt"), "oldString", "no such text", "newString", "replacement")),
		}},
		{
			Reasoning: "Everything in the script has run; time to summarise.",
			Text:      "All done: shell commands (ok, silent, failing, long, coloured), reads (ok, missing, long, an image), a write and two edits.",
		},
		// follow-up prompt
		{Reasoning: "The user wants to see new.txt after the edits.", Calls: []call{read("new.txt")}},
		{Text: "new.txt now holds alpha, BETA and gamma."},
	}}
}

// kiloConfig is ~/.config/kilo/kilo.json: the fake provider as an
// @ai-sdk/openai-compatible provider whose model takes images.
func kiloConfig(f flavour, baseURL string) map[string]any {
	m := f.model()
	return map[string]any{
		"autoupdate":  false,
		"share":       "disabled",
		"permission":  map[string]any{"*": "allow", "external_directory": "allow"},
		"model":       m,
		"small_model": m,
		"provider": map[string]any{f.ProviderID: map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Oracle OpenAI-compatible",
			"options": map[string]any{"baseURL": baseURL + "/v1", "apiKey": "sk-oracle-fake-key"},
			"models": map[string]any{f.ModelID: map[string]any{
				"name": "Oracle Model", "tool_call": true, "reasoning": false, "attachment": true,
				"modalities": map[string]any{"input": []string{"text", "image"}, "output": []string{"text"}},
				"limit":      map[string]any{"context": 200000, "output": 8192},
			}},
		}},
	}
}

func recordKilo(opt options, f flavour) (err error) {
	dir, err := ensureNpmCLI(opt.cacheDir, "npm-kilo", "@kilocode/cli", f.Version,
		// the launcher's postinstall fails for want of a 7.8.1 binary
		"--ignore-scripts", "@kilocode/cli-linux-x64@"+kiloBinaryVersion)
	if err != nil {
		return err
	}
	launcher := filepath.Join(dir, "node_modules", "@kilocode", "cli", "bin", "kilo")
	out, err := exec.Command("node", launcher, "--version").Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != kiloBinaryVersion {
		return fmt.Errorf("%s --version: %q, %v (want the %s binary)", launcher, got, err, kiloBinaryVersion)
	}
	l := newLayout(opt.home)
	scen := kiloScenario(f.Name, l.Proj)
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
	cfg := kiloConfig(f, srv.baseURL())
	cfgPath := filepath.Join(l.Config, "kilo", "kilo.json")
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o755); err != nil {
		return err
	}
	if err := writeJSON(cfgPath, cfg); err != nil {
		return err
	}
	logDir := filepath.Join(opt.cacheDir, "logs", f.Name)
	_ = os.RemoveAll(logDir)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	logf("fake provider at %s; kilo logs in %s", srv.baseURL(), logDir)
	env := append(baseEnv(l), "KILO_DISABLE_MODELS_FETCH=1", "KILO_DISABLE_SESSION_INGEST=1", "KILO_DISABLE_SHARE=1",
		"KILO_DISABLE_AUTOUPDATE=1", "KILO_DISABLE_LSP_DOWNLOAD=true")

	var cmds []command
	run := func(n int, args []string) ([]byte, error) {
		full := append([]string{launcher}, args...)
		out, err := runOpencode(opt, "node", l.Proj, env, full, "", filepath.Join(logDir, fmt.Sprintf("run-%d", n)))
		cmds = append(cmds, command{Argv: append([]string{"kilo"}, args...), Dir: l.Proj})
		return out, err
	}
	out1, err := run(1, []string{"run", "--auto", "--format", "json", scen.prompt})
	if err != nil {
		return fmt.Errorf("main run: %w", err)
	}
	m := sessionIDRe.FindSubmatch(out1)
	if m == nil {
		return fmt.Errorf("kilo run printed no sessionID (see %s)", logDir)
	}
	root := string(m[1])
	logf("root session %s", root)
	for i, follow := range scen.followUps {
		if _, err := run(i+2, []string{"run", "--auto", "--format", "json", "--session", root, follow}); err != nil {
			return fmt.Errorf("follow-up run %d: %w", i+1, err)
		}
	}

	data := filepath.Join(l.Data, "kilo")
	final := cliFixtureDir(opt, "kilo", f.ModelID+scen.suffix)
	stage := filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".partial")
	_ = os.RemoveAll(stage)
	defer func() {
		if err != nil {
			_ = os.RemoveAll(stage)
		}
	}()
	if err := os.MkdirAll(filepath.Join(stage, "data"), 0o755); err != nil {
		return err
	}
	db := filepath.Join(stage, "data", "kilo.db")
	if err := backupDB(filepath.Join(data, "kilo.db"), db); err != nil {
		return fmt.Errorf("copying kilo.db: %w", err)
	}
	if spills, _ := filepath.Glob(filepath.Join(data, "tool-output", "tool_*")); len(spills) > 0 {
		if err := os.MkdirAll(filepath.Join(stage, "data", "tool-output"), 0o755); err != nil {
			return err
		}
		for _, s := range spills {
			if err := copyFile(s, filepath.Join(stage, "data", "tool-output", filepath.Base(s))); err != nil {
				return err
			}
		}
	}
	// the config file Kilo read, where it was (the capabilities are
	// decided from it)
	dst := filepath.Join(stage, "root", cfgPath)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := copyFile(cfgPath, dst); err != nil {
		return err
	}

	sessions, err := kiloSessions(db)
	if err != nil {
		return fmt.Errorf("reading kilo.db: %w", err)
	}
	bySession := map[string]string{"main": root}
	var ids []string
	children := 0
	for _, s := range sessions {
		ids = append(ids, s.ID)
		if s.ParentID != "" && children < len(scen.subs) {
			bySession[scen.subs[children].name] = s.ID
			children++
		}
	}
	reqs := srv.captured()
	manifest := cliManifest(reqs, bySession)
	for i, r := range reqs {
		if r.Kind == "aux" && strings.Contains(string(r.Body), "title generator") {
			manifest[i].Kind = "title"
		}
	}
	if err := writeRequests(stage, reqs, manifest); err != nil {
		return err
	}
	problems := append([]string{}, srv.problems...)
	problems = append(problems, checkStepCounts(manifest, sessions)...)
	v := checkVerbatim(reqs, manifest, sessions)
	problems = append(problems, v.problems...)
	logf("verbatim check: %d tool parts, %d sent as stored, %d re-sent in every later request", v.parts, v.found, v.resent)
	rec := map[string]any{
		"agent":          "kilo",
		"kilo_version":   kiloBinaryVersion,
		"npm_package":    "@kilocode/cli@" + f.Version,
		"binary_package": "@kilocode/cli-linux-x64@" + kiloBinaryVersion,
		"flavour":        f.ModelID + scen.suffix,
		"provider":       f.ProviderID,
		"model":          f.ModelID,
		"wire":           "chat",
		"lowering":       "ai-sdk",
		"date":           time.Now().UTC().Format(time.RFC3339),
		"recorder":       "go run ./testdata/record -flavour " + f.Name,
		"home":           l.Home,
		"project":        l.Proj,
		"data_dir":       data,
		"kilo_json":      cfg,
		"fake_provider":  srv.baseURL(),
		"env":            env,
		"scenario": map[string]any{
			"prompt":     scen.prompt,
			"follow_ups": scen.followUps,
			"steps":      len(scen.steps),
		},
		"commands":       cmds,
		"root_session":   root,
		"sessions":       ids,
		"requests":       len(reqs),
		"stored_vs_sent": map[string]int{"results": v.parts, "sent_next": v.found, "resent_all": v.resent},
		"problems":       problems,
	}
	return finishCLIFixture(opt, stage, final, rec, problems)
}

// kiloSessions reads what the checks need from kilo.db (opencode's v1
// tables), sessions oldest first: the same facts parseExport takes from an
// opencode export.
func kiloSessions(path string) ([]*sessionInfo, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	ids, err := sqliteSessions(path)
	if err != nil {
		return nil, err
	}
	var out []*sessionInfo
	for _, id := range ids {
		var parent sql.NullString
		if err := db.QueryRow(`SELECT parent_id FROM session WHERE id = ?`, id).Scan(&parent); err != nil {
			return nil, err
		}
		rows, err := db.Query(`SELECT m.id, m.data, p.data FROM message m LEFT JOIN part p ON p.message_id = m.id
			WHERE m.session_id = ? ORDER BY m.time_created, m.id, p.id`, id)
		if err != nil {
			return nil, err
		}
		var last string
		type msg struct {
			Info  json.RawMessage   `json:"info"`
			Parts []json.RawMessage `json:"parts"`
		}
		var list []msg
		for rows.Next() {
			var mid, m string
			var p sql.NullString
			if err := rows.Scan(&mid, &m, &p); err != nil {
				rows.Close()
				return nil, err
			}
			if len(list) == 0 || mid != last {
				list = append(list, msg{Info: json.RawMessage(m)})
				last = mid
			}
			if p.Valid {
				list[len(list)-1].Parts = append(list[len(list)-1].Parts, json.RawMessage(p.String))
			}
		}
		rows.Close()
		b, err := json.Marshal(map[string]any{"info": map[string]any{"id": id, "parentID": parent.String}, "messages": list})
		if err != nil {
			return nil, err
		}
		si, err := parseExport(b)
		if err != nil {
			return nil, err
		}
		out = append(out, si)
	}
	return out, nil
}
