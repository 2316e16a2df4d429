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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"correx/formatters"
	"correx/internal/jsonskim"
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

// gcVersion is one run's version of a record: the record itself when it
// is small or read from a legacy .json, else where it is in the chat file
// (its line and, for a record of a `$set messages` line, its index there),
// read again when it is needed (gcVersion.resolve).
type gcVersion struct {
	Run    int             `json:"run"`
	Set    bool            `json:"set"`
	Record json.RawMessage `json:"record,omitempty"`
	Line   *sessions.Line  `json:"line,omitempty"`
	At     *int            `json:"at,omitempty"`
	// on a line of its own, its large function response outputs and
	// resultDisplays, for the wire to read the line without (the wire
	// leaves the first in the file and drops the others)
	Left    []sessions.StringSpan `json:"left,omitempty"`
	Dropped []sessions.StringSpan `json:"dropped,omitempty"`
	facts   *gcFacts
}

// gcFacts is what the messages take of a record, its large results left
// out (gcCall).
type gcFacts struct {
	id, timestamp, typ, model string
	texts                     []string // geminiTexts of the content
	thoughts                  []gcThought
	calls                     []gcCall
}

// gcCall is a record's tool call as the outline gives it.
type gcCall struct {
	id    string
	call  *model.ToolCall // Elided when its stored result is large
	trunc bool            // its model-visible result is truncated
}

// elideBytes is the stored size of a record (inline in Stored) or of a
// call's result (an outline's call) above which it is left in the file,
// as opencode's outline does (opencode.OutlineElideBytes); tests lower it.
var elideBytes = 1024

func (e *gcEntry) put(v gcVersion) {
	if n := len(e.versions); n > 0 && e.versions[n-1].Run == v.Run {
		e.versions[n-1] = v
		return
	}
	e.versions = append(e.versions, v)
}

// resolve is v's record, read through read when Stored keeps only its
// place (as the file holds it; with asStored, for the wire, without its
// calls' resultDisplay); nil when the file no longer holds it.
func (v gcVersion) resolve(read func(sessions.Line) ([]byte, error), asStored bool) json.RawMessage {
	if v.Line == nil {
		return v.Record
	}
	b, err := read(*v.Line)
	if err != nil {
		return nil
	}
	if v.At != nil {
		var set struct {
			Set struct {
				Messages []json.RawMessage `json:"messages"`
			} `json:"$set"`
		}
		if json.Unmarshal(b, &set) != nil || *v.At >= len(set.Set.Messages) {
			return nil
		}
		b = set.Set.Messages[*v.At]
	}
	if asStored {
		// the wire reads no resultDisplay (and checks the record as it
		// decodes it)
		b = withoutDisplays(b)
	}
	return b
}

// gcReader reads one chat file a line at a time (sessions.LineReader), or
// a legacy single JSON's records (ReadChat). A JSONL file holds a
// metadata line per run, message records re-appended whenever they
// change, `$set` updates (messages: the whole list replaced) and
// `$rewindTo`.
type gcReader struct {
	path    string
	warnf   func(n int, format string, args ...any)
	spills  sessions.Spills
	list    []*gcEntry
	all     map[string]*gcEntry
	order   []*gcEntry // every entry, as first seen
	run     int
	written bool // a message record was appended since the run began
	meta    bool
	info    model.SessionInfo
	updated time.Time
	rewound map[*gcEntry]bool // left by a $rewindTo
	rws     []*gcRewrite
	// by tool part id: the version whose record holds the call, as the
	// last Session built the messages (stale when dirty)
	callAt map[string]gcVersion
	dirty  bool
	last   struct { // the record Output read last
		v     gcVersion
		calls []gcToolCall
	}
	cur  int       // the number of the line read last
	fore foresight // the lines still to come, as their heads say
	walk stableWalk
}

func newGCReader(path string, warnf func(n int, format string, args ...any)) *gcReader {
	info := model.SessionInfo{Agent: model.AgentGeminiCLI, Source: path, DataDir: geminiProjectDir(path)}
	return &gcReader{path: path, warnf: warnf, info: info, spills: sessions.SpillsFor(info),
		all: map[string]*gcEntry{}, rewound: map[*gcEntry]bool{}}
}

func (r *gcReader) entry(id string) *gcEntry {
	e := r.all[id]
	if e == nil {
		e = &gcEntry{id: id, firstRun: r.run}
		r.all[id] = e
		r.order = append(r.order, e)
	}
	return e
}

func (r *gcReader) setMeta(raw json.RawMessage) {
	var m struct {
		SessionID   string `json:"sessionId"`
		StartTime   string `json:"startTime"`
		LastUpdated string `json:"lastUpdated"`
		Kind        string `json:"kind"`
		Summary     string `json:"summary"`
	}
	_ = json.Unmarshal(raw, &m)
	if !r.meta && m.SessionID != "" {
		r.meta = true
		r.info.ID = m.SessionID
		r.info.Created = sessions.ParseTime(m.StartTime)
		if m.Kind == "subagent" {
			// chats/<parent session id>/<id>.jsonl
			r.info.ParentID = filepath.Base(filepath.Dir(r.path))
		}
	}
	r.touch(m.LastUpdated)
	if m.Summary != "" {
		// a subagent's summary is its complete_task result, often
		// indented JSON: the title is one line
		r.info.Title = strings.Join(strings.Fields(m.Summary), " ")
	}
}

func (r *gcReader) touch(ts string) {
	if t := sessions.ParseTime(ts); t.After(r.updated) {
		r.updated = t
	}
}

// record puts one version of a record (raw, decoded as rec when not nil)
// found in line lr (its index at in a $set line, -1 for a line of its own;
// lr nil: raw is kept).
func (r *gcReader) record(n int, raw json.RawMessage, rec *gcRecord, set bool, lr *sessions.LineRead, at int) *gcEntry {
	if rec == nil {
		rec = &gcRecord{}
		if decodeRecord(withoutDisplays(raw), rec) != nil {
			rec.ID = ""
		}
	}
	if rec.ID == "" {
		r.warnf(n, "skipped a message record without id")
		return nil
	}
	r.touch(rec.Timestamp)
	v := gcVersion{Run: r.run, Set: set, facts: r.facts(rec)}
	if lr == nil || len(raw) <= elideBytes && !lr.Partial() {
		v.Record = sessions.CompactJSON(raw)
	} else {
		line := lr.Line // not &lr.Line: that would keep the line's bytes
		v.Line = &line
		if at >= 0 {
			v.At = &at
		} else {
			v.Left = lr.SpansOf(recordOutputs(raw))
			v.Dropped = lr.DroppedSpans(func(each func([]byte)) {
				displays(raw, func(i, end int) { each(raw[i:end]) })
			})
		}
	}
	e := r.entry(rec.ID)
	e.put(v)
	return e
}

// facts is what the messages take of rec.
func (r *gcReader) facts(rec *gcRecord) *gcFacts {
	f := &gcFacts{id: rec.ID, timestamp: rec.Timestamp, typ: rec.Type, model: rec.Model, thoughts: rec.Thoughts}
	switch rec.Type {
	case "user":
		f.texts = geminiTexts(rec.Content)
	case "gemini":
		f.texts = geminiTexts(rec.Content)
		for _, tc := range rec.ToolCalls {
			tc.Args = sessions.CompactJSON(tc.Args)
			call := geminiToolCall(tc)
			c := gcCall{id: tc.ID, call: call, trunc: formatters.Visible(call, r.spills).Truncation != nil}
			// left out when the outline's call, without its result, is
			// lowered as the whole call is (formatters.Visible)
			if s := call.Sent; len(tc.Result) > elideBytes && s != nil &&
				(s.Type == model.ResultText && call.Status == model.StatusCompleted || s.Type == model.ResultError) {
				o := *call
				o.Output, o.Error, o.Sent, o.Elided, o.OutputBytes = "", "", nil, true, len(tc.Result)
				c.call = &o
			}
			f.calls = append(f.calls, c)
		}
	}
	return f
}

// newRun starts a run after the first: it resumed the file as it stood,
// the messages of the list then are its history.
func (r *gcReader) newRun() {
	r.run++
	r.written = false
	if r.run > 1 {
		for _, e := range r.list {
			e.history = append(e.history, r.run)
		}
	}
}

// gcLine is a line of a chat file: the keys that tell its kind, and a
// message record's fields.
type gcLine struct {
	gcRecord
	RewindTo  json.RawMessage `json:"$rewindTo"`
	Set       json.RawMessage `json:"$set"`
	SessionID json.RawMessage `json:"sessionId"`
	RawID     json.RawMessage `json:"id"`
}

// lineKind is what a chat line does to the list.
type lineKind int

const (
	kindSkipped lineKind = iota // not a JSON object: warned and skipped
	kindRewind                  // $rewindTo: drops the list from a message on
	kindSet                     // $set: metadata, perhaps the whole list
	kindMeta                    // a metadata line: a new run
	kindRecord                  // a message record
	kindUnknown                 // none of these: warned and skipped
)

// classify decodes line b as Line reads it: its kind and its top-level
// keys (err: the decoding's, with a type error in a field kept).
func classify(b []byte) (gcLine, lineKind, error) {
	var top gcLine
	err := decodeGCLine(b, &top)
	var te *json.UnmarshalTypeError
	switch {
	case err != nil && (!errors.As(err, &te) || te.Field == ""):
		return top, kindSkipped, err
	case top.RewindTo != nil:
		return top, kindRewind, err
	case top.Set != nil:
		return top, kindSet, err
	case top.SessionID != nil && top.RawID == nil:
		return top, kindMeta, err
	case top.RawID != nil:
		return top, kindRecord, err
	}
	return top, kindUnknown, err
}

// decodeGCLine decodes line b into top, a zero line, as encoding/json
// decodes it without its resultDisplays (they are never read) or, when
// that fails, whole: skimmed where the skim can vouch for the result.
func decodeGCLine(b []byte, top *gcLine) error {
	wd := withoutDisplays(b)
	if jsonskim.Valid(wd) && skimGCLine(wd, top) {
		return nil
	}
	*top = gcLine{}
	err := json.Unmarshal(wd, top)
	if err != nil { // as the line itself says it
		*top = gcLine{}
		err = json.Unmarshal(b, top)
	}
	return err
}

// skimGCLine is skimValid for a line: its "id" is the line's RawID (the
// shallower field), not its record's ID.
func skimGCLine(b []byte, top *gcLine) bool {
	v, ok := jsonskim.Named(b, "id", "$rewindTo", "$set", "sessionId")
	if !ok || !skimValid(b, &top.gcRecord, rawValue, rawValue) {
		return false
	}
	top.ID = ""
	top.RawID, top.RewindTo, top.Set, top.SessionID = rawValue(v[0]), rawValue(v[1]), rawValue(v[2]), rawValue(v[3])
	return true
}

// gcSet is the value of a $set line.
type gcSet struct {
	SessionID json.RawMessage `json:"sessionId"`
	Messages  json.RawMessage `json:"messages"`
}

// Line implements sessions.LineReader.
func (r *gcReader) Line(l sessions.Line, b []byte, _ bool) {
	top, kind, err := classify(b)
	r.line(&sessions.LineRead{Line: l, Data: b}, &top, kind, err)
}

// LongLine implements sessions.LongLiner: a message record whose long
// strings are all resultDisplays (what the CLI showed, a shell call's
// whole output, never sent) is read without them.
func (r *gcReader) LongLine(lr *sessions.LineRead, _ bool) bool {
	top, kind, err := classify(lr.Data)
	if kind != kindRecord || err != nil ||
		!displays(lr.Data, func(i, end int) { lr.Drop(lr.Data[i:end]) }) || !lr.Whole(lr.Data) {
		return false
	}
	r.line(lr, &top, kind, err)
	return true
}

// line reads line lr (Line's, or a LongLine's read without its displays),
// classified as top, kind and err.
func (r *gcReader) line(lr *sessions.LineRead, top *gcLine, kind lineKind, err error) {
	l, b := lr.Line, lr.Data
	r.dirty = true
	n := l.N
	r.cur = n
	recordID := ""
	if kind == kindRecord && err == nil && json.Unmarshal(top.RawID, &recordID) != nil {
		recordID = ""
	}
	r.fore.check(r, n, kind, recordID)
	switch kind {
	case kindSkipped:
		r.warnf(n, "skipped a line that is not a JSON object (%v)", err)
	case kindRewind:
		var id string
		_ = json.Unmarshal(top.RewindTo, &id)
		for i, e := range r.list {
			if e.id == id {
				for _, x := range r.list[i:] {
					r.rewound[x] = true
				}
				r.list = r.list[:i]
				break
			}
		}
	case kindSet:
		var set gcSet
		if err := json.Unmarshal(top.Set, &set); err != nil {
			r.warnf(n, "skipped a $set that is not an object")
			return
		}
		// a resume writes {"$set":{"sessionId"}} into the file it
		// resumes; when that run began in another minute, its metadata
		// line went into a chat file of its own
		if set.SessionID != nil && r.written {
			r.newRun()
		}
		r.setMeta(top.Set)
		if set.Messages != nil {
			var recs []json.RawMessage
			if err := json.Unmarshal(set.Messages, &recs); err != nil {
				r.warnf(n, "skipped a $set of messages that is not a list")
				return
			}
			// a Map by id, as Gemini CLI loads it: a repeated id keeps
			// its first place and its last record
			old := r.list
			r.list = r.list[:0:0]
			in := map[*gcEntry]bool{}
			for i, raw := range recs {
				if e := r.record(n, raw, nil, true, lr, i); e != nil && !in[e] {
					in[e] = true
					r.list = append(r.list, e)
				}
			}
			if rw := geminiMarkRewrite(r.run, r.written, old, r.list); rw != nil {
				r.rws = append(r.rws, rw)
			}
		}
	case kindMeta:
		r.newRun()
		r.setMeta(b)
	case kindRecord:
		if r.run == 0 {
			r.run = 1
		}
		rec := &top.gcRecord
		rec.ID = recordID
		e := r.record(n, b, rec, false, lr, -1)
		if e == nil {
			return
		}
		r.written = true
		if !slices.Contains(r.list, e) {
			r.list = append(r.list, e)
		}
	default:
		r.warnf(n, "skipped an unknown line")
	}
}

// Session implements sessions.LineReader.
func (r *gcReader) Session() (*model.Session, error) {
	if !r.meta {
		return nil, sessions.NotSession(r.path, "no sessionId: not a Gemini CLI chat")
	}
	sess := &model.Session{Info: r.info}
	sess.Info.Updated = r.updated
	// geminiShown marks what it has shown: start afresh
	for _, rw := range r.rws {
		rw.shown = false
	}
	for _, e := range r.order {
		e.carried = nil
	}
	shown := geminiShown(r.list)
	geminiWarnReplaced(sess, r.path, r.order, shown, r.rewound)
	r.callAt = map[string]gcVersion{}
	truncated := 0
	for _, e := range shown {
		m, v, ok := geminiMessage(e)
		if !ok {
			continue
		}
		for _, c := range v.facts.calls {
			r.callAt[c.id] = v
			if c.trunc {
				truncated++
			}
		}
		sess.Messages = append(sess.Messages, m)
	}
	r.dirty = false
	finishGeminiInfo(sess)
	// the outline's calls lack their results: counted when read
	sess.Info.Truncated = truncated
	return sess, nil
}

// Output implements sessions.LineReader.
func (r *gcReader) Output(partID string, read func(sessions.Line) ([]byte, error)) (*model.ToolCall, error) {
	if r.dirty || r.callAt == nil {
		if _, err := r.Session(); err != nil {
			return nil, err
		}
	}
	v, ok := r.callAt[partID]
	if !ok {
		return nil, fmt.Errorf("%w: tool part %q in %s", sessions.ErrNotFound, partID, r.path)
	}
	// a record's calls are read one after the other: its last reading is
	// kept
	if !sameRecord(r.last.v, v) || r.last.calls == nil {
		var rec struct {
			ToolCalls []gcToolCall `json:"toolCalls"`
		}
		raw := r.withoutDropped(v)
		if raw == nil {
			raw = v.resolve(read, false)
		}
		if raw == nil || json.Unmarshal(withoutDisplays(raw), &rec) != nil {
			return nil, fmt.Errorf("%s: the record of call %s is no longer where it was read", r.path, partID)
		}
		r.last.v, r.last.calls = v, rec.ToolCalls
	}
	for _, tc := range r.last.calls {
		if tc.ID == partID {
			tc.Args = sessions.CompactJSON(tc.Args)
			return geminiToolCall(tc), nil
		}
	}
	return nil, fmt.Errorf("%s: the record of call %s no longer holds it", r.path, partID)
}

// withoutDropped is the record of version v read from its line without
// its resultDisplays (v.Dropped: Output reads none), nil when there are
// none to leave out or they are not where the scan found them.
func (r *gcReader) withoutDropped(v gcVersion) []byte {
	if v.Line == nil || v.At != nil || len(v.Dropped) == 0 {
		return nil
	}
	lines := sessions.LinesAt{Path: r.path}
	defer lines.Close()
	lr, err := lines.ReadWithout(*v.Line, nil, v.Dropped)
	if err != nil || !displays(lr.Data, func(i, end int) { lr.Drop(lr.Data[i:end]) }) || !lr.Whole(lr.Data) {
		return nil
	}
	return lr.Data
}

// sameRecord says whether a and b are the record at one place of the file.
func sameRecord(a, b gcVersion) bool {
	return a.Line != nil && b.Line != nil && *a.Line == *b.Line &&
		(a.At == nil && b.At == nil || a.At != nil && b.At != nil && *a.At == *b.At)
}

// ReadChat reads one chat file whole (JSONL, or the legacy single JSON).
func ReadChat(path string) (*model.Session, error) {
	var warns []string
	r := newGCReader(path, sessions.LineWarner(&warns, path))
	var read func(sessions.Line) ([]byte, error)
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
		r.run = 1
		r.setMeta(b)
		for _, m := range doc.Messages {
			if e := r.record(1, m, nil, false, nil, -1); e != nil {
				r.list = append(r.list, e)
			}
		}
	} else {
		x := sessions.NewLineIndex(path)
		if _, err := x.Scan(context.Background(), nil, func(l sessions.Line, b []byte, last bool) bool {
			r.Line(l, b, last)
			return true
		}, r.warnf); err != nil {
			return nil, err
		}
		read = x.Read
	}
	sess, err := r.Session()
	if err != nil {
		return nil, err
	}
	sess.Warnings = append(warns, sess.Warnings...)
	for _, ref := range sess.ToolCalls() {
		if ref.Call.Elided {
			part := &sess.Messages[ref.Message].Parts[ref.Part]
			if part.Tool, err = r.Output(part.ID, read); err != nil {
				return nil, err
			}
		}
	}
	return sess, nil
}

// geminiMarkRewrite recognises Gemini CLI's setHistory in a resumed run:
// its context management (tool output masking) re-records the whole
// history as sent, one record per content under new ids, then a `$set`
// of those records only. The entries it replaced stay the session's
// steps; the records are what the run (and every later one) sent as that
// history.
func geminiMarkRewrite(run int, written bool, old, set []*gcEntry) *gcRewrite {
	if run < 2 || !written || len(set) == 0 {
		return nil
	}
	in := map[*gcEntry]bool{}
	for _, e := range set {
		in[e] = true
		for _, v := range e.versions {
			if v.Run != run {
				return nil
			}
		}
		if e.firstRun != run {
			return nil
		}
	}
	var replaced []*gcEntry
	for _, e := range old {
		if !in[e] {
			replaced = append(replaced, e)
		}
	}
	if len(replaced) == 0 {
		return nil
	}
	rw := &gcRewrite{run: run, entries: set, replaced: replaced}
	for _, e := range set {
		e.rewrite = rw
	}
	return rw
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

// geminiMessage is one list entry as a message, and the version it is
// made of: the record as last written live gives the tool calls (a
// resume's rewrite has none).
func geminiMessage(e *gcEntry) (model.Message, gcVersion, bool) {
	v := e.shownVersion()
	r := v.facts
	m := model.Message{ID: e.id, Created: sessions.ParseTime(r.timestamp), Completed: sessions.ParseTime(r.timestamp), Run: e.firstRun}
	for _, v := range e.versions {
		// as JSON.stringify wrote the record (here and in a rewrite):
		// json.Marshal would escape its <, > and &, and the wire writes a
		// record's strings as kept
		b, _ := formatters.Stringify(v)
		m.Stored = append(m.Stored, b)
	}
	if len(e.history) > 0 {
		b, _ := json.Marshal(map[string][]int{"history": e.history})
		m.Stored = append(m.Stored, b)
	}
	for _, c := range e.carried {
		b, _ := formatters.Stringify(map[string]any{"rewrite": map[string]any{"run": c.rewrite.run, "id": c.id, "versions": c.versions, "history": c.history}})
		m.Stored = append(m.Stored, b)
	}
	switch r.typ {
	case "user":
		m.Role = model.RoleUser
		for i, t := range r.texts {
			m.Parts = append(m.Parts, model.Part{ID: fmt.Sprintf("%s-%d", e.id, i), Type: model.PartText, Text: t,
				Synthetic: strings.HasPrefix(strings.TrimSpace(t), "<session_context>")})
		}
	case "gemini":
		m.Role = model.RoleAssistant
		m.ModelID, m.ProviderID = r.model, "google"
		for i, th := range r.thoughts {
			text := th.Description
			if th.Subject != "" {
				text = "**" + th.Subject + "** " + th.Description
			}
			m.Parts = append(m.Parts, model.Part{ID: fmt.Sprintf("%s-thought-%d", e.id, i), Type: model.PartReasoning, Text: text})
		}
		if t := strings.Join(r.texts, ""); t != "" {
			m.Parts = append(m.Parts, model.Part{ID: e.id + "-text", Type: model.PartText, Text: t})
		}
		for _, c := range r.calls {
			call := *c.call
			m.Parts = append(m.Parts, model.Part{ID: c.id, Type: model.PartTool, Tool: &call})
		}
	default: // info, error, warning: UI notices, never sent
		return m, v, false
	}
	return m, v, true
}

// shownVersion is the version of e its message shows: the last written
// live, else the last.
func (e *gcEntry) shownVersion() gcVersion {
	var v gcVersion
	hasLive := false
	for _, x := range e.versions {
		if !hasLive || !x.Set {
			v, hasLive = x, hasLive || !x.Set
		}
	}
	return v
}

// isMessage tells whether e is a message of the session (geminiMessage).
func (e *gcEntry) isMessage() bool {
	t := e.shownVersion().facts.typ
	return t == "user" || t == "gemini"
}

// geminiTexts are the non-thought texts of a PartListUnion.
func geminiTexts(content json.RawMessage) []string {
	// a list without a "text" key (function responses) has none: only a
	// key or a string that is exactly text has those bytes
	if len(content) > 0 && content[0] == '[' && !bytes.Contains(content, []byte(`"text"`)) {
		return nil
	}
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
		Agent: model.AgentGeminiCLI, CallID: WireID(tc.Name, tc.ID), Tool: tc.Name, Input: tc.Args, Title: tc.Description,
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
			if t, ok := soleString(p.FunctionResponse.Response); ok {
				v = t
				break
			}
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

// soleString is a response {"output":S} or {"error":S} as Gemini CLI
// writes it (compact), decoded without decoding it as a map first; ok
// false for any other response.
func soleString(resp json.RawMessage) (model.ToolResultValue, bool) {
	for _, k := range []struct {
		key string
		typ model.ResultType
	}{{`{"output":"`, model.ResultText}, {`{"error":"`, model.ResultError}} {
		if !bytes.HasPrefix(resp, []byte(k.key)) {
			continue
		}
		from := len(k.key) - 1
		end := jsonskim.StringEnd(resp, from)
		if end < 0 || string(resp[end:]) != "}" {
			return model.ToolResultValue{}, false
		}
		s, ok := jsonskim.Text(resp[from:end])
		if !ok {
			return model.ToolResultValue{}, false
		}
		return model.ToolResultValue{Type: k.typ, Text: s}, true
	}
	return model.ToolResultValue{}, false
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
