package main

// The v2 flavours: opencode serve's v2 loop (packages/core tools,
// ToolOutputStore, session_message), driven through its v2 HTTP API.

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// v2Script is the scripted main conversation of the v2 flavours (turn N is
// answered by element N; the last two answer the follow-up prompt). The v2
// loop has no subagent tool, and apply_patch only ever runs alone in its
// step (a failing apply_patch turns every call of its step into an error).
func v2Script(proj, pageURL string) []step {
	p := func(rel string) string {
		if rel == "" {
			return proj
		}
		return proj + "/" + rel
	}
	// v2's bash takes command, timeout and workdir (no description).
	bash := func(cmd string, extra ...any) call {
		return c("bash", J(append([]any{"command", cmd}, extra...)...))
	}
	read := func(rel string, extra ...any) call {
		return c("read", J(append([]any{"path", p(rel)}, extra...)...))
	}
	todos := A(
		J("content", "Run the shell commands", "status", "completed", "priority", "high"),
		J("content", "Read the files", "status", "completed", "priority", "medium"),
		J("content", "Search and fetch ✓", "status", "in_progress", "priority", "medium"),
		J("content", "Summarise", "status", "pending", "priority", "low"),
	)
	return []step{
		{
			Reasoning: "The user wants the scripted oracle scenario. I will start with some shell commands: one with output, one silent, one failing.",
			Text:      "I'll start with a few shell commands.",
			Calls: []call{
				bash("echo hello from bash; echo second line"),
				bash("true"),
				bash("echo about to fail; echo this goes to stderr 1>&2; exit 3"),
			},
		},
		{Calls: []call{bash("seq 1 100000; sleep 1")}},
		{Calls: []call{bash("echo started; sleep 5; echo finished", "timeout", 1000)}},
		{Calls: []call{bash(`printf '\033[31mred\033[0m plain\n'; printf 'emoji 🎉 ünïcödé\r\nsecond line\r\n'; printf 'no trailing newline'`)}},
		{
			Reasoning: "Now the read tool: a small file, a long one, a window of it, and a file with a very long line.",
			Text:      "Now some reads.",
			Calls: []call{
				read("notes.txt"),
				read("big.txt"),
				read("big.txt", "offset", 2990, "limit", 5),
				read("long-line.txt"),
			},
		},
		{Calls: []call{
			read("does-not-exist.txt"),
			read(""),
			read("sub/example.txt"),
			read("crlf.txt"),
		}},
		{Calls: []call{
			read("pixel.png"),
			read("large.txt"),
			c("read", J()),
			read("nul.txt"),
			read("empty.txt"),
		}},
		{Text: "Creating a file.", Calls: []call{c("write", J("path", p("new.txt"), "content", "alpha\nbeta\ngamma\n"))}},
		{Calls: []call{
			c("edit", J("path", p("new.txt"), "oldString", "beta", "newString", "BETA")),
			c("edit", J("path", p("crlf.txt"), "oldString", "no such text", "newString", "replacement")),
		}},
		{Calls: []call{c("apply_patch", J("patchText",
			"*** Begin Patch\n*** Add File: patched.txt\n+one\n+two\n*** End Patch"))}},
		{Calls: []call{c("apply_patch", J("patchText",
			"*** Begin Patch\n*** Update File: new.txt\n@@\n-no such text\n+replacement\n*** End Patch"))}},
		{
			Text: "Searching the project.",
			Calls: []call{
				c("glob", J("pattern", "**/*.txt", "path", proj)),
				c("glob", J("pattern", "*.nomatch", "path", proj)),
				c("grep", J("pattern", "needle", "path", proj)),
				c("grep", J("pattern", "zzz_no_match_zzz", "path", proj)),
				c("grep", J("pattern", "foo(bar", "path", proj)),
			},
		},
		{Calls: []call{c("todowrite", J("todos", todos))}},
		{Calls: []call{
			c("webfetch", J("url", pageURL+"/page.html", "format", "markdown")),
			c("webfetch", J("url", pageURL+"/big-page.txt", "format", "text")),
		}},
		{Calls: []call{c("skill", J("name", "customize-opencode"))}},
		{Calls: []call{c("list", J("path", proj))}},
		{
			Reasoning: "Everything in the script has run; time to summarise.",
			Text:      "All done: the shell, file, search, todo, web and skill tools have each been exercised, including their failure cases.",
		},
		// follow-up prompt
		{
			Reasoning: "The user wants to see new.txt after the edits.",
			Calls:     []call{read("new.txt")},
		},
		{Text: "new.txt now holds alpha, BETA and gamma."},
	}
}

// recordV2 records a v2 flavour: opencode serve, a session made and
// prompted through the v2 API (main prompt, then the follow-up), the store
// copied after the server stopped.
func recordV2(opt options, f flavour) (err error) {
	bin, err := ensureOpencode(opt.cacheDir, f.Version)
	if err != nil {
		return err
	}
	l := newLayout(opt.home)
	prov, err := startFakeProvider(f)
	if err != nil {
		return err
	}
	defer prov.close()
	if err := setupHome(l, f, prov.baseURL()); err != nil {
		return err
	}
	script := v2Script(l.Proj, prov.baseURL())
	prov.setScripts(script, nil)
	logDir := filepath.Join(opt.cacheDir, "logs", f.Name)
	_ = os.RemoveAll(logDir)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	logf("fake provider at %s; opencode logs in %s", prov.baseURL(), logDir)
	env := opencodeEnv(l, f)

	serveArgs := []string{"serve", "--hostname", "127.0.0.1", "--port", "0"}
	cmds := []command{{Argv: append([]string{"opencode"}, serveArgs...), Dir: l.Proj}}
	srv, err := startServe(bin, l.Proj, env, serveArgs, filepath.Join(logDir, "serve"))
	if err != nil {
		return err
	}
	defer srv.stop()
	logf("opencode serve at %s", srv.url)
	api := &v2API{base: srv.url, log: filepath.Join(logDir, "api.log")}

	var created struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	createBody := J("agent", "build", "model", J("id", f.ModelID, "providerID", f.ProviderID), "location", J("directory", l.Proj))
	if err := api.call(http.MethodPost, "/api/session", createBody, &created); err != nil {
		return err
	}
	rootID := created.Data.ID
	if rootID == "" {
		return errors.New("POST /api/session returned no session id")
	}
	logf("v2 session %s", rootID)
	last := ""
	for _, prompt := range []string{mainPrompt, followUpPrompt} {
		var admitted struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := api.call(http.MethodPost, "/api/session/"+rootID+"/prompt", J("prompt", J("text", prompt)), &admitted); err != nil {
			return err
		}
		after := max(admitted.Data.ID, last)
		ctx, cancel := context.WithTimeout(context.Background(), opt.timeout)
		last, err = api.waitIdle(ctx, rootID, after)
		cancel()
		if err != nil {
			return fmt.Errorf("prompt %q: %w (see %s)", clip(prompt, 40), err, logDir)
		}
	}
	pages, err := api.messagePages(rootID)
	if err != nil {
		return err
	}
	srv.stop()

	sessionIDs, err := sqliteSessions(filepath.Join(l.opencodeData(), "opencode.db"))
	if err != nil {
		return fmt.Errorf("listing sessions: %w", err)
	}
	logf("sessions: %v", sessionIDs)
	exports := map[string][]byte{}
	for _, id := range sessionIDs {
		args := []string{"export", id}
		out, err := runOpencode(opt, bin, l.Proj, env, args, "", filepath.Join(logDir, "export-"+id))
		cmds = append(cmds, command{Argv: append([]string{"opencode"}, args...), Dir: l.Proj})
		if err != nil {
			return fmt.Errorf("export %s: %w", id, err)
		}
		exports[id] = out
	}

	final := filepath.Join(opt.outDir, f.Name)
	stage := filepath.Join(opt.outDir, "."+f.Name+".partial")
	_ = os.RemoveAll(stage)
	if err := os.MkdirAll(filepath.Join(stage, "data"), 0o755); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(stage)
		}
	}()
	dbCopy := filepath.Join(stage, "data", "opencode.db")
	if err := backupDB(filepath.Join(l.opencodeData(), "opencode.db"), dbCopy); err != nil {
		return fmt.Errorf("copying opencode.db: %w", err)
	}
	if err := saveConfigChain(l, stage); err != nil {
		return fmt.Errorf("copying the config files: %w", err)
	}
	spills, _ := filepath.Glob(filepath.Join(l.opencodeData(), "tool-output", "tool_*"))
	if len(spills) > 0 {
		if err := os.MkdirAll(filepath.Join(stage, "data", "tool-output"), 0o755); err != nil {
			return err
		}
		for _, s := range spills {
			if err := copyFile(s, filepath.Join(stage, "data", "tool-output", filepath.Base(s))); err != nil {
				return err
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(stage, "exports"), 0o755); err != nil {
		return err
	}
	problems := []string{}
	for _, id := range sessionIDs {
		if err := os.WriteFile(filepath.Join(stage, "exports", id+".json"), exports[id], 0o644); err != nil {
			return err
		}
		si, err := parseExport(exports[id])
		if err != nil {
			return fmt.Errorf("export of %s: %w", id, err)
		}
		if si.Assistants > 0 || len(si.UserTexts) > 0 {
			problems = append(problems, fmt.Sprintf("export of v2 session %s has messages (expected \"messages\": [])", id))
		}
	}
	// The export has no messages for a v2 session: keep what the v2 API
	// returns, every page of GET /api/session/:id/message as received.
	var pb bytes.Buffer
	pb.WriteString("[\n")
	for i, p := range pages {
		if i > 0 {
			pb.WriteString(",\n")
		}
		pb.Write(bytes.TrimSpace(p))
	}
	pb.WriteString("\n]\n")
	if err := os.WriteFile(filepath.Join(stage, "exports", rootID+".v2-messages.json"), pb.Bytes(), 0o644); err != nil {
		return err
	}

	sessions, err := v2Sessions(dbCopy)
	if err != nil {
		return fmt.Errorf("reading session_message: %w", err)
	}
	if err := checkPagesMatchRows(pages, sessions, rootID); err != nil {
		problems = append(problems, err.Error())
	}
	reqs := prov.captured()
	manifest := buildV2Manifest(reqs, sessions)
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

	problems = append(problems, prov.problems...)
	problems = append(problems, checkV2StepCounts(manifest, sessions)...)
	verbatim := checkV2Verbatim(f.Wire, reqs, manifest, sessions)
	problems = append(problems, verbatim.problems...)
	logf("verbatim check: %d tool results, %d found as sent in their session's requests, %d re-sent in every later request",
		verbatim.parts, verbatim.found, verbatim.resent)

	rec := map[string]any{
		"opencode_version": f.Version,
		"flavour":          f.Name,
		"provider":         f.ProviderID,
		"model":            f.ModelID,
		"wire":             f.Wire,
		"lowering":         f.lowering(),
		"text_only":        false, // declared with image input
		"date":             time.Now().UTC().Format(time.RFC3339),
		"recorder":         "go run ./testdata/record -flavour " + f.Name,
		"home":             l.Home,
		"project":          l.Proj,
		"data_dir":         l.opencodeData(),
		"fake_provider":    prov.baseURL(),
		"opencode_server":  srv.url,
		"env":              env,
		"opencode_json":    opencodeConfig(f, prov.baseURL()),
		"scenario": map[string]any{
			"prompt":         mainPrompt,
			"follow_up":      followUpPrompt,
			"main_steps":     len(script),
			"subagent_steps": 0,
		},
		"commands": cmds,
		// api: the v2 API calls that drove the session, in order (the
		// polling of GET /api/session/active and
		// GET /api/session/:id/message?order=desc&limit=1 left out).
		"api":          api.calls,
		"root_session": rootID,
		"sessions":     sessionIDs,
		"requests":     len(reqs),
		"problems":     problems,
	}
	return finishOpencodeFixture(opt, f, stage, final, rec, manifest, sessionIDs, problems)
}

// ---- opencode serve ----

type serveProc struct {
	cmd     *exec.Cmd
	url     string
	done    chan struct{}
	stopped bool
}

var listeningRe = regexp.MustCompile(`listening on (http://127\.0\.0\.1:[0-9]+)`)

// startServe starts opencode serve in its own process group and waits for
// the address it prints. Its stdout and stderr go to logBase.*.
func startServe(bin, dir string, env, args []string, logBase string) (*serveProc, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errFile, err := os.Create(logBase + ".stderr")
	if err != nil {
		return nil, err
	}
	cmd.Stderr = errFile
	outFile, err := os.Create(logBase + ".stdout")
	if err != nil {
		errFile.Close()
		return nil, err
	}
	logf("running opencode %s", strings.Join(args, " "))
	if err := cmd.Start(); err != nil {
		errFile.Close()
		outFile.Close()
		return nil, err
	}
	s := &serveProc{cmd: cmd, done: make(chan struct{})}
	urlCh := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			_, _ = outFile.WriteString(line + "\n")
			if m := listeningRe.FindStringSubmatch(line); m != nil {
				select {
				case urlCh <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(outFile, stdout)
		err := cmd.Wait()
		logf("  opencode serve exited: %v", errOrOK(err))
		outFile.Close()
		errFile.Close()
		close(s.done)
	}()
	select {
	case s.url = <-urlCh:
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("opencode serve exited before listening (see %s.stderr)", logBase)
	case <-time.After(2 * time.Minute):
		s.stop()
		return nil, fmt.Errorf("opencode serve printed no address within 2 minutes (see %s.stdout)", logBase)
	}
}

// stop ends the server's process group: SIGTERM, then SIGKILL after 10 s.
func (s *serveProc) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	pid := s.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		warnf("opencode serve did not stop on SIGTERM; killing it")
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-s.done
	}
	// leftovers (a timed-out shell command) die with the group
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// ---- the v2 HTTP API ----

type v2API struct {
	base  string
	log   string
	calls []apiCall
}

// apiCall is one driving call of the v2 API, as stored in record.json.
type apiCall struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Body   json.RawMessage `json:"body,omitempty"`
}

func (a *v2API) logLine(format string, args ...any) {
	f, err := os.OpenFile(a.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

// call makes a driving call (kept for record.json) and decodes its answer.
func (a *v2API) call(method, path string, body rawJSON, out any) error {
	c := apiCall{Method: method, Path: path}
	if body != "" {
		c.Body = json.RawMessage(body)
	}
	a.calls = append(a.calls, c)
	b, err := a.do(method, path, body)
	if err != nil {
		return err
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: %v: %s", method, path, err, clip(string(b), 300))
		}
	}
	return nil
}

func (a *v2API) do(method, path string, body rawJSON) ([]byte, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(string(body))
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		a.logLine("%s %s: %v", method, path, err)
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	a.logLine("%s %s %s -> %d %s", method, path, body, resp.StatusCode, clip(string(b), 400))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, clip(string(b), 500))
	}
	return b, nil
}

// waitIdle polls until the session is no longer active and its newest
// message is a completed assistant message newer than after whose finish
// is not "tool-calls" (POST /api/session/:id/wait is not implemented in
// 1.18.33). It returns that message's id.
func (a *v2API) waitIdle(ctx context.Context, sessionID, after string) (string, error) {
	var idleSince time.Time
	var newest []byte
	for {
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("session did not finish: %w; newest message: %s", err, clip(string(newest), 600))
		}
		time.Sleep(300 * time.Millisecond)
		act, err := a.do(http.MethodGet, "/api/session/active", "")
		if err != nil {
			return "", err
		}
		active := bytes.Contains(act, []byte(sessionID))
		b, err := a.do(http.MethodGet, "/api/session/"+sessionID+"/message?order=desc&limit=1", "")
		if err != nil {
			return "", err
		}
		var page struct {
			Data []struct {
				ID     string `json:"id"`
				Type   string `json:"type"`
				Finish string `json:"finish"`
				Time   struct {
					Completed *int64 `json:"completed"`
				} `json:"time"`
			} `json:"data"`
		}
		if err := json.Unmarshal(b, &page); err != nil {
			return "", fmt.Errorf("newest message: %v: %s", err, clip(string(b), 300))
		}
		newest = b
		if !active && len(page.Data) > 0 {
			m := page.Data[0]
			if m.Type == "assistant" && m.ID > after && m.Time.Completed != nil && m.Finish != "" && m.Finish != "tool-calls" {
				return m.ID, nil
			}
		}
		if active {
			idleSince = time.Time{}
			continue
		}
		if idleSince.IsZero() {
			idleSince = time.Now()
		} else if time.Since(idleSince) > 20*time.Second {
			return "", fmt.Errorf("session idle for 20 s without a final assistant message; newest message: %s", clip(string(b), 600))
		}
	}
}

// messagePages fetches every page of GET /api/session/:id/message,
// following cursor.next, and returns the bodies as received.
func (a *v2API) messagePages(sessionID string) ([][]byte, error) {
	path := "/api/session/" + sessionID + "/message"
	a.calls = append(a.calls, apiCall{Method: http.MethodGet, Path: path})
	var pages [][]byte
	for range 1000 {
		b, err := a.do(http.MethodGet, path, "")
		if err != nil {
			return nil, err
		}
		pages = append(pages, b)
		var pg struct {
			Data   []json.RawMessage `json:"data"`
			Cursor struct {
				Next *string `json:"next"`
			} `json:"cursor"`
		}
		if err := json.Unmarshal(b, &pg); err != nil {
			return nil, fmt.Errorf("GET %s: %v", path, err)
		}
		if pg.Cursor.Next == nil || *pg.Cursor.Next == "" || len(pg.Data) == 0 {
			return pages, nil
		}
		path = "/api/session/" + sessionID + "/message?cursor=" + url.QueryEscape(*pg.Cursor.Next)
	}
	return nil, errors.New("GET /api/session/:id/message: more than 1000 pages")
}

// ---- what the checks need from session_message ----

type v2Session struct {
	ID         string
	FirstUser  string
	UserTexts  []string
	Assistants int
	Rows       []v2Row
	Tools      []v2Tool
}

type v2Row struct {
	ID, Type string
	Seq      int64
	Data     json.RawMessage
}

type v2Tool struct {
	CallID, Name, Status string
	Step                 int // the assistant row (1-based) holding it
	State                v2State
}

type v2State struct {
	Status     string          `json:"status"`
	Input      json.RawMessage `json:"input"`
	Content    json.RawMessage `json:"content"`
	Structured json.RawMessage `json:"structured"`
	Error      json.RawMessage `json:"error"`
}

type v2Item struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// v2Sessions reads every session's session_message rows, in seq order.
func v2Sessions(dbPath string) ([]*v2Session, error) {
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	ids, err := sqliteSessions(dbPath)
	if err != nil {
		return nil, err
	}
	var out []*v2Session
	for _, id := range ids {
		s := &v2Session{ID: id}
		rows, err := db.Query(`SELECT id, type, seq, data FROM session_message WHERE session_id = ? ORDER BY seq, id`, id)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var r v2Row
			var data string
			if err := rows.Scan(&r.ID, &r.Type, &r.Seq, &data); err != nil {
				rows.Close()
				return nil, err
			}
			r.Data = json.RawMessage(data)
			s.Rows = append(s.Rows, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		for _, r := range s.Rows {
			switch r.Type {
			case "user":
				var u struct {
					Text string `json:"text"`
				}
				if err := json.Unmarshal(r.Data, &u); err != nil {
					return nil, fmt.Errorf("%s: %w", r.ID, err)
				}
				s.UserTexts = append(s.UserTexts, u.Text)
			case "assistant":
				s.Assistants++
				var a struct {
					Content []struct {
						Type  string  `json:"type"`
						ID    string  `json:"id"`
						Name  string  `json:"name"`
						State v2State `json:"state"`
					} `json:"content"`
				}
				if err := json.Unmarshal(r.Data, &a); err != nil {
					return nil, fmt.Errorf("%s: %w", r.ID, err)
				}
				for _, c := range a.Content {
					if c.Type == "tool" {
						s.Tools = append(s.Tools, v2Tool{CallID: c.ID, Name: c.Name, Status: c.State.Status, Step: s.Assistants, State: c.State})
					}
				}
			}
		}
		if len(s.UserTexts) > 0 {
			s.FirstUser = s.UserTexts[0]
		}
		out = append(out, s)
	}
	return out, nil
}

// checkPagesMatchRows checks the API pages against the table: the same
// messages, each = the row's data plus id and type.
func checkPagesMatchRows(pages [][]byte, sessions []*v2Session, id string) error {
	var s *v2Session
	for _, x := range sessions {
		if x.ID == id {
			s = x
		}
	}
	if s == nil {
		return fmt.Errorf("v2 session %s is not in the session table", id)
	}
	byID := map[string]map[string]any{}
	for _, p := range pages {
		var pg struct {
			Data []map[string]any `json:"data"`
		}
		if err := json.Unmarshal(p, &pg); err != nil {
			return fmt.Errorf("v2 message page: %v", err)
		}
		for _, m := range pg.Data {
			mid, _ := m["id"].(string)
			byID[mid] = m
		}
	}
	if len(byID) != len(s.Rows) {
		return fmt.Errorf("v2 session %s: the API returned %d messages, session_message has %d rows", id, len(byID), len(s.Rows))
	}
	for _, r := range s.Rows {
		m, ok := byID[r.ID]
		if !ok {
			return fmt.Errorf("v2 session %s: row %s missing from the API pages", id, r.ID)
		}
		var want map[string]any
		if err := json.Unmarshal(r.Data, &want); err != nil {
			return err
		}
		want["id"], want["type"] = r.ID, r.Type
		a, _ := json.Marshal(m)
		b, _ := json.Marshal(want)
		if !bytes.Equal(a, b) {
			return fmt.Errorf("v2 session %s: message %s from the API differs from its row's data + id/type", id, r.ID)
		}
	}
	return nil
}

// buildV2Manifest maps each request to the v2 session whose first user text
// it starts with; step = 1 + that session's earlier requests.
func buildV2Manifest(reqs []*captured, sessions []*v2Session) []manifestEntry {
	steps := map[string]int{}
	out := manifestEntries(reqs)
	for i, r := range reqs {
		e := &out[i]
		first := strings.TrimSpace(r.conv.firstUser)
		for _, s := range sessions {
			if first != "" && strings.TrimSpace(s.FirstUser) == first {
				e.Session = s.ID
				break
			}
		}
		if e.Session != "" {
			steps[e.Session]++
			e.Step = steps[e.Session]
		}
	}
	return out
}

func checkV2StepCounts(manifest []manifestEntry, sessions []*v2Session) []string {
	var problems []string
	count := map[string]int{}
	for _, e := range manifest {
		switch {
		case e.Kind != "main":
			problems = append(problems, fmt.Sprintf("request %s: a %s request (the v2 loop was expected to make only main requests)", e.File, e.Kind))
		case e.Session == "":
			problems = append(problems, fmt.Sprintf("request %s: main request matches no stored session", e.File))
		default:
			count[e.Session]++
		}
	}
	for _, s := range sessions {
		if count[s.ID] != s.Assistants {
			problems = append(problems, fmt.Sprintf("session %s: %d main requests but %d assistant rows in session_message", s.ID, count[s.ID], s.Assistants))
		} else {
			logf("session %s: %d main requests = %d assistant rows, %d tool calls", s.ID, count[s.ID], s.Assistants, len(s.Tools))
		}
	}
	return problems
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// v2Expected is how the references say a stored v2 tool state reaches the
// wire (toResultValue): the texts of the result and its number of images.
// Completed: no content → JSON.stringify(structured); one text item → it;
// several items → Chat: the text items joined with "\n" (files in a later
// user message), Anthropic: one text block per text item plus image
// blocks. Error → JSON.stringify({error, content, structured}).
func v2Expected(wire string, st v2State) (texts []string, images int, isError bool) {
	if st.Status == "error" {
		var b strings.Builder
		b.WriteByte('{')
		for _, kv := range []struct {
			k string
			v json.RawMessage
		}{{"error", st.Error}, {"content", st.Content}, {"structured", st.Structured}} {
			if len(kv.v) == 0 {
				continue
			}
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + kv.k + `":` + compactJSON(kv.v))
		}
		b.WriteByte('}')
		return []string{b.String()}, 0, true
	}
	var items []v2Item
	_ = json.Unmarshal(st.Content, &items)
	switch {
	case len(items) == 0:
		return []string{compactJSON(st.Structured)}, 0, false
	case len(items) == 1 && items[0].Type == "text":
		return []string{items[0].Text}, 0, false
	}
	for _, it := range items {
		if it.Type == "text" {
			texts = append(texts, it.Text)
		} else {
			images++
		}
	}
	if wire == "chat" {
		return []string{strings.Join(texts, "\n")}, 0, false
	}
	return texts, images, false
}

// v2Sent finds the result of callID in a request body: its texts, images
// and error flag (Anthropic is_error).
func v2Sent(wire string, doc map[string]any, callID string) (texts []string, images int, isError, found bool) {
	arr := func(v any) []any { a, _ := v.([]any); return a }
	obj := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	for _, m := range arr(doc["messages"]) {
		mm := obj(m)
		switch wire {
		case "chat":
			if mm["role"] == "tool" && mm["tool_call_id"] == callID {
				s, _ := mm["content"].(string)
				return []string{s}, 0, false, true
			}
		case "anthropic":
			for _, b := range arr(mm["content"]) {
				bb := obj(b)
				if bb["type"] != "tool_result" || bb["tool_use_id"] != callID {
					continue
				}
				isError, _ = bb["is_error"].(bool)
				if s, ok := bb["content"].(string); ok {
					return []string{s}, 0, isError, true
				}
				for _, x := range arr(bb["content"]) {
					xx := obj(x)
					switch xx["type"] {
					case "text":
						s, _ := xx["text"].(string)
						texts = append(texts, s)
					case "image":
						images++
					}
				}
				return texts, images, isError, true
			}
		}
	}
	return nil, 0, false, false
}

// checkV2Verbatim checks that every stored v2 tool result reaches the wire
// as the references say (v2Expected), in every later request of its session.
func checkV2Verbatim(wire string, reqs []*captured, manifest []manifestEntry, sessions []*v2Session) verbatimResult {
	var res verbatimResult
	docs := make([]map[string]any, len(reqs))
	for i, r := range reqs {
		_ = json.Unmarshal(r.Body, &docs[i])
	}
	for _, s := range sessions {
		for _, t := range s.Tools {
			res.parts++
			wantTexts, wantImages, wantErr := v2Expected(wire, t.State)
			var later, hit int
			var mismatch string
			for i, e := range manifest {
				if e.Kind != "main" || e.Session != s.ID || e.Step <= t.Step {
					continue
				}
				later++
				texts, images, isErr, found := v2Sent(wire, docs[i], t.CallID)
				ok := found && equalStrings(texts, wantTexts) && images == wantImages && (wire != "anthropic" || isErr == wantErr)
				if ok {
					hit++
				} else if mismatch == "" {
					if !found {
						mismatch = fmt.Sprintf("request %s has no result for it", e.File)
					} else {
						mismatch = fmt.Sprintf("request %s sends %q (%d images, is_error %v), expected %q (%d images, is_error %v)",
							e.File, clip(strings.Join(texts, "|"), 200), images, isErr, clip(strings.Join(wantTexts, "|"), 200), wantImages, wantErr)
					}
				}
			}
			if hit > 0 {
				res.found++
			}
			if hit == later && later > 0 {
				res.resent++
			}
			switch {
			case later == 0:
				res.problems = append(res.problems, fmt.Sprintf("%s %s (%s, step %d): no later request to carry its result", s.ID, t.CallID, t.Name, t.Step))
			case hit != later:
				res.problems = append(res.problems, fmt.Sprintf("%s %s (%s %s, step %d): result as sent in %d of %d later requests: %s",
					s.ID, t.CallID, t.Name, t.Status, t.Step, hit, later, mismatch))
			}
		}
	}
	return res
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
