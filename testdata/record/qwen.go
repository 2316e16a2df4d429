package main

// Qwen Code: the real `qwen -p` (npm @qwen-code/qwen-code, a Gemini CLI
// fork) against the fake provider's OpenAI Chat endpoint, stored under
// testdata/qwen-code/<flavour>/.

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"
)

const qwenVersion = "0.24.4"

func init() {
	// qwen3.8-plus takes images (Qwen's modality defaults): read_file sends
	// them; qwen3-coder-plus is text-only
	for name, model := range map[string]string{"qwen-code": "qwen3.8-plus", "qwen-code-second": "qwen3-coder-plus"} {
		allFlavours = append(allFlavours, flavour{Name: name, Version: qwenVersion, ProviderID: "openai", ModelID: model, Wire: "chat"})
		agentRecorders[name] = recordQwen
	}
}

// qwenSubPrompt is the task the main session gives its subagent (the
// agent tool); it selects the subagent's script.
const qwenSubPrompt = "Count the lines of notes.txt and report the number in one sentence."

// qwenScenario is the flavour's scenario in Qwen Code's tool names. Each
// big output is just big enough: 300 lines of 100 characters (30,425
// characters wrapped) pass run_shell_command's 30,000 (0.24.4's default
// when tools.truncateToolOutputThreshold is not set), so its 4,000-character
// preview cuts the head and the tail inside lines; the second flavour's
// 990 lines of 30 characters (29,824 wrapped) stay just under it.
func qwenScenario(name, proj string) cliScenario {
	p, shell, read := geminiCalls(proj)
	edit := func(old, new string) call {
		return c("edit", J("file_path", p("new.txt"), "old_string", old, "new_string", new))
	}
	if name == "qwen-code-second" {
		const prompt = "Please run the second correx oracle scenario for Qwen Code: search, look around, then summarise."
		return cliScenario{
			suffix: "-second", prompt: prompt,
			followUps: otherTxtFollowUps,
			subs: []cliScript{{name: "subagent", prompt: qwenSubPrompt, steps: []step{
				{Reasoning: "I will count the lines.", Calls: []call{shell("wc -l notes.txt", "Count lines")}},
				{Text: "notes.txt has 3 lines."},
			}}},
			steps: append([]step{
				{
					Reasoning: "The second scenario starts by searching.",
					Calls:     []call{c("grep_search", J("pattern", "needle")), c("glob", J("pattern", "*.md")), c("list_directory", J("path", p("sub")))},
				},
				{Calls: []call{c("grep_search", J("pattern", "zzz_no_match_zzz"))}},
				{Calls: []call{read("pixel.png")}},
				{Calls: []call{shell("seq -f '%029g' 1 990", "Print 990 rows just under the limit")}},
				{Calls: []call{read("big.txt", "offset", 2990, "limit", 5)}},
				{Text: "Asking a subagent.", Calls: []call{c("agent", J("description", "Count note lines", "prompt", qwenSubPrompt, "subagent_type", "general-purpose", "run_in_background", false))}},
				{Text: "Second scenario done: searches, an image on a text-only model, a big output under the limit and a subagent."},
			}, otherTxtResumes(p, shell, read)...),
		}
	}
	const prompt = "Please run the correx oracle scenario for Qwen Code: exercise the tools as scripted, then summarise what happened."
	return cliScenario{
		prompt: prompt, followUps: []string{cliFollowUp},
		steps: []step{
			{
				Reasoning: "The user wants the scripted oracle scenario. I will read a file, run a shell command and read an image in parallel.",
				Text:      "I'll start by reading notes.txt, running a command and reading the pixel.",
				Calls:     []call{read("notes.txt"), shell("echo hello from shell; echo second line", "Print two lines"), read("pixel.png")},
			},
			{Calls: []call{shell("echo about to fail; echo this goes to stderr 1>&2; exit 3", "Fail with exit code 3"), shell("true", "Produce no output")}},
			{Calls: []call{read("does-not-exist.txt")}},
			{Calls: []call{shell("seq -f '%0100g' 1 300", "Print 300 long lines")}},
			{Calls: []call{shell(`printf '\033[31mred\033[0m plain\r\nsecond\rline\n'`, "Print ANSI and CR"), shell(`sleep 0.5; printf '\033[32mgreen\033[0m\r\nlast\rCR\n'`, "Print ANSI and CR after a pause")}},
			{Text: "Creating a file.", Calls: []call{c("write_file", J("file_path", p("new.txt"), "content", "alpha\nbeta\ngamma\n"))}},
			{Calls: []call{edit("beta", "BETA")}},
			{Calls: []call{edit("no such text", "replacement")}},
			{
				Reasoning: "Everything in the script has run; time to summarise.",
				Text:      "All done: reads (an image, a missing file), shell commands (ok, failing, silent, huge, ANSI), a write and edits (ok and failing).",
			},
			// follow-up prompt
			{Reasoning: "The user wants to see new.txt after the edits.", Calls: []call{read("new.txt")}},
			{Text: "new.txt now holds alpha, BETA and gamma."},
		},
	}
}

var qwenSessionRe = regexp.MustCompile(`"session_id"\s*:\s*"([0-9a-f-]{36})"`)

// qwenSettings is ~/.qwen/settings.json: the OpenAI-compatible auth, and
// the background reviewers (managed memory, dream, auto-skill) off, since
// each re-sends the conversation under a prompt of its own.
const qwenSettings = `{"security":{"auth":{"selectedType":"openai"},"folderTrust":{"enabled":false}},` +
	`"memory":{"enableManagedAutoMemory":false,"enableManagedAutoDream":false,"enableAutoSkill":false},` +
	`"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},"general":{"enableAutoUpdate":false}}` + "\n"

func recordQwen(opt options, f flavour) (err error) {
	dir, err := ensureNpmCLI(opt.cacheDir, "npm-qwen-code", "@qwen-code/qwen-code", f.Version)
	if err != nil {
		return err
	}
	l := newLayout(opt.home)
	scen := qwenScenario(f.Name, l.Proj)
	srv, err := startCLIServer(f, scen.scripts()...)
	if err != nil {
		return err
	}
	defer srv.close()
	srv.analyse = analyze
	if err := setupProject(l, projectFiles()); err != nil {
		return err
	}
	// a copy in a user-level npm prefix, as for Gemini CLI: the install
	// path may reach the requests (bundled skills)
	modules, err := copyIntoHome(l, dir)
	if err != nil {
		return err
	}
	js := filepath.Join(modules, "@qwen-code", "qwen-code", "cli.js")
	qdir := filepath.Join(l.Home, ".qwen")
	if err := os.MkdirAll(qdir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(qdir, "settings.json"), []byte(qwenSettings), 0o644); err != nil {
		return err
	}
	logDir := filepath.Join(opt.cacheDir, "logs", f.Name)
	_ = os.RemoveAll(logDir)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	logf("fake provider at %s; qwen logs in %s", srv.baseURL(), logDir)
	env := append(baseEnv(l), "OPENAI_BASE_URL="+srv.baseURL()+"/v1", "OPENAI_API_KEY=sk-oracle-fake-key", "OPENAI_MODEL="+f.ModelID)

	var cmds []command
	args := []string{js, "-p", scen.prompt, "--yolo", "--output-format", "stream-json"}
	out1, err := runOpencode(opt, "node", l.Proj, env, args, "", filepath.Join(logDir, "run-1"))
	cmds = append(cmds, command{Argv: append([]string{"qwen"}, args[1:]...), Dir: l.Proj})
	if err != nil {
		return fmt.Errorf("main run: %w", err)
	}
	m := qwenSessionRe.FindSubmatch(out1)
	if m == nil {
		return fmt.Errorf("qwen printed no session_id (see %s)", logDir)
	}
	session := string(m[1])
	logf("session %s", session)
	for i, follow := range scen.followUps {
		args = []string{js, "-p", follow, "--yolo", "--output-format", "stream-json", "--resume", session}
		if _, err := runOpencode(opt, "node", l.Proj, env, args, "", filepath.Join(logDir, fmt.Sprintf("run-%d", i+2))); err != nil {
			return fmt.Errorf("follow-up run %d: %w", i+1, err)
		}
		cmds = append(cmds, command{Argv: append([]string{"qwen"}, args[1:]...), Dir: l.Proj})
	}

	final := cliFixtureDir(opt, "qwen-code", f.ModelID+scen.suffix)
	stage := filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".partial")
	_ = os.RemoveAll(stage)
	defer func() {
		if err != nil {
			_ = os.RemoveAll(stage)
		}
	}()
	// the chats, the subagents' transcripts and the spills as written
	// (not settings.json, installation_id, usage records or debug logs)
	var chats []string
	for _, sub := range []string{"chats", "subagents"} {
		dirs, _ := filepath.Glob(filepath.Join(qdir, "projects", "*", sub))
		for _, src := range dirs {
			rel, _ := filepath.Rel(qdir, src)
			if err := copyTree(src, filepath.Join(stage, "data", rel)); err != nil {
				return err
			}
			for _, pat := range []string{"*.jsonl", "*/*.jsonl"} {
				found, _ := filepath.Glob(filepath.Join(stage, "data", rel, pat))
				chats = append(chats, found...)
			}
		}
	}
	if len(chats) == 0 {
		return fmt.Errorf("no chats/ under %s", filepath.Join(qdir, "projects"))
	}
	spills, _ := filepath.Glob(filepath.Join(qdir, "tmp", "*", "*.output"))
	for _, s := range spills {
		rel, _ := filepath.Rel(qdir, s)
		dst := filepath.Join(stage, "data", rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := copyFile(s, dst); err != nil {
			return err
		}
	}
	sort.Strings(chats)
	bySession := map[string]string{"main": session}
	sessionIDs := []string{session}
	for i, id := range qwenSubagents(chats) {
		if i < len(scen.subs) {
			bySession[scen.subs[i].name] = id
			sessionIDs = append(sessionIDs, id)
		}
	}
	reqs := srv.captured()
	manifest := cliManifest(reqs, bySession)
	if err := writeRequests(stage, reqs, manifest); err != nil {
		return err
	}
	problems := append([]string{}, srv.problems...)
	check, p := qwenCheckStoredVsSent(chats, reqs, manifest)
	problems = append(problems, p...)
	logf("stored-vs-sent check: %+v", check)
	var relChats []string
	for _, c := range chats {
		r, _ := filepath.Rel(stage, c)
		relChats = append(relChats, filepath.ToSlash(r))
	}
	rec := map[string]any{
		"agent":             "qwen-code",
		"qwen_code_version": f.Version,
		"npm_package":       "@qwen-code/qwen-code@" + f.Version,
		"flavour":           f.ModelID + scen.suffix,
		"model":             f.ModelID,
		"wire":              "chat",
		"date":              time.Now().UTC().Format(time.RFC3339),
		"recorder":          "go run ./testdata/record -flavour " + f.Name,
		"home":              l.Home,
		"project":           l.Proj,
		"qwen_dir":          qdir,
		"settings_json":     qwenSettings,
		"fake_provider":     srv.baseURL(),
		"env":               env,
		"scenario":          map[string]any{"prompt": scen.prompt, "follow_ups": scen.followUps, "steps": len(scen.steps)},
		"commands":          cmds,
		"sessions":          sessionIDs,
		"chat_files":        relChats,
		"requests":          len(reqs),
		"stored_vs_sent":    check,
		"problems":          problems,
	}
	return finishCLIFixture(opt, stage, final, rec, problems)
}

// qwenLine is the part of a chat line the recorder reads.
type qwenLine struct {
	SessionID string `json:"sessionId"`
	AgentID   string `json:"agentId"` // a subagent's lines: its own id
	Type      string `json:"type"`
	Message   struct {
		Parts []struct {
			FunctionResponse *struct {
				ID       string          `json:"id"`
				Name     string          `json:"name"`
				Response json.RawMessage `json:"response"`
				Parts    []struct {
					InlineData *struct {
						MimeType string `json:"mimeType"`
						Data     string `json:"data"`
					} `json:"inlineData"`
				} `json:"parts"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"message"`
}

// session is the line's session as correx names it: a subagent's
// transcript (subagents/<parent>/agent-<agent id>.jsonl) repeats its
// parent's sessionId, and is the session of its agentId.
func (l qwenLine) session() string { return cmp.Or(l.AgentID, l.SessionID) }

func qwenLines(path string, fn func(l qwenLine)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l qwenLine
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			fn(l)
		}
	}
	return sc.Err()
}

// qwenSubagents are the agent ids of the subagents' transcripts, in the
// order of their files.
func qwenSubagents(chats []string) []string {
	var ids []string
	seen := map[string]bool{}
	for _, c := range chats {
		_ = qwenLines(c, func(l qwenLine) {
			if l.AgentID != "" && !seen[l.AgentID] {
				seen[l.AgentID] = true
				ids = append(ids, l.AgentID)
			}
		})
	}
	return ids
}

// qwenStoredVsSent is what the check found: every functionResponse of a
// tool_result line against the tool message of its call id in each
// request of the session after it. Qwen Code sends a result as the tool
// message content [{"type":"text","text":<response.output or .error>}];
// one with media as that text alone, its media (data: URLs) in the user
// message after the batch's tool messages.
type qwenStoredVsSent struct {
	Results   int `json:"results"`
	SentNext  int `json:"sent_next"`
	ResentAll int `json:"resent_all"`
	MaxCopies int `json:"max_copies"`
}

func qwenCheckStoredVsSent(chats []string, reqs []*captured, manifest []manifestEntry) (qwenStoredVsSent, []string) {
	type result struct {
		session string
		content json.RawMessage
		media   []string // data: URLs sent after the tool messages
	}
	stored := map[string]result{}
	var order []string
	var problems []string
	for _, path := range chats {
		if err := qwenLines(path, func(l qwenLine) {
			if l.Type != "tool_result" {
				return
			}
			for _, p := range l.Message.Parts {
				fr := p.FunctionResponse
				if fr == nil {
					continue
				}
				var resp map[string]string
				_ = json.Unmarshal(fr.Response, &resp)
				text, ok := resp["output"]
				if !ok {
					text = resp["error"]
				}
				content, _ := json.Marshal([]map[string]string{{"type": "text", "text": text}})
				var media []string
				for _, p := range fr.Parts {
					if d := p.InlineData; d != nil {
						media = append(media, "data:"+d.MimeType+";base64,"+d.Data)
					}
				}
				if len(media) > 0 {
					content, _ = json.Marshal(text)
				}
				if _, dup := stored[fr.ID]; dup {
					problems = append(problems, fmt.Sprintf("result %s: stored twice", fr.ID))
					continue
				}
				order = append(order, fr.ID)
				stored[fr.ID] = result{l.session(), content, media}
			}
		}); err != nil {
			problems = append(problems, err.Error())
		}
	}
	var out qwenStoredVsSent
	out.Results = len(order)
	for _, id := range order {
		want := stored[id]
		seen, first, every := 0, false, true
		for i, r := range reqs {
			if r.Kind != "main" || manifest[i].Session != want.session {
				continue
			}
			var doc struct {
				Messages []qwenMessage `json:"messages"`
			}
			if json.Unmarshal(r.Body, &doc) != nil {
				continue
			}
			copies := 0
			for j, m := range doc.Messages {
				if m.Role != "tool" || m.ToolCallID != id {
					continue
				}
				copies++
				same := jsonEqual(m.Content, want.content) && qwenMediaAfter(doc.Messages[j+1:], want.media)
				if seen == 0 {
					first = same
				}
				seen++
				every = every && same
			}
			out.MaxCopies = max(out.MaxCopies, copies)
		}
		switch {
		case seen == 0:
			problems = append(problems, fmt.Sprintf("result %s: never sent", id))
		case !first:
			problems = append(problems, fmt.Sprintf("result %s: not sent as stored", id))
		default:
			out.SentNext++
			if every {
				out.ResentAll++
			} else {
				problems = append(problems, fmt.Sprintf("result %s: re-sent differently", id))
			}
		}
	}
	return out, problems
}

type qwenMessage struct {
	Role       string          `json:"role"`
	ToolCallID string          `json:"tool_call_id"`
	Content    json.RawMessage `json:"content"`
}

// qwenMediaAfter says whether the first message after the tool messages
// is the split-media user message and carries every URL of media.
func qwenMediaAfter(rest []qwenMessage, media []string) bool {
	if len(media) == 0 {
		return true
	}
	for _, m := range rest {
		if m.Role == "tool" {
			continue
		}
		for _, u := range media {
			if m.Role != "user" || !bytes.Contains(m.Content, []byte(`"url":"`+u+`"`)) {
				return false
			}
		}
		return true
	}
	return false
}
