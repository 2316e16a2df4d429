package main

// GitHub Copilot CLI: the real `copilot -p` (npm @github/copilot, its
// native linux-x64 binary) in offline BYOK mode against the fake provider's
// OpenAI Chat endpoint, stored under testdata/copilot/<flavour>/.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

const copilotVersion = "1.0.102"

func init() {
	for _, name := range []string{"copilot", "copilot-second", "copilot-third"} {
		allFlavours = append(allFlavours, flavour{Name: name, Version: copilotVersion, ProviderID: "openai", ModelID: "oracle-model", Wire: "chat"})
		agentRecorders[name] = recordCopilot
	}
}

// spaced is a JSON object as a model may stream it, with a space after
// each colon and comma: Copilot sends that string back until a resume,
// then the compact re-serialisation of the object it stored.
func spaced(kv ...any) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsonString(kv[i].(string)) + ": " + string(toJSON(kv[i+1])))
	}
	b.WriteByte('}')
	return b.String()
}

// copilotScenario is the flavour's scenario in Copilot's own tool names
// (bash, view, create, edit, grep, glob). The huge output is just big
// enough: Copilot 1.0.102 spilled a shell output of 20,480 bytes (and
// `seq 1 4400`'s 20,893) and not one of 20,440 (probed), so `seq 1 4400`
// is spilled; its preview is what the model gets.
func copilotScenario(name, proj string) cliScenario {
	p := func(rel string) string { return proj + "/" + rel }
	bash := func(cmd, desc string) call { return c("bash", J("command", cmd, "description", desc)) }
	view := func(rel string) call { return c("view", J("path", p(rel))) }
	switch name {
	case "copilot-second":
		return copilotSecondScenario(proj, p, bash, view)
	case "copilot-third":
		return copilotThirdScenario(p, bash, view)
	}
	const prompt = "Please run the correx oracle scenario for Copilot: exercise the tools as scripted, then summarise what happened."
	return cliScenario{prompt: prompt, followUps: []string{cliFollowUp}, steps: []step{
		{
			Reasoning: "The user wants the scripted oracle scenario. I will read a file, run a shell command and view an image in parallel.",
			Text:      "I'll start by reading notes.txt, running a command and viewing the pixel.",
			Calls: []call{
				{Name: "bash", Args: spaced("command", "cat notes.txt", "description", "Print notes.txt")},
				bash("echo hello from shell; echo second line", "Print two lines"),
				view("pixel.png"),
			},
		},
		{Calls: []call{bash("echo about to fail; echo this goes to stderr 1>&2; exit 3", "Fail with exit code 3"), bash("true", "Produce no output")}},
		{Calls: []call{c("edit", J("path", p("notes.txt"), "old_str", "no such text", "new_str", "replacement"))}},
		{Calls: []call{view("does-not-exist.txt")}},
		{Calls: []call{bash("seq 1 4400", "Print 4,400 lines")}},
		{Calls: []call{bash(`printf '\033[1;31mred\033[0m and plain\n'`, "Print colours")}},
		{Text: "Creating a file.", Calls: []call{c("create", J("path", p("new.txt"), "file_text", "alpha\nbeta\ngamma\n"))}},
		{Calls: []call{c("edit", J("path", p("new.txt"), "old_str", "beta", "new_str", "BETA"))}},
		{
			Reasoning: "Everything in the script has run; time to summarise.",
			Text:      "All done: reads, an image, shell commands (ok, failing, silent, huge, coloured), a failed edit, a missing file, a new file and an edit.",
		},
		// follow-up prompt
		{Reasoning: "The user wants to see new.txt after the edits.", Calls: []call{view("new.txt")}},
		{Text: "new.txt now holds alpha, BETA and gamma."},
	}}
}

var copilotSessionRe = regexp.MustCompile(`"sessionId"\s*:\s*"([0-9a-f-]{36})"`)

func recordCopilot(opt options, f flavour) (err error) {
	dir, err := ensureNpmCLI(opt.cacheDir, "npm-copilot", "@github/copilot", f.Version)
	if err != nil {
		return err
	}
	bin := filepath.Join(dir, "node_modules", "@github", "copilot-linux-x64", "copilot")
	l := newLayout(opt.home)
	copilotHome := filepath.Join(l.Home, ".copilot")
	scen := copilotScenario(f.Name, l.Proj)
	srv, err := startCLIServer(f, scen.scripts()...)
	if err != nil {
		return err
	}
	defer srv.close()
	srv.analyse = analyze
	if err := setupProject(l, projectFiles()); err != nil {
		return err
	}
	logDir, err := freshLogDir(opt, f)
	if err != nil {
		return err
	}
	logf("fake provider at %s; copilot logs in %s", srv.baseURL(), logDir)
	env := append(baseEnv(l), "COPILOT_HOME="+copilotHome, "COPILOT_OFFLINE=true",
		"COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_BASE_URL="+srv.baseURL()+"/v1",
		"COPILOT_PROVIDER_API_KEY=sk-oracle-fake-key", "COPILOT_MODEL="+f.ModelID)
	flags := []string{"--allow-all-tools", "--output-format", "json", "--no-auto-update"}

	var cmds []command
	args := append([]string{"-p", scen.prompt}, flags...)
	out1, err := runOpencode(opt, bin, l.Proj, env, args, "", filepath.Join(logDir, "run-1"))
	cmds = append(cmds, command{Argv: append([]string{"copilot"}, args...), Dir: l.Proj})
	if err != nil {
		return fmt.Errorf("main run: %w", err)
	}
	session := ""
	if m := copilotSessionRe.FindSubmatch(out1); m != nil {
		session = string(m[1])
	}
	if session == "" {
		dirs, _ := filepath.Glob(filepath.Join(copilotHome, "session-state", "*"))
		if len(dirs) == 1 {
			session = filepath.Base(dirs[0])
		}
	}
	if session == "" {
		return fmt.Errorf("copilot printed no sessionId (see %s)", logDir)
	}
	logf("session %s", session)
	for i, follow := range scen.followUps {
		args = append([]string{"-p", follow, "--resume", session}, flags...)
		if _, err := runOpencode(opt, bin, l.Proj, env, args, "", filepath.Join(logDir, fmt.Sprintf("run-%d", i+2))); err != nil {
			return fmt.Errorf("follow-up run %d: %w", i+1, err)
		}
		cmds = append(cmds, command{Argv: append([]string{"copilot"}, args...), Dir: l.Proj})
	}

	final := cliFixtureDir(opt, "copilot", f.Name)
	stage := filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".partial")
	_ = os.RemoveAll(stage)
	defer func() {
		if err != nil {
			_ = os.RemoveAll(stage)
		}
	}()
	// the session's folder as written (events.jsonl, workspace.yaml,
	// checkpoints, rewind snapshots), nothing else of COPILOT_HOME (the
	// session-store.db index, logs, config)
	src := filepath.Join(copilotHome, "session-state", session)
	if err := copyTree(src, filepath.Join(stage, "data", "session-state", session)); err != nil {
		return err
	}
	events := filepath.Join(stage, "data", "session-state", session, "events.jsonl")
	reqs := srv.captured()
	bySession := map[string]string{"main": session}
	// a subagent's requests belong to its own session in the same log:
	// the agentId of its events (the n-th subagent.started, script n)
	for i, id := range copilotSubagents(events) {
		if i < len(scen.subs) {
			bySession[scen.subs[i].name] = id
		}
	}
	manifest := cliManifest(reqs, bySession)
	if err := writeRequests(stage, reqs, manifest); err != nil {
		return err
	}
	problems := append([]string{}, srv.problems...)
	check, p := copilotCheckStoredVsSent(events, reqs)
	problems = append(problems, p...)
	logf("stored-vs-sent check: %+v", check)
	spills, _ := filepath.Glob(filepath.Join(l.Tmp, "*copilot-tool-output*"))
	rec := map[string]any{
		"agent":           "copilot",
		"copilot_version": f.Version,
		"npm_package":     "@github/copilot@" + f.Version,
		"flavour":         f.Name,
		"model":           f.ModelID,
		"wire":            "chat",
		"date":            time.Now().UTC().Format(time.RFC3339),
		"recorder":        "go run ./testdata/record -flavour " + f.Name,
		"home":            l.Home,
		"project":         l.Proj,
		"copilot_home":    copilotHome,
		"fake_provider":   srv.baseURL(),
		"env":             env,
		"scenario": map[string]any{
			"prompt":     scen.prompt,
			"follow_ups": scen.followUps,
			"steps":      len(scen.steps),
		},
		"commands":         cmds,
		"sessions":         []string{session},
		"subagent_prompts": subPrompts(scen),
		"requests":         len(reqs),
		"stored_vs_sent":   check,
		// Copilot deletes its spill files when it exits: none is left
		"spill_files_left": len(spills),
		"problems":         problems,
	}
	return finishCLIFixture(opt, stage, final, rec, problems)
}

// copilotStoredVsSent is what the check found: every tool result stored in
// events.jsonl (tool.execution_complete: result.content, or error.message
// of a failed call) against the tool message with its id in each request
// after it.
type copilotStoredVsSent struct {
	Results   int `json:"results"`
	SentNext  int `json:"sent_next"`  // equal to the stored text in the first request after it
	ResentAll int `json:"resent_all"` // and in every later request
	// SentLonger are failed calls whose first request sent a longer text
	// than the stored error.message (not stored anywhere); ResentStored
	// counts those a later run (after a resume) sent as stored.
	SentLonger   int `json:"sent_longer"`
	ResentStored int `json:"resent_stored"`
	Final        int `json:"final"`
}

func copilotCheckStoredVsSent(events string, reqs []*captured) (copilotStoredVsSent, []string) {
	var out copilotStoredVsSent
	var problems []string
	f, err := os.Open(events)
	if err != nil {
		return out, []string{err.Error()}
	}
	defer f.Close()
	stored := map[string]string{}
	failed := map[string]bool{}
	var order []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
			Data struct {
				ToolCallID string `json:"toolCallId"`
				Success    bool   `json:"success"`
				Result     struct {
					Content string `json:"content"`
				} `json:"result"`
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			} `json:"data"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type != "tool.execution_complete" {
			continue
		}
		id := ev.Data.ToolCallID
		if _, seen := stored[id]; !seen {
			order = append(order, id)
		}
		stored[id] = ev.Data.Result.Content
		if !ev.Data.Success {
			stored[id], failed[id] = ev.Data.Error.Message, true
		}
	}
	out.Results = len(order)
	for _, id := range order {
		var sent []string
		for _, r := range reqs {
			var doc struct {
				Messages []struct {
					Role       string          `json:"role"`
					ToolCallID string          `json:"tool_call_id"`
					Content    json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			if r.Kind != "main" || json.Unmarshal(r.Body, &doc) != nil {
				continue
			}
			for _, m := range doc.Messages {
				if m.Role == "tool" && m.ToolCallID == id {
					var s string
					_ = json.Unmarshal(m.Content, &s)
					sent = append(sent, s)
				}
			}
		}
		want := stored[id]
		switch {
		case len(sent) == 0:
			out.Final++
		case sent[0] == want:
			out.SentNext++
			every := true
			for _, s := range sent {
				every = every && s == want
			}
			if every {
				out.ResentAll++
			} else {
				problems = append(problems, fmt.Sprintf("result %s: re-sent differently", id))
			}
		case failed[id] && len(sent[0]) > len(want):
			out.SentLonger++
			if sent[len(sent)-1] == want {
				out.ResentStored++
			}
		default:
			problems = append(problems, fmt.Sprintf("result %s: not sent as stored", id))
		}
	}
	sort.Strings(problems)
	return out, problems
}

// copilotSecondScenario: searches, a CRLF and non-ASCII output, a view
// range and a directory, a failing ls; then two resumes, the first with a
// failed edit and a failed create (sent in full in their run, as their
// short error.message after the next resume).
func copilotSecondScenario(proj string, p func(string) string, bash func(cmd, desc string) call, view func(string) call) cliScenario {
	const prompt = "Please run the second correx oracle scenario for Copilot: search, look around, then summarise."
	return cliScenario{
		suffix: "-second", prompt: prompt,
		followUps: []string{
			"Next: write other.txt with two lines.",
			"Last: read other.txt back, and cat it too.",
		},
		steps: []step{
			{
				Reasoning: "The second scenario starts by searching.",
				Text:      "Searching the project three ways.",
				Calls: []call{
					c("grep", J("pattern", "needle")),
					c("glob", J("pattern", "**/*.md")),
					c("grep", J("pattern", "zzz_no_match_zzz")),
				},
			},
			{Calls: []call{bash(`printf 'caf\303\251 \342\234\223 \033[32mgreen\033[0m\r\nsecond line\r\n'`, "Print CRLF and non-ASCII"), view("crlf.txt")}},
			{Calls: []call{c("view", J("path", p("big.txt"), "view_range", A(2990, -1))), view("sub")}},
			{Calls: []call{bash("ls sub; ls no-such-dir; exit 7", "List a missing directory")}},
			{Text: "Second scenario done: searches, CRLF and non-ASCII output, a view range, a directory and a failing ls."},
			// first resume
			{Calls: []call{c("create", J("path", p("other.txt"), "file_text", "one\ntwo\n")), c("create", J("path", p("notes.txt"), "file_text", "overwrite?\n"))}},
			{Calls: []call{c("edit", J("path", p("other.txt"), "old_str", "three", "new_str", "THREE"))}},
			{Text: "other.txt is written; notes.txt already existed and other.txt has no three."},
			// second resume
			{Calls: []call{view("other.txt"), bash("cat other.txt", "Print other.txt")}},
			{Text: "other.txt holds one and two."},
		},
	}
}

// freshLogDir empties and returns the flavour's folder of run logs.
func freshLogDir(opt options, f flavour) (string, error) {
	dir := filepath.Join(opt.cacheDir, "logs", f.Name)
	_ = os.RemoveAll(dir)
	return dir, os.MkdirAll(dir, 0o755)
}

// copilotSubagents are the agentIds of the subagent.started events of a
// session log, in order.
func copilotSubagents(events string) []string {
	b, err := os.ReadFile(events)
	if err != nil {
		return nil
	}
	var ids []string
	for _, line := range strings.Split(string(b), "\n") {
		var ev struct {
			Type    string `json:"type"`
			AgentID string `json:"agentId"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "subagent.started" && ev.AgentID != "" {
			ids = append(ids, ev.AgentID)
		}
	}
	return ids
}

// subPrompts are the prompts of the scenario's subagents' scripts.
func subPrompts(sc cliScenario) []string {
	var out []string
	for _, s := range sc.subs {
		out = append(out, s.prompt)
	}
	return out
}

const copilotSubPrompt = "Count the lines of notes.txt with wc -l and answer with the number only."

// copilotThirdScenario: parallel commands that finish out of order, outputs
// under, one byte under and at the 20,480-byte spill threshold (the status
// line counts: 1.0.102 spilled the last two as a whole result), a multi-byte
// output over it in bytes but not in characters, a spilled single line
// with no newline, CRLF and non-UTF-8 bytes, a non-ASCII file name and
// edit, a `task` subagent, an unknown tool; then two resumes, the second
// with a failed non-ASCII edit.
func copilotThirdScenario(p func(string) string, bash func(cmd, desc string) call, view func(string) call) cliScenario {
	const prompt = "Please run the third correx oracle scenario for Copilot: odd outputs, a subagent, then summarise."
	return cliScenario{
		suffix: "-third", prompt: prompt,
		subs: []cliScript{{name: "sub", prompt: copilotSubPrompt, steps: []step{
			{Calls: []call{bash("wc -l notes.txt", "Count lines of notes.txt")}},
			{Text: "3"},
		}}},
		followUps: []string{
			"Next: show me café.txt.",
			"Last: change naïve in café.txt once more.",
		},
		steps: []step{
			{
				Reasoning: "Two commands in parallel; the first one is slower.",
				Calls:     []call{bash("sleep 2; echo slow done", "Slow command"), bash("echo fast done", "Fast command")},
			},
			{Calls: []call{bash("yes abcdefghi | head -c 20430", "Under the threshold"), bash("yes abcdefghi | head -c 20479", "One byte under the threshold"), bash("yes abcdefghi | head -c 20480", "At the threshold")}},
			{Calls: []call{bash("yes é | head -n 7000", "Multi-byte lines")}},
			{Calls: []call{bash("seq -s '' 1 7000", "One long line")}},
			{Calls: []call{bash(`printf 'bad \377\376 bytes\r\nlone\rcr\r\n\tend <&>\n'`, "CRLF and bad bytes")}},
			{Text: "Now a file with a non-ASCII name.", Calls: []call{c("create", J("path", p("café.txt"), "file_text", "naïve café ✓\nzweite Zeile — ü\n"))}},
			{Calls: []call{c("edit", J("path", p("café.txt"), "old_str", "café ✓", "new_str", "Café ✔ — ünïcödé 😀"))}},
			{Calls: []call{c("task", J("description", "Count notes lines", "prompt", copilotSubPrompt, "agent_type", "task", "name", "counter"))}},
			{Calls: []call{c("no_such_tool", J("x", 1))}},
			{Text: "Third scenario done: out-of-order commands, threshold outputs, odd bytes, a non-ASCII edit, a subagent and an unknown tool."},
			// first resume
			{Calls: []call{view("café.txt")}},
			{Text: "café.txt holds the edited lines."},
			// second resume
			{Calls: []call{c("edit", J("path", p("café.txt"), "old_str", "nicht da ü", "new_str", "x")), c("edit", J("path", p("café.txt"), "old_str", "naïve", "new_str", "naïf"))}},
			{Text: "One edit failed, the other changed naïve to naïf."},
		},
	}
}
