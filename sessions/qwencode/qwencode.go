// Package qwencode reads Qwen Code (npm @qwen-code/qwen-code, a Gemini CLI
// fork; checked against 0.24.4) sessions, and registers their driver, their
// own OpenAI Chat wire (wire.go) and their truncation markers (markers.go).
//
// Qwen Code keeps, under its runtime dir ($QWEN_RUNTIME_DIR, else
// $QWEN_HOME, else ~/.qwen):
//
//	projects/<cwd, every non-alphanumeric "-">/chats/<session uuid>.jsonl
//	projects/<…>/subagents/<parent uuid>/agent-<agent id>.jsonl (+ .meta.json)
//	tmp/<sha256 of the project path>/<tool>_<12 hex>.output  (spills)
//
// Each line is {"uuid","parentUuid","sessionId","timestamp","type","cwd",
// "version",…,"message":{"role","parts":[…]}} with Gemini-form parts: type
// user (the typed prompt only), assistant (role "model": {text,thought},
// {text}, {functionCall:{id,name,args}}), tool_result (one
// {functionResponse:{id,name,response:{output|error},parts?}} per call) and
// system (ui_telemetry, attribution_snapshot: never sent, skipped). A
// subagent's lines repeat the parent's sessionId and carry its "agentId";
// one model response of a subagent may take two assistant lines (the
// thought, then the calls), the later one without usageMetadata.
//
// The model saw each result as its tool message: response.output, else
// response.error, else the response's JSON (shown as stored), with the
// functionResponse's media in a user message after the batch's results.
package qwencode

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"correx/formatters"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// Agent is Qwen Code's agent id (its fixtures: testdata/qwen-code/).
const Agent model.Agent = "qwen-code"

func init() {
	model.RegisterAgent(model.AgentSpec{Agent: Agent, Name: "Qwen Code", Version: "0.24.4"})
	sessions.Register(sessions.Driver{Agent: Agent, Locations: locations, Open: open, SpillFolders: spillFolders})
	render.RegisterOwnWire(Agent, render.OwnWire{Provider: render.OpenAIChat, Conversation: conversation, Gaps: gaps})
	formatters.RegisterMarkers(markers)
}

// Dirs are the runtime dirs Qwen Code would use here: $QWEN_RUNTIME_DIR
// (where it puts projects/ and tmp/ when set), the settings'
// advanced.runtimeOutputDir of its global dir when absolute (a relative
// one is per project: not followed), and the global dir $QWEN_HOME, by
// default ~/.qwen.
func Dirs() []string {
	var out []string
	add := func(d string) {
		if d != "" && !slices.Contains(out, filepath.Clean(d)) {
			out = append(out, filepath.Clean(d))
		}
	}
	add(os.Getenv("QWEN_RUNTIME_DIR"))
	global := sessions.AgentDir("QWEN_HOME", ".qwen")
	if global == "" {
		return out
	}
	if b, err := sessions.ReadHead(filepath.Join(global, "settings.json"), 1<<20); err == nil {
		var st struct {
			Advanced struct {
				RuntimeOutputDir string `json:"runtimeOutputDir"`
			} `json:"advanced"`
		}
		_ = json.Unmarshal(b, &st)
		d := st.Advanced.RuntimeOutputDir
		if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(d, "~/") {
			d = filepath.Join(home, d[2:])
		}
		if filepath.IsAbs(d) {
			add(d)
		}
	}
	add(global)
	return out
}

func locations() []string {
	var out []string
	for _, d := range Dirs() {
		if len(chatFiles(d)) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// open claims a runtime dir, its projects/, a project dir, a chats/ or
// subagents/<parent>/ dir, or one session file, when a file there holds
// Qwen Code lines.
func open(path string, dir bool) (sessions.Store, bool, error) {
	var files []string
	if dir {
		files = chatFiles(path)
	} else if strings.HasSuffix(path, ".jsonl") {
		files = []string{path}
	}
	if len(files) == 0 || !isQwenFile(files[0]) {
		return nil, false, nil
	}
	return &sessions.FileStore{
		Root: path,
		Files: func() ([]string, []string) {
			if !dir {
				return []string{path}, nil
			}
			return chatFiles(path), nil
		},
		Read: read,
	}, true, nil
}

// chatFiles lists the session files under dir, which is a runtime dir,
// its projects/, a project dir, a chats/ dir or a subagents/<parent>/ dir.
func chatFiles(dir string) []string {
	var pats []string
	switch {
	case sessions.IsDir(filepath.Join(dir, "projects")):
		pats = []string{"projects/*/chats/*.jsonl", "projects/*/subagents/*/*.jsonl"}
	case filepath.Base(dir) == "projects":
		pats = []string{"*/chats/*.jsonl", "*/subagents/*/*.jsonl"}
	case sessions.IsDir(filepath.Join(dir, "chats")):
		pats = []string{"chats/*.jsonl", "subagents/*/*.jsonl"}
	case filepath.Base(dir) == "chats":
		pats = []string{"*.jsonl", "../subagents/*/*.jsonl"}
	case filepath.Base(filepath.Dir(dir)) == "subagents":
		pats = []string{"*.jsonl"}
	}
	var files []string
	for _, p := range pats {
		m, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(p)))
		files = append(files, m...)
	}
	sort.Strings(files)
	return files
}

// isQwenFile says whether the first line of a file is a Qwen Code line: a
// uuid-chained line whose message holds Gemini-form "parts" (Claude Code's
// lines, chained the same way, hold "content").
func isQwenFile(path string) bool {
	b, err := sessions.ReadHead(path, 64<<10)
	if err != nil {
		return false
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	var l struct {
		UUID      string `json:"uuid"`
		SessionID string `json:"sessionId"`
		Message   *struct {
			Parts json.RawMessage `json:"parts"`
		} `json:"message"`
	}
	return json.Unmarshal(first, &l) == nil && l.UUID != "" && l.SessionID != "" &&
		l.Message != nil && bytes.HasPrefix(bytes.TrimSpace(l.Message.Parts), []byte("["))
}

// spillFolders: the project's temp dir the session's DataDir names, in the
// store and in this machine's runtime dirs.
func spillFolders(dataDir string) []string {
	out := []string{dataDir}
	for _, d := range Dirs() {
		out = append(out, filepath.Join(d, "tmp", filepath.Base(dataDir)))
	}
	return out
}

// line is the part of a line correx reads.
type line struct {
	UUID      string          `json:"uuid"`
	Parent    *string         `json:"parentUuid"`
	Subtype   string          `json:"subtype"`
	Payload   json.RawMessage `json:"systemPayload"`
	SessionID string          `json:"sessionId"`
	AgentID   string          `json:"agentId"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Cwd       string          `json:"cwd"`
	Version   string          `json:"version"`
	Model     string          `json:"model"`
	Usage     json.RawMessage `json:"usageMetadata"`
	Message   json.RawMessage `json:"message"`
	Result    *struct {
		Status string `json:"status"`
	} `json:"toolCallResult"`
}

// part is a Gemini-form part as Qwen Code stores it.
type part struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *response `json:"functionResponse"`
	InlineData       *media    `json:"inlineData"`
}

type response struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
	Parts    []part          `json:"parts"`
}

type media struct {
	MimeType    string `json:"mimeType"`
	Data        string `json:"data"`
	DisplayName string `json:"displayName"`
}

func partsOf(msg json.RawMessage) ([]part, error) {
	var m struct {
		Parts []part `json:"parts"`
	}
	err := json.Unmarshal(msg, &m)
	return m.Parts, err
}

// read reads one session file: a chat, or a subagent's transcript (its
// own session, child of the chat's).
func read(path string) (*model.Session, error) {
	sess := &model.Session{Info: model.SessionInfo{Agent: Agent, Source: path}}
	warnf := sessions.LineWarner(&sess.Warnings, path)
	var (
		calls   = map[string]*model.ToolCall{}
		cwd     string
		qwen    bool
		lastNew bool // the last message is an assistant line that began a response
	)
	at := func(ts string) time.Time {
		t, _ := time.Parse(time.RFC3339Nano, ts)
		return t
	}
	var lines []numbered
	err := sessions.ReadJSONL(path, func(n int, b []byte, _ bool) {
		var l line
		if err := json.Unmarshal(b, &l); err != nil {
			warnf(n, "skipped a line that is not a JSON object (%v)", err)
			return
		}
		if l.SessionID == "" || l.UUID == "" {
			warnf(n, "skipped a line without uuid or sessionId: not a Qwen Code line")
			return
		}
		lines = append(lines, numbered{n, l})
	}, warnf)
	if err != nil {
		return nil, err
	}
	for _, nl := range activeBranch(lines, warnf) {
		n, l := nl.n, nl.l
		qwen = true
		if sess.Info.ID == "" {
			sess.Info.ID = cmp.Or(l.AgentID, l.SessionID)
			if l.AgentID != "" {
				sess.Info.ParentID = l.SessionID
			}
			sess.Info.Created = at(l.Timestamp)
		}
		if t := at(l.Timestamp); t.After(sess.Info.Updated) {
			sess.Info.Updated = t
		}
		sess.Info.Version = cmp.Or(l.Version, sess.Info.Version)
		cwd = cmp.Or(l.Cwd, cwd)
		if l.Type == "system" {
			system(sess, n, l, warnf)
			continue
		}
		if l.Type != "user" && l.Type != "assistant" && l.Type != "tool_result" {
			continue
		}
		parts, err := partsOf(l.Message)
		if err != nil {
			warnf(n, "skipped a %s line whose message has no Gemini parts (%v)", l.Type, err)
			continue
		}
		msgs := &sess.Messages
		last := func() *model.Message {
			if len(*msgs) == 0 {
				return nil
			}
			return &(*msgs)[len(*msgs)-1]
		}
		switch l.Type {
		case "user":
			m := model.Message{ID: l.UUID, Role: model.RoleUser, Created: at(l.Timestamp), Completed: at(l.Timestamp), Stored: []json.RawMessage{l.Message}}
			for i, p := range parts {
				if p.Text != nil && !p.Thought {
					m.Parts = append(m.Parts, model.Part{ID: fmt.Sprintf("%s-%d", l.UUID, i), Type: model.PartText, Text: *p.Text})
				}
			}
			*msgs = append(*msgs, m)
			lastNew = false
		case "assistant":
			// a subagent's response may go on in a line without usage
			m := last()
			if m == nil || m.Role != model.RoleAssistant || len(l.Usage) > 0 || !lastNew {
				*msgs = append(*msgs, model.Message{ID: l.UUID, Role: model.RoleAssistant, Created: at(l.Timestamp), ProviderID: "openai", ModelID: l.Model})
				m = last()
			}
			lastNew = len(l.Usage) > 0
			m.Completed = at(l.Timestamp)
			m.ModelID = cmp.Or(l.Model, m.ModelID)
			m.Stored = append(m.Stored, l.Message)
			for i, p := range parts {
				id := fmt.Sprintf("%s-%d", l.UUID, i)
				switch {
				case p.FunctionCall != nil:
					c := &model.ToolCall{CallID: p.FunctionCall.ID, Tool: p.FunctionCall.Name, Input: p.FunctionCall.Args, Status: model.StatusRunning, Start: at(l.Timestamp)}
					calls[c.CallID] = c
					m.Parts = append(m.Parts, model.Part{ID: cmp.Or(c.CallID, id), Type: model.PartTool, Tool: c})
				case p.Text != nil && p.Thought:
					m.Parts = append(m.Parts, model.Part{ID: id, Type: model.PartReasoning, Text: *p.Text})
				case p.Text != nil:
					m.Parts = append(m.Parts, model.Part{ID: id, Type: model.PartText, Text: *p.Text})
				}
			}
		case "tool_result":
			m := last()
			if m == nil || m.Role != model.RoleAssistant {
				warnf(n, "skipped a tool result with no assistant line before it")
				continue
			}
			m.Stored = append(m.Stored, l.Message)
			lastNew = false
			for _, p := range parts {
				fr := p.FunctionResponse
				if fr == nil {
					continue
				}
				c := calls[fr.ID]
				if c == nil {
					warnf(n, "skipped the result of an unknown call %q", fr.ID)
					continue
				}
				c.End = at(l.Timestamp)
				setResult(c, fr, l.Result)
			}
		}
	}
	if !qwen {
		return nil, sessions.NotSession(path, "no Qwen Code line")
	}
	sess.Info.Directory = cwd
	sess.Info.DataDir = filepath.Join(runtimeDir(path), "tmp", ProjectHash(cwd))
	if sess.Info.ParentID != "" {
		subagentModel(sess, path)
	}
	linkSubagents(sess, path)
	finish(sess)
	return sess, nil
}

type numbered struct {
	n int
	l line
}

// activeBranch is the conversation the file's last line continues: its
// parentUuid chain back to the first line (a rewind leaves the lines it
// undid off the chain). A chain that breaks (a parent the file lacks)
// keeps every line, with a warning.
func activeBranch(lines []numbered, warnf func(int, string, ...any)) []numbered {
	if len(lines) == 0 {
		return nil
	}
	at := map[string]int{}
	for i, nl := range lines {
		at[nl.l.UUID] = i
	}
	on := make([]bool, len(lines))
	for i := len(lines) - 1; ; {
		if on[i] {
			break // a cycle
		}
		on[i] = true
		p := lines[i].l.Parent
		if p == nil || *p == "" {
			break
		}
		j, ok := at[*p]
		if !ok {
			warnf(lines[i].n, "the parentUuid chain breaks here (no line %s): every line is read", *p)
			return lines
		}
		i = j
	}
	var out []numbered
	for i, nl := range lines {
		if on[i] {
			out = append(out, nl)
		}
	}
	return out
}

// compressedMark, in the Stored of the last message before it, says that
// Qwen Code compressed the conversation there (a chat_compression line):
// it then sent the compressed history it recorded, which correx does not
// rebuild (gaps says so).
var compressedMark = json.RawMessage(`{"qwen_compressed":true}`)

// system reads a system line: a custom title, a compression.
func system(sess *model.Session, n int, l line, warnf func(int, string, ...any)) {
	switch l.Subtype {
	case "custom_title":
		var p struct {
			Title string `json:"customTitle"`
		}
		if json.Unmarshal(l.Payload, &p) == nil && p.Title != "" {
			sess.Info.Title, _, _ = strings.Cut(strings.TrimSpace(p.Title), "\n")
		}
	case "chat_compression":
		if k := len(sess.Messages); k > 0 {
			m := &sess.Messages[k-1]
			m.Stored = append(m.Stored, compressedMark)
		}
		warnf(n, "Qwen Code compressed the conversation here: the requests after it went with the compressed history it recorded, and correx rebuilds them from the whole conversation")
	}
}

// ProjectHash names a project's temp dir: the sha256 of its path, in hex.
func ProjectHash(project string) string {
	h := sha256.Sum256([]byte(project))
	return hex.EncodeToString(h[:])
}

// runtimeDir is the dir holding projects/ of a session file.
func runtimeDir(path string) string {
	for d := filepath.Dir(path); d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == "projects" {
			return filepath.Dir(d)
		}
	}
	return filepath.Dir(path)
}

// setResult is the call's result as the model got it: response.output is
// text, else response.error an error, else the response's JSON; media
// parts are files after the text.
func setResult(c *model.ToolCall, fr *response, status *struct {
	Status string `json:"status"`
}) {
	var resp map[string]json.RawMessage
	_ = json.Unmarshal(fr.Response, &resp)
	var text string
	v := model.ToolResultValue{Type: model.ResultText}
	switch {
	case json.Unmarshal(resp["output"], &text) == nil && resp["output"] != nil:
		v.Text = text
	case json.Unmarshal(resp["error"], &text) == nil && resp["error"] != nil:
		v = model.ToolResultValue{Type: model.ResultError, Text: text}
	default:
		var b bytes.Buffer
		_ = json.Compact(&b, fr.Response)
		v = model.ToolResultValue{Type: model.ResultJSON, JSON: b.Bytes()}
	}
	var items []model.ToolContent
	for _, p := range fr.Parts {
		switch {
		case p.InlineData != nil:
			items = append(items, model.ToolContent{Type: model.ContentFile, Mime: p.InlineData.MimeType, Name: p.InlineData.DisplayName,
				URI: "data:" + p.InlineData.MimeType + ";base64," + p.InlineData.Data})
		case p.Text != nil && *p.Text != "":
			items = append(items, model.ToolContent{Type: model.ContentText, Text: *p.Text})
		}
	}
	if len(items) > 0 {
		v = model.ToolResultValue{Type: model.ResultContent, Content: append([]model.ToolContent{{Type: model.ContentText, Text: formatters.ResultText(v)}}, items...)}
	}
	c.Sent = &v
	c.Status = model.StatusCompleted
	if v.Type == model.ResultError || status != nil && status.Status == "error" {
		c.Status = model.StatusError
		c.Error = formatters.ResultText(v)
	} else {
		c.Output = formatters.ResultText(v)
	}
}

// subagentModel gives a subagent's steps the model of its meta file
// (agent-<id>.meta.json: its own "model", else the run's CLI model): its
// lines name none.
func subagentModel(sess *model.Session, path string) {
	b, err := sessions.ReadFile(strings.TrimSuffix(path, ".jsonl") + ".meta.json")
	if err != nil {
		return
	}
	var meta struct {
		Model string `json:"model"`
		Flags struct {
			Model string `json:"model"`
		} `json:"persistedCliFlags"`
	}
	if json.Unmarshal(b, &meta) != nil {
		return
	}
	for i := range sess.Messages {
		if m := &sess.Messages[i]; m.Role == model.RoleAssistant && m.ModelID == "" {
			m.ModelID = cmp.Or(meta.Model, meta.Flags.Model)
		}
	}
}

// linkSubagents points each agent call of a chat at the subagent session
// it ran: subagents/<session>/agent-<type>-<call id>.jsonl.
func linkSubagents(sess *model.Session, path string) {
	if sess.Info.ParentID != "" || filepath.Base(filepath.Dir(path)) != "chats" {
		return
	}
	dir := filepath.Join(filepath.Dir(filepath.Dir(path)), "subagents", sess.Info.ID)
	files, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	for _, r := range sess.ToolCalls() {
		for _, f := range files {
			id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "agent-"), ".jsonl")
			if r.Call.CallID != "" && strings.HasSuffix(id, "-"+r.Call.CallID) {
				r.Call.ChildSessionID = id
			}
		}
	}
}

// finish counts the session's messages, calls, errors and truncations
// and titles it with its first prompt's first line.
func finish(sess *model.Session) {
	sess.Info.Messages = len(sess.Messages)
	for _, m := range sess.Messages {
		if sess.Info.Title == "" && m.Role == model.RoleUser && len(m.Parts) > 0 {
			sess.Info.Title, _, _ = strings.Cut(strings.TrimSpace(m.Parts[0].Text), "\n")
		}
	}
	sessions.CountDetected(sess)
}
