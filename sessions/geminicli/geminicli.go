// Package geminicli reads Gemini CLI's chat recordings (the agent's
// driver: see driver.go) and rebuilds the requests Gemini CLI sent
// (wire.go). Qwen Code, a fork, may share its pieces.
package geminicli

// Gemini CLI chat recordings: <home>/.gemini/tmp/<project>/chats/
// session-<ts>-<id8>.jsonl (subagents: chats/<parent id>/<id>.jsonl), and
// the older single-JSON session-*.json. A JSONL file holds a metadata line
// {"sessionId","projectHash",…} (one more per resumed run), message records
// {"id","type",…} re-appended whenever they change (last write wins),
// {"$set":{…}} updates (with "messages": the whole list replaced: a resume
// rewrites the history that way) and {"$rewindTo":id}.
//
// The model saw toolCalls[].result: the functionResponse parts, as stored
// (the wire id drops the stored "<tool>__" prefix). Spilled outputs are in
// <project>/tool-outputs/session-<id>/.
//
// Message.Stored holds, for render, the versions of each record that the
// runs used: one JSON object per run {"run":N,"set":bool,"record":{…}},
// set false for the record as that run wrote it live, true for the record
// as a `$set messages` of that run (a resume) rewrote it; and, for a record
// in the history a resumed run loaded (the file as it stood when the run
// began), {"history":[runs]}.
//
// A resumed run's context management (tool output masking) can re-record
// the whole history as sent under new ids and `$set` the list to those
// only (setHistory): the replaced records stay the session's messages, and
// the last of them carries the new records in Stored as
// {"rewrite":{"run","id","versions","history"}} (geminiShown).
//
// A run begins at a metadata line, or at the {"$set":{"sessionId"}} a
// resume writes into the file it resumes when messages were written since
// the last metadata line: a resume first starts a chat file named for the
// minute it starts in (its metadata and session context), which is the
// resumed file itself in the same minute and a stub beside it in another.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"correx/formatters"
	"correx/model"
	"correx/sessions"
)

// gcRecord is the part of a message record correx reads.
type gcRecord struct {
	ID          string          `json:"id"`
	Timestamp   string          `json:"timestamp"`
	Type        string          `json:"type"`
	Content     json.RawMessage `json:"content"`
	Thoughts    []gcThought     `json:"thoughts"`
	ToolCalls   []gcToolCall    `json:"toolCalls"`
	Model       string          `json:"model"`
	DisplayText json.RawMessage `json:"displayContent"`
}

type gcThought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

type gcToolCall struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Args        json.RawMessage `json:"args"`
	Result      json.RawMessage `json:"result"`
	Status      string          `json:"status"`
	Timestamp   string          `json:"timestamp"`
	Description string          `json:"description"`
	DisplayName string          `json:"displayName"`
	AgentID     string          `json:"agentId"` // invoke_agent: the subagent's session
}

// gcEntry is one message of the list with its versions per run.
type gcEntry struct {
	id       string
	versions []gcVersion
	firstRun int
	history  []int      // the resumed runs whose history held it
	rewrite  *gcRewrite // the setHistory that wrote the record, if one did
	carried  []*gcEntry // setHistory records this shown entry carries
}

// gcRewrite is one setHistory: the run, its records and the list entries
// they took the place of.
type gcRewrite struct {
	run      int
	entries  []*gcEntry
	replaced []*gcEntry
	shown    bool
}

type gcVersion struct {
	Run    int             `json:"run"`
	Set    bool            `json:"set"`
	Record json.RawMessage `json:"record"`
}

func (e *gcEntry) put(run int, set bool, rec json.RawMessage) {
	if n := len(e.versions); n > 0 && e.versions[n-1].Run == run {
		e.versions[n-1] = gcVersion{run, set, rec}
		return
	}
	e.versions = append(e.versions, gcVersion{run, set, rec})
}

// ReadChat reads one chat file (JSONL, or the legacy single JSON).
func ReadChat(path string) (*model.Session, error) {
	sess := &model.Session{Info: model.SessionInfo{Agent: model.AgentGeminiCLI, Source: path, DataDir: geminiProjectDir(path)}}
	warnf := sessions.LineWarner(&sess.Warnings, path)
	var (
		list    []*gcEntry
		all     = map[string]*gcEntry{}
		run     int
		written bool // a message record was appended since the run began
		meta    bool
		updated time.Time
		rewound = map[*gcEntry]bool{} // left by a $rewindTo
		order   []*gcEntry            // every entry, as first seen
	)
	entry := func(id string) *gcEntry {
		e := all[id]
		if e == nil {
			e = &gcEntry{id: id, firstRun: run}
			all[id] = e
			order = append(order, e)
		}
		return e
	}
	setMeta := func(n int, raw json.RawMessage) {
		var m struct {
			SessionID   string `json:"sessionId"`
			StartTime   string `json:"startTime"`
			LastUpdated string `json:"lastUpdated"`
			Kind        string `json:"kind"`
			Summary     string `json:"summary"`
		}
		_ = json.Unmarshal(raw, &m)
		if !meta && m.SessionID != "" {
			meta = true
			sess.Info.ID = m.SessionID
			sess.Info.Created = sessions.ParseTime(m.StartTime)
			if m.Kind == "subagent" {
				// chats/<parent session id>/<id>.jsonl
				sess.Info.ParentID = filepath.Base(filepath.Dir(path))
			}
		}
		if t := sessions.ParseTime(m.LastUpdated); t.After(updated) {
			updated = t
		}
		if m.Summary != "" {
			// a subagent's summary is its complete_task result, often
			// indented JSON: the title is one line
			sess.Info.Title = strings.Join(strings.Fields(m.Summary), " ")
		}
	}
	record := func(n int, raw json.RawMessage, set bool) *gcEntry {
		var r gcRecord
		if err := json.Unmarshal(raw, &r); err != nil || r.ID == "" {
			warnf(n, "skipped a message record without id")
			return nil
		}
		if t := sessions.ParseTime(r.Timestamp); t.After(updated) {
			updated = t
		}
		e := entry(r.ID)
		e.put(run, set, sessions.CompactJSON(raw))
		return e
	}
	// a run after the first resumed the file as it stood: the messages of
	// the list then are its history
	newRun := func() {
		run++
		written = false
		if run > 1 {
			for _, e := range list {
				e.history = append(e.history, run)
			}
		}
	}
	line := func(n int, b []byte, _ bool) {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(b, &top); err != nil {
			warnf(n, "skipped a line that is not a JSON object (%v)", err)
			return
		}
		switch {
		case top["$rewindTo"] != nil:
			var id string
			_ = json.Unmarshal(top["$rewindTo"], &id)
			for i, e := range list {
				if e.id == id {
					for _, x := range list[i:] {
						rewound[x] = true
					}
					list = list[:i]
					break
				}
			}
		case top["$set"] != nil:
			var set map[string]json.RawMessage
			if err := json.Unmarshal(top["$set"], &set); err != nil {
				warnf(n, "skipped a $set that is not an object")
				return
			}
			// a resume writes {"$set":{"sessionId"}} into the file it
			// resumes; when that run began in another minute, its metadata
			// line went into a chat file of its own
			if set["sessionId"] != nil && written {
				newRun()
			}
			setMeta(n, top["$set"])
			if msgs, ok := set["messages"]; ok {
				var recs []json.RawMessage
				if err := json.Unmarshal(msgs, &recs); err != nil {
					warnf(n, "skipped a $set of messages that is not a list")
					return
				}
				// a Map by id, as Gemini CLI loads it: a repeated id keeps
				// its first place and its last record
				old := list
				list = list[:0:0]
				in := map[*gcEntry]bool{}
				for _, r := range recs {
					if e := record(n, r, true); e != nil && !in[e] {
						in[e] = true
						list = append(list, e)
					}
				}
				geminiMarkRewrite(run, written, old, list)
			}
		case top["sessionId"] != nil && top["id"] == nil:
			newRun()
			setMeta(n, b)
		case top["id"] != nil:
			if run == 0 {
				run = 1
			}
			e := record(n, b, false)
			if e == nil {
				return
			}
			written = true
			found := false
			for _, x := range list {
				found = found || x == e
			}
			if !found {
				list = append(list, e)
			}
		default:
			warnf(n, "skipped an unknown line")
		}
	}
	if strings.HasSuffix(path, ".json") {
		b, err := sessions.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var doc struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, sessions.NotSession(path, "not JSON: "+err.Error())
		}
		run = 1
		setMeta(1, b)
		for _, m := range doc.Messages {
			if e := record(1, m, false); e != nil {
				list = append(list, e)
			}
		}
	} else if err := sessions.ReadJSONL(path, line, warnf); err != nil {
		return nil, err
	}
	if !meta {
		return nil, sessions.NotSession(path, "no sessionId: not a Gemini CLI chat")
	}
	sess.Info.Updated = updated
	shown := geminiShown(list)
	geminiWarnReplaced(sess, path, order, shown, rewound)
	for _, e := range shown {
		if m, ok := geminiMessage(e, sess); ok {
			sess.Messages = append(sess.Messages, m)
		}
	}
	finishGeminiInfo(sess)
	return sess, nil
}

// geminiMarkRewrite recognises Gemini CLI's setHistory in a resumed run:
// its context management (tool output masking) re-records the whole
// history as sent, one record per content under new ids, then a `$set`
// of those records only. The entries it replaced stay the session's
// steps; the records are what the run (and every later one) sent as that
// history.
func geminiMarkRewrite(run int, written bool, old, set []*gcEntry) {
	if run < 2 || !written || len(set) == 0 {
		return
	}
	in := map[*gcEntry]bool{}
	for _, e := range set {
		in[e] = true
		for _, v := range e.versions {
			if v.Run != run {
				return
			}
		}
		if e.firstRun != run {
			return
		}
	}
	var replaced []*gcEntry
	for _, e := range old {
		if !in[e] {
			replaced = append(replaced, e)
		}
	}
	if len(replaced) == 0 {
		return
	}
	rw := &gcRewrite{run: run, entries: set, replaced: replaced}
	for _, e := range set {
		e.rewrite = rw
	}
}

// geminiShown is the list as the session's messages: a setHistory's
// records give way to the entries they replaced, the last of which
// carries them all (as {"rewrite":{"run","id","versions","history"}} in
// Stored, for render).
func geminiShown(list []*gcEntry) []*gcEntry {
	var out []*gcEntry
	seen := map[*gcEntry]bool{}
	var carrier *gcEntry
	var emit func(es []*gcEntry)
	emit = func(es []*gcEntry) {
		for _, e := range es {
			switch rw := e.rewrite; {
			case rw != nil && rw.shown:
			case rw != nil:
				rw.shown = true
				emit(rw.replaced)
				if carrier != nil {
					carrier.carried = append(carrier.carried, rw.entries...)
				}
			case !seen[e]:
				seen[e] = true
				out = append(out, e)
				carrier = e
			}
		}
	}
	emit(list)
	return out
}

// geminiWarnReplaced says when records a run wrote live are not in the
// shown list and no $rewindTo removed them: a later run replaced the
// history with records of new ids in a way geminiMarkRewrite does not
// recognise as a setHistory. correx does not rebuild that layout: the
// replaced steps are not shown and the requests rebuilt from the new
// records may differ from what was sent.
func geminiWarnReplaced(sess *model.Session, path string, order, list []*gcEntry, rewound map[*gcEntry]bool) {
	kept := map[*gcEntry]bool{}
	for _, e := range list {
		kept[e] = true
	}
	n := 0
	for _, e := range order {
		live := false
		for _, v := range e.versions {
			live = live || !v.Set
		}
		if live && !kept[e] && !rewound[e] && e.rewrite == nil {
			n++
		}
	}
	if n > 0 {
		sess.Warnings = append(sess.Warnings, fmt.Sprintf("%s: %d records a run wrote were replaced by a later run's history under new ids (Gemini CLI's setHistory): their steps are not shown, and the requests correx rebuilds for this session may differ from what was sent", filepath.Base(path), n))
	}
}

// geminiMessage is one list entry as a message: the record as last
// written live gives the tool calls (a resume's rewrite has none).
func geminiMessage(e *gcEntry, sess *model.Session) (model.Message, bool) {
	var live, last gcRecord
	hasLive := false
	for _, v := range e.versions {
		var r gcRecord
		if json.Unmarshal(v.Record, &r) != nil {
			continue
		}
		last = r
		if !v.Set {
			live, hasLive = r, true
		}
	}
	r := last
	if hasLive {
		r = live
	}
	m := model.Message{ID: e.id, Created: sessions.ParseTime(r.Timestamp), Completed: sessions.ParseTime(r.Timestamp), Run: e.firstRun}
	for _, v := range e.versions {
		b, _ := json.Marshal(v)
		m.Stored = append(m.Stored, b)
	}
	if len(e.history) > 0 {
		b, _ := json.Marshal(map[string][]int{"history": e.history})
		m.Stored = append(m.Stored, b)
	}
	for _, c := range e.carried {
		b, _ := json.Marshal(map[string]any{"rewrite": map[string]any{"run": c.rewrite.run, "id": c.id, "versions": c.versions, "history": c.history}})
		m.Stored = append(m.Stored, b)
	}
	switch r.Type {
	case "user":
		m.Role = model.RoleUser
		for i, t := range geminiTexts(r.Content) {
			m.Parts = append(m.Parts, model.Part{ID: fmt.Sprintf("%s-%d", e.id, i), Type: model.PartText, Text: t,
				Synthetic: strings.HasPrefix(strings.TrimSpace(t), "<session_context>")})
		}
	case "gemini":
		m.Role = model.RoleAssistant
		m.ModelID, m.ProviderID = r.Model, "google"
		for i, th := range r.Thoughts {
			text := th.Description
			if th.Subject != "" {
				text = "**" + th.Subject + "** " + th.Description
			}
			m.Parts = append(m.Parts, model.Part{ID: fmt.Sprintf("%s-thought-%d", e.id, i), Type: model.PartReasoning, Text: text})
		}
		if t := strings.Join(geminiTexts(r.Content), ""); t != "" {
			m.Parts = append(m.Parts, model.Part{ID: e.id + "-text", Type: model.PartText, Text: t})
		}
		for _, tc := range r.ToolCalls {
			m.Parts = append(m.Parts, model.Part{ID: tc.ID, Type: model.PartTool, Tool: geminiToolCall(tc)})
		}
	default: // info, error, warning: UI notices, never sent
		return m, false
	}
	return m, true
}

// geminiTexts are the non-thought texts of a PartListUnion.
func geminiTexts(content json.RawMessage) []string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	var parts []struct {
		Text    *string `json:"text"`
		Thought bool    `json:"thought"`
	}
	_ = json.Unmarshal(content, &parts)
	var out []string
	for _, p := range parts {
		if p.Text != nil && !p.Thought {
			out = append(out, *p.Text)
		}
	}
	return out
}

// WireID is a stored call id as the model saw it: Gemini CLI stores
// "<tool>__<id>" and strips the prefix before every request.
func WireID(name, id string) string {
	if n := strings.TrimSpace(name); n != "" && strings.HasPrefix(id, n+"__") {
		return id[len(n)+2:]
	}
	return id
}

func geminiToolCall(tc gcToolCall) *model.ToolCall {
	call := &model.ToolCall{
		CallID: WireID(tc.Name, tc.ID), Tool: tc.Name, Input: tc.Args, Title: tc.Description,
		Start: sessions.ParseTime(tc.Timestamp), End: sessions.ParseTime(tc.Timestamp), ChildSessionID: tc.AgentID,
	}
	switch tc.Status {
	case "success":
		call.Status = model.StatusCompleted
	case "error", "cancelled":
		call.Status = model.StatusError
	default:
		call.Status = model.StatusRunning
	}
	if len(tc.Result) == 0 || string(tc.Result) == "null" {
		return call
	}
	sent, ok := geminiSent(tc.Result)
	if ok {
		call.Sent = &sent
		if sent.Type == model.ResultError {
			call.Error = sent.Text
			call.Status = model.StatusError
		} else {
			call.Output = formatters.ResultText(sent)
		}
	}
	return call
}

// geminiSent is a stored result (functionResponse parts, maybe with media
// parts) as the result the model got: response.output is text,
// response.error an error, any other response its JSON; inlineData parts
// are files.
func geminiSent(result json.RawMessage) (model.ToolResultValue, bool) {
	var parts []struct {
		FunctionResponse *struct {
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
		InlineData *struct {
			MimeType string `json:"mimeType"`
			Data     string `json:"data"`
		} `json:"inlineData"`
		Text *string `json:"text"`
	}
	if json.Unmarshal(result, &parts) != nil {
		return model.ToolResultValue{}, false
	}
	var v model.ToolResultValue
	var extra []model.ToolContent
	for _, p := range parts {
		switch {
		case p.FunctionResponse != nil && v.Type == "":
			var resp map[string]json.RawMessage
			_ = json.Unmarshal(p.FunctionResponse.Response, &resp)
			var s string
			switch {
			case len(resp) == 1 && resp["output"] != nil && json.Unmarshal(resp["output"], &s) == nil:
				v = model.ToolResultValue{Type: model.ResultText, Text: s}
			case len(resp) == 1 && resp["error"] != nil && json.Unmarshal(resp["error"], &s) == nil:
				v = model.ToolResultValue{Type: model.ResultError, Text: s}
			default:
				v = model.ToolResultValue{Type: model.ResultJSON, JSON: sessions.CompactJSON(p.FunctionResponse.Response)}
			}
		case p.InlineData != nil:
			extra = append(extra, model.ToolContent{Type: model.ContentFile, Mime: p.InlineData.MimeType,
				URI: "data:" + p.InlineData.MimeType + ";base64," + p.InlineData.Data})
		case p.Text != nil:
			extra = append(extra, model.ToolContent{Type: model.ContentText, Text: *p.Text})
		}
	}
	if v.Type == "" {
		return v, false
	}
	if len(extra) > 0 {
		items := []model.ToolContent{{Type: model.ContentText, Text: formatters.ResultText(v)}}
		v = model.ToolResultValue{Type: model.ResultContent, Content: append(items, extra...)}
	}
	return v, true
}

// geminiProjectDir is <tmp>/<project> of a chat file (spills are in its
// tool-outputs/).
func geminiProjectDir(path string) string {
	for d := filepath.Dir(path); d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == "chats" {
			return filepath.Dir(d)
		}
	}
	return filepath.Dir(path)
}

func finishGeminiInfo(sess *model.Session) {
	if sess.Info.Directory == "" {
		sess.Info.Directory = geminiProjectRoot(sess)
	}
	sessions.FinishInfo(sess, sessions.SpillsFor(sess.Info))
}

// geminiProjectRoot is the project a chat belongs to: the root that
// <home>/.gemini/projects.json maps to the project's temp dir name, else
// the first workspace directory of the session context the CLI sent.
func geminiProjectRoot(sess *model.Session) string {
	slug := filepath.Base(sess.Info.DataDir)
	if b, err := sessions.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(sess.Info.DataDir)), "projects.json")); err == nil {
		var doc struct {
			Projects map[string]string `json:"projects"`
		}
		if json.Unmarshal(b, &doc) == nil {
			for root, s := range doc.Projects {
				if s == slug {
					return root
				}
			}
		}
	}
	const marker = "- **Workspace Directories:**\n  - "
	for _, m := range sess.Messages {
		for _, p := range m.Parts {
			if i := strings.Index(p.Text, marker); i >= 0 {
				d := p.Text[i+len(marker):]
				if j := strings.IndexByte(d, '\n'); j >= 0 {
					d = d[:j]
				}
				return strings.TrimSpace(d)
			}
		}
	}
	return ""
}
