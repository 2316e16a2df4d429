package main

// Crush: the real `crush run` (github.com/charmbracelet/crush, built from
// its tagged source: the npm package's launcher downloads the binary from
// GitHub releases) against the fake provider's OpenAI Chat endpoint (an
// openai-compat provider), stored under testdata/crush/<flavour>/.

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

const crushVersion = "0.90.0"

var (
	crushBin = flag.String("crush-bin", "", "Crush binary to record with (default: built from -crush-src into the cache)")
	crushSrc = flag.String("crush-src", "", "Crush source tree (git archive of tag v"+crushVersion+") to build the binary from, once")
)

func init() {
	for _, name := range []string{"crush", "crush-second"} {
		allFlavours = append(allFlavours, flavour{Name: name, Version: crushVersion, ProviderID: "oracle", ModelID: "oracle-model", Wire: "chat"})
		agentRecorders[name] = recordCrush
	}
}

// crushSubPrompt is the task the main session gives the `agent` tool; it
// selects the sub-agent's script.
const crushSubPrompt = "List the files in the sub directory of the project and report them in one sentence."

// crushScenario is the flavour's scenario in Crush's tool names. The huge
// output, `seq 1 8000` (30,893 columns without its newlines), is just over
// bash's 30,000-column middle cut.
func crushScenario(name, proj string) cliScenario {
	p := func(rel string) string { return proj + "/" + rel }
	bash := func(cmd, desc string) call { return c("bash", J("command", cmd, "description", desc)) }
	view := func(rel string) call { return c("view", J("file_path", p(rel))) }
	if name == "crush-second" {
		const prompt = "Please run the second correx oracle scenario for Crush: search the project, then summarise."
		return cliScenario{
			suffix: "-second", prompt: prompt,
			followUps: []string{"Next: write other.txt with two lines.", "Last: read other.txt back, and cat it too."},
			subs: []cliScript{{name: "task", prompt: crushSubPrompt, steps: []step{
				{Reasoning: "I will list sub/.", Calls: []call{c("ls", J("path", p("sub")))}},
				{Text: "sub holds AGENTS.md and example.txt."},
			}}},
			steps: []step{
				{
					Reasoning: "The second scenario starts by searching.",
					Text:      "Searching for the needle and the text files.",
					Calls:     []call{c("grep", J("pattern", "needle")), c("glob", J("pattern", "**/*.txt")), c("grep", J("pattern", "zzz_no_match_zzz"))},
				},
				{Calls: []call{bash("ls no-such-dir", "List a missing directory")}},
				{Calls: []call{view("crlf.txt"), bash(`printf 'caf\303\251 \342\234\223 \344\275\240\345\245\275\r\nsecond\r\n'`, "Print CRLF and non-ASCII")}},
				{Text: "Asking a sub-agent.", Calls: []call{c("agent", J("prompt", crushSubPrompt))}},
				{Reasoning: "Everything in the script has run.", Text: "Second scenario done: searches, a failing ls, CRLF and non-ASCII output, and a sub-agent."},
				// first resume (--continue)
				{Calls: []call{c("write", J("file_path", p("other.txt"), "content", "one\ntwo\n"))}},
				{Text: "other.txt is written."},
				// second resume (--session ID)
				{Calls: []call{view("other.txt"), bash("cat other.txt", "Print other.txt")}},
				{Text: "other.txt holds one and two."},
			},
		}
	}
	const prompt = "Please run the correx oracle scenario for Crush: exercise the tools as scripted, then summarise what happened."
	return cliScenario{prompt: prompt, followUps: []string{cliFollowUp}, steps: []step{
		{
			Reasoning: "The user wants the scripted oracle scenario. I will read a file, run a command and view an image in parallel.",
			Text:      "I'll start by reading notes.txt, running a command and viewing the pixel.",
			Calls:     []call{view("notes.txt"), view("pixel.png"), bash("echo hello from bash; echo second line", "Print two lines")},
		},
		{Calls: []call{bash("echo about to fail; echo this goes to stderr 1>&2; exit 3", "Fail with exit code 3"), bash("true", "Produce no output")}},
		{Calls: []call{bash("seq 1 8000", "Print eight thousand lines")}},
		{Calls: []call{bash(`printf '\033[31mred\033[0m plain\n'`, "Print ANSI colours")}},
		{Text: "Creating a file.", Calls: []call{c("write", J("file_path", p("new.txt"), "content", "alpha\nbeta\ngamma\n"))}},
		{Calls: []call{c("edit", J("file_path", p("new.txt"), "old_string", "beta", "new_string", "BETA"))}},
		{Calls: []call{c("edit", J("file_path", p("new.txt"), "old_string", "no such text", "new_string", "replacement"))}},
		{Calls: []call{view("does-not-exist.txt")}},
		{
			Reasoning: "Everything in the script has run; time to summarise.",
			Text:      "All done: reads, an image, shell commands (ok, failing, silent, huge, coloured), a write, edits (ok and failing) and a missing file.",
		},
		// follow-up (--continue)
		{Reasoning: "The user wants to see new.txt after the edits.", Calls: []call{view("new.txt")}},
		{Text: "new.txt now holds alpha, BETA and gamma."},
	}}
}

// crushConfig is ~/.config/crush/crush.json: the fake provider as an
// openai-compat provider, one model for both roles, no network of its own.
func crushConfig(f flavour, baseURL string) string {
	model := J("id", f.ModelID, "name", "Oracle Model", "context_window", 200000, "default_max_tokens", 4096,
		"can_reason", true, "supports_attachments", true)
	pick := J("model", f.ModelID, "provider", f.ProviderID)
	cfg := J(
		"providers", J(f.ProviderID, J("name", "Oracle fake provider", "type", "openai-compat", "base_url", baseURL+"/v1",
			"api_key", "sk-oracle-fake-key", "models", A(model))),
		"models", J("large", pick, "small", pick),
		"options", J("disable_provider_auto_update", true, "disable_metrics", true),
	)
	var b bytes.Buffer
	_ = json.Indent(&b, []byte(cfg), "", "  ")
	return b.String() + "\n"
}

// ensureCrush is the binary to record with: -crush-bin, or the one built
// from -crush-src into the cache (once; the go tool's module proxy fetches
// the dependencies).
func ensureCrush(opt options) (string, error) {
	if *crushBin != "" {
		return filepath.Abs(*crushBin)
	}
	bin := filepath.Join(opt.cacheDir, "crush-"+crushVersion, "crush")
	if isFilePath(bin) {
		return bin, nil
	}
	if *crushSrc == "" {
		return "", errors.New("no Crush binary: give -crush-bin PATH, or -crush-src DIR (its source at tag v" + crushVersion + ") to build one into the cache")
	}
	logf("building Crush v%s from %s into %s", crushVersion, *crushSrc, bin)
	cmd := exec.Command("go", "build", "-buildvcs=false", "-ldflags", "-X github.com/charmbracelet/crush/internal/version.Version=v"+crushVersion, "-o", bin, ".")
	cmd.Dir = *crushSrc
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build in %s: %v\n%s", *crushSrc, err, tail(string(out), 1500))
	}
	return bin, nil
}

func isFilePath(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func recordCrush(opt options, f flavour) (err error) {
	bin, err := ensureCrush(opt)
	if err != nil {
		return err
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), crushVersion) {
		return fmt.Errorf("%s --version: %q (%v), want %s", bin, strings.TrimSpace(string(out)), err, crushVersion)
	}
	l := newLayout(opt.home)
	scen := crushScenario(f.Name, l.Proj)
	srv, err := startCLIServer(f, scen.scripts()...)
	if err != nil {
		return err
	}
	defer srv.close()
	srv.analyse = analyze
	if err := setupProject(l, projectFiles()); err != nil {
		return err
	}
	config := crushConfig(f, srv.baseURL())
	cfgPath := filepath.Join(l.Config, "crush", "crush.json")
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(cfgPath, []byte(config), 0o644); err != nil {
		return err
	}
	logDir, err := freshLogDir(opt, f)
	if err != nil {
		return err
	}
	logf("fake provider at %s; crush logs in %s", srv.baseURL(), logDir)
	env := append(baseEnv(l), "CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1", "DO_NOT_TRACK=1")
	db := filepath.Join(l.Proj, ".crush", "crush.db")

	var cmds []command
	run := func(n int, args ...string) error {
		_, err := runOpencode(opt, bin, l.Proj, env, args, noStdin, filepath.Join(logDir, fmt.Sprintf("run-%d", n)))
		cmds = append(cmds, command{Argv: append([]string{"crush"}, args...), Dir: l.Proj})
		return err
	}
	if err := run(1, "run", "--quiet", scen.prompt); err != nil {
		return fmt.Errorf("main run: %w", err)
	}
	sessions, err := crushSessions(db)
	if err != nil {
		return err
	}
	if len(sessions) == 0 || sessions[0].parent != "" {
		return fmt.Errorf("no main session in %s", db)
	}
	root := sessions[0].id
	logf("session %s", root)
	for i, follow := range scen.followUps {
		resume := []string{"--continue"}
		if i > 0 {
			resume = []string{"--session", root}
		}
		if err := run(i+2, append(append([]string{"run", "--quiet"}, resume...), follow)...); err != nil {
			return fmt.Errorf("follow-up run %d: %w", i+1, err)
		}
	}

	final := cliFixtureDir(opt, "crush", f.Name)
	stage := filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".partial")
	_ = os.RemoveAll(stage)
	defer func() {
		if err != nil {
			_ = os.RemoveAll(stage)
		}
	}()
	// the database as one consistent file, nothing else of .crush (logs)
	copied := filepath.Join(stage, "data", ".crush", "crush.db")
	if err := os.MkdirAll(filepath.Dir(copied), 0o755); err != nil {
		return err
	}
	if err := backupDB(db, copied); err != nil {
		return err
	}
	if sessions, err = crushSessions(copied); err != nil {
		return err
	}
	bySession := map[string]string{"main": root}
	ids := []string{root}
	for _, s := range sessions {
		if s.parent == root && len(scen.subs) > 0 {
			bySession[scen.subs[0].name] = s.id
			ids = append(ids, s.id)
		}
	}
	reqs := srv.captured()
	manifest := cliManifest(reqs, bySession)
	if err := writeRequests(stage, reqs, manifest); err != nil {
		return err
	}
	problems := append([]string{}, srv.problems...)
	check, p, err := crushCheckStoredVsSent(copied, reqs, manifest)
	if err != nil {
		return err
	}
	problems = append(problems, p...)
	logf("stored vs sent: %+v", check)
	rec := map[string]any{
		"agent":         "crush",
		"crush_version": crushVersion,
		"built_from":    "github.com/charmbracelet/crush tag v" + crushVersion + " (@charmland/crush@0.96.1 downloads its binary from GitHub releases, unreachable here)",
		"flavour":       f.Name,
		"model":         f.ModelID,
		"provider":      f.ProviderID,
		"wire":          "chat",
		"date":          time.Now().UTC().Format(time.RFC3339),
		"recorder":      "go run ./testdata/record -flavour " + f.Name,
		"home":          l.Home,
		"project":       l.Proj,
		"crush_json":    config,
		"fake_provider": srv.baseURL(),
		"env":           env,
		"scenario": map[string]any{
			"prompt":     scen.prompt,
			"follow_ups": scen.followUps,
			"steps":      len(scen.steps),
		},
		"commands":       cmds,
		"sessions":       ids,
		"requests":       len(reqs),
		"stored_vs_sent": check,
		"problems":       problems,
	}
	return finishCLIFixture(opt, stage, final, rec, problems)
}

type crushSession struct{ id, parent string }

// crushSessions lists a crush.db's sessions, oldest first.
func crushSessions(path string) ([]crushSession, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, COALESCE(parent_session_id, '') FROM sessions ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []crushSession
	for rows.Next() {
		var s crushSession
		if err := rows.Scan(&s.id, &s.parent); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// crushMediaPlaceholder is what Crush sends in place of a tool result's
// image on a provider without media in tool results
// (workaroundProviderMediaLimitations), the image following in a user
// message.
const crushMediaPlaceholder = "[Image/media content loaded - see attached file]"

// crushCheckStoredVsSent compares every stored tool_result with the tool
// message of its call id in the first request of its session after it and
// in every later one: its content, or for a result with media data the
// placeholder Crush sends instead (counted in "media").
func crushCheckStoredVsSent(dbPath string, reqs []*captured, manifest []manifestEntry) (map[string]int, []string, error) {
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT session_id, parts FROM messages WHERE role = 'tool' ORDER BY created_at, id`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	type result struct{ session, id, want string }
	var stored []result
	media := 0
	for rows.Next() {
		var sid, parts string
		if err := rows.Scan(&sid, &parts); err != nil {
			return nil, nil, err
		}
		var ps []struct {
			Type string `json:"type"`
			Data struct {
				ToolCallID string `json:"tool_call_id"`
				Content    string `json:"content"`
				Data       string `json:"data"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(parts), &ps); err != nil {
			return nil, nil, fmt.Errorf("%s: parts of a tool message: %v", dbPath, err)
		}
		for _, p := range ps {
			if p.Type != "tool_result" {
				continue
			}
			want := p.Data.Content
			if p.Data.Data != "" {
				want = crushMediaPlaceholder
				media++
			}
			stored = append(stored, result{sid, p.Data.ToolCallID, want})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	check := map[string]int{"results": len(stored), "media": media}
	var problems []string
	for _, r := range stored {
		first, every, seen := false, true, 0
		for i, req := range reqs {
			if req.Kind != "main" || manifest[i].Session != r.session {
				continue
			}
			var doc struct {
				Messages []struct {
					Role       string `json:"role"`
					ToolCallID string `json:"tool_call_id"`
					Content    any    `json:"content"` // a user message's may be a list
				} `json:"messages"`
			}
			if json.Unmarshal(req.Body, &doc) != nil {
				continue
			}
			for _, m := range doc.Messages {
				if m.Role != "tool" || m.ToolCallID != r.id {
					continue
				}
				seen++
				if seen == 1 {
					first = m.Content == r.want
				}
				every = every && m.Content == r.want
			}
		}
		switch {
		case !first:
			problems = append(problems, fmt.Sprintf("result of %s: not sent as stored", r.id))
		case every:
			check["sent_next"]++
			check["resent_all"]++
		default:
			check["sent_next"]++
			problems = append(problems, fmt.Sprintf("result of %s: re-sent changed", r.id))
		}
	}
	return check, problems, nil
}
