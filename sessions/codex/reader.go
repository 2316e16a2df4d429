package codex

// A rollout read a line at a time (sessions.LineReader, for the lazy
// LineStore of Open and for ReadRollout). A large tool output is kept as
// the line that holds it: the call is elided and its stored item has a
// hole where the output was, which the wire (wire.go) fills from the call.
// The item_completed events that repeat an exec's output
// (aggregated_output) are read for their status only.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"correx/formatters"
	"correx/internal/jsonskim"
	"correx/model"
	"correx/sessions"
)

// elideBytes is the stored size of an output (its JSON string) above which
// the outline leaves it in the rollout, as opencode's outline does
// (sessions/opencode.OutlineElideBytes); tests lower it.
var elideBytes = 1024

// elidedOutput is the stored `output` of an item whose output was left in
// the rollout: an object no Codex output is.
var elidedOutput = json.RawMessage(`{"correx_elided_output":true}`)

// liveProcess starts the line of an exec_command output whose process was
// still running: its item_completed (perhaps "failed") comes later.
var liveProcess = []byte(`\nProcess running with session ID `) // as JSON-escaped

// callRef is where a call's part is: message msg (len(msgs) while the
// step is open) and part.
type callRef struct{ msg, part int }

type reader struct {
	path, dataDir string
	warnf         func(n int, format string, args ...any)
	elide         bool // keep large outputs as their lines

	info     model.SessionInfo
	meta     bool
	msgs     []model.Message
	cur      *model.Message // the open assistant step
	stepDone bool
	open     map[string]bool    // calls of cur without output
	calls    map[string]callRef // by call id, the last call with it
	owner    map[string]int     // by call id (empty too), the message of the last call with it
	parts    map[string]callRef // by part id
	curModel string
	lastTS   time.Time
	seq      int
	failed   map[string]bool // call ids Codex's own items record as failed
	ended    map[string]bool // call ids with an item_completed event
	// unsettled are the calls (by id, their message) a later line may
	// change: no output yet, or an output of a process still running
	// before its item_completed
	unsettled map[string]int
	running   map[string]bool // answered while their process ran
	outLine   map[callRef]sessions.Line
	truncated map[*model.ToolCall]bool // the call's visible result is truncated
}

func newReader(path, dataDir string, warnf func(int, string, ...any), elide bool) *reader {
	return &reader{path: path, dataDir: dataDir, warnf: warnf, elide: elide,
		open: map[string]bool{}, calls: map[string]callRef{}, owner: map[string]int{}, parts: map[string]callRef{},
		failed: map[string]bool{}, ended: map[string]bool{}, unsettled: map[string]int{},
		running: map[string]bool{}, outLine: map[callRef]sessions.Line{}, truncated: map[*model.ToolCall]bool{}}
}

// envelope is a rollout line.
type envelope struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

func (r *reader) closeStep() {
	if r.cur != nil {
		r.msgs = append(r.msgs, *r.cur)
		r.cur = nil
	}
	clear(r.open)
}

// message is message i, the open step when i is past the closed ones.
func (r *reader) message(i int) *model.Message {
	if i == len(r.msgs) && r.cur != nil {
		return r.cur
	}
	return &r.msgs[i]
}

// update replaces the call at ref by a copy changed by f (a session
// already given out keeps the call it had).
func (r *reader) update(ref callRef, f func(c *model.ToolCall)) {
	m := r.message(ref.msg)
	m.Parts = slices.Clone(m.Parts)
	old := m.Parts[ref.part].Tool
	c := *old
	f(&c)
	if c.Elided {
		// its visible result is the output left out: count what it had
		r.truncated[&c] = r.truncated[old]
	} else {
		r.truncated[&c] = formatters.Visible(&c, nil).Truncation != nil
	}
	delete(r.truncated, old)
	m.Parts[ref.part].Tool = &c
}

func (r *reader) Line(l sessions.Line, line []byte, _ bool) {
	n := l.N
	env, err := readEnvelope(line)
	if err != nil {
		r.warnf(n, "skipped a line that is not JSON (%v)", err)
		return
	}
	ts := sessions.ParseTime(env.Timestamp)
	if !ts.IsZero() {
		r.lastTS = ts
	}
	switch env.Type {
	case "session_meta":
		r.sessionMeta(n, env.Payload)
	case "turn_context":
		var m struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(env.Payload, &m) == nil && m.Model != "" {
			r.curModel = m.Model
		}
	case "event_msg":
		r.event(n, env.Payload)
	case "response_item":
		r.item(l, env.Payload, ts)
	}
}

func (r *reader) sessionMeta(n int, payload json.RawMessage) {
	if r.meta {
		return
	}
	var m struct {
		ID         string          `json:"id"`
		Timestamp  string          `json:"timestamp"`
		Cwd        string          `json:"cwd"`
		CLIVersion string          `json:"cli_version"`
		Source     json.RawMessage `json:"source"`
	}
	if err := json.Unmarshal(payload, &m); err != nil || m.ID == "" {
		r.warnf(n, "skipped a session_meta line without id")
		return
	}
	r.meta = true
	r.info.ID, r.info.Directory, r.info.Version = m.ID, m.Cwd, m.CLIVersion
	r.info.Created = sessions.ParseTime(m.Timestamp)
	var src struct {
		Subagent struct {
			ThreadSpawn struct {
				ParentThreadID string `json:"parent_thread_id"`
			} `json:"thread_spawn"`
		} `json:"subagent"`
	}
	if json.Unmarshal(m.Source, &src) == nil {
		r.info.ParentID = src.Subagent.ThreadSpawn.ParentThreadID
	}
}

// event reads an event_msg: the end of a model response (token_count),
// and Codex's own record of a call's end (item_completed).
func (r *reader) event(n int, payload json.RawMessage) {
	m := readEvent(payload)
	if m.Type == "token_count" && r.cur != nil && len(r.open) == 0 {
		r.stepDone = true // the model response is complete
	}
	if m.Type != "item_completed" || m.Item.ID == "" {
		return
	}
	id := m.Item.ID
	r.ended[id] = true
	if r.running[id] {
		delete(r.running, id)
		delete(r.unsettled, id)
	}
	// an item_completed can come before or after its call's output (a
	// process polled with write_stdin ends later)
	if m.Item.Status != "failed" {
		return
	}
	r.failed[id] = true
	ref, ok := r.calls[id]
	if !ok || r.message(ref.msg).Parts[ref.part].Tool.Status != model.StatusCompleted {
		return
	}
	// an elided call is completed: an error's outline holds its text
	whole, err := r.whole(ref, func(l sessions.Line) ([]byte, error) { return sessions.ReadLineAt(r.path, l) })
	if err != nil {
		r.warnf(n, "%v", err)
		return
	}
	r.update(ref, func(c *model.ToolCall) { *c = *whole; c.Status, c.Error = model.StatusError, c.Output })
}

func (r *reader) item(l sessions.Line, payload json.RawMessage, ts time.Time) {
	n := l.N
	it, err := readItem(payload)
	if err != nil {
		r.warnf(n, "skipped a response item that is not an object (%v)", err)
		return
	}
	r.seq++
	switch {
	case it.Type == "ghost_snapshot":
		return // a git snapshot for undo, never sent
	case it.Type == "message" && it.Role != "assistant":
		r.closeStep()
		r.stepDone = false
		m := model.Message{ID: cmp.Or(it.ID, fmt.Sprintf("item-%d", r.seq)), Role: model.RoleUser, Created: ts, Completed: ts,
			Stored: []json.RawMessage{storedItem(payload, it, false)}}
		m.Parts = codexUserParts(it, r.seq)
		r.msgs = append(r.msgs, m)
	case strings.HasSuffix(it.Type, "_output"):
		r.output(l, it, payload, ts)
	default: // a model output item: reasoning, text, a call, ...
		if r.cur == nil || r.stepDone {
			r.closeStep()
			r.stepDone = false
			r.cur = &model.Message{ID: cmp.Or(it.ID, fmt.Sprintf("item-%d", r.seq)), Role: model.RoleAssistant, Created: ts,
				ProviderID: "openai", ModelID: r.curModel}
		}
		r.cur.Stored = append(r.cur.Stored, storedItem(payload, it, false))
		r.cur.Completed = ts
		p, ok := codexModelPart(it, r.seq, ts)
		if !ok {
			r.warnf(n, "response item of type %q kept for the wire but not shown", it.Type)
			return
		}
		r.cur.Parts = append(r.cur.Parts, p)
		if p.Tool == nil {
			return
		}
		// cur is appended when the step closes, at this index
		ref := callRef{len(r.msgs), len(r.cur.Parts) - 1}
		r.parts[p.ID] = ref
		r.owner[p.Tool.CallID] = ref.msg
		r.truncated[p.Tool] = formatters.Visible(p.Tool, nil).Truncation != nil
		if p.Tool.CallID != "" {
			r.open[p.Tool.CallID] = true
			r.calls[p.Tool.CallID] = ref
			r.unsettled[p.Tool.CallID] = ref.msg
			delete(r.running, p.Tool.CallID)
		}
	}
}

// output reads a call's output item: the call is completed (an error when
// Codex recorded it as failed), and the item joins the call's step.
func (r *reader) output(l sessions.Line, it codexItem, payload json.RawMessage, ts time.Time) {
	ref, known := r.calls[it.CallID]
	if !known {
		r.warnf(l.N, "output for unknown call %q kept with the step before it", it.CallID)
	}
	// a large output the model got as stored text is left in the rollout,
	// unless the call failed: the outline's placeholder of an elided call
	// is the text of a completed one (render.ConversationLazy)
	sent, canonical := outputSent(it.Output)
	// the wire writes the text again: it must be written as stored
	elide := r.elide && known && !r.failed[it.CallID] && len(it.Output) > elideBytes && canonical && it.outputs == 1
	raw := storedItem(payload, it, elide)
	switch {
	case r.cur != nil:
		r.cur.Stored = append(r.cur.Stored, raw)
		r.cur.Completed = ts
	case r.hasOwner(it.CallID):
		// an output after its step was closed: attach to the owner
		i := r.owner[it.CallID]
		r.msgs[i].Stored = append(r.msgs[i].Stored, raw)
	case len(r.msgs) > 0:
		r.msgs[len(r.msgs)-1].Stored = append(r.msgs[len(r.msgs)-1].Stored, raw)
	}
	if known {
		r.update(ref, func(c *model.ToolCall) {
			c.Sent = &sent
			c.Status = model.StatusCompleted
			c.Output = formatters.ResultText(sent)
			c.End = ts
			c.ChildSessionID = codexSpawned(c)
			if r.failed[it.CallID] {
				c.Status, c.Error = model.StatusError, c.Output
			}
		})
		if elide {
			r.outLine[ref] = l
			r.update(ref, func(c *model.ToolCall) {
				c.Sent, c.Output, c.Error, c.Elided, c.OutputBytes = nil, "", "", true, len(it.Output)
			})
		}
		if !r.ended[it.CallID] && bytes.Contains(it.Output[:min(len(it.Output), 512)], liveProcess) {
			r.running[it.CallID] = true
		} else {
			delete(r.unsettled, it.CallID)
		}
	}
	delete(r.open, it.CallID)
	if r.cur != nil && len(r.open) == 0 {
		r.stepDone = true
	}
}

func (r *reader) hasOwner(callID string) bool {
	_, ok := r.owner[callID]
	return ok
}

// Stable implements sessions.LineReader: the messages before the first
// one a later line may change (the open step; a step with a call still
// unanswered; the last one, while no step is open, which takes an output
// of an unknown call).
func (r *reader) Stable() int {
	s := len(r.msgs)
	if r.cur == nil && s > 0 {
		s--
	}
	for _, i := range r.unsettled {
		s = min(s, i)
	}
	return s
}

// Session implements sessions.LineReader.
func (r *reader) Session() (*model.Session, error) {
	if !r.meta {
		return nil, sessions.NotSession(r.path, "no session_meta line: not a Codex rollout")
	}
	sess := &model.Session{Info: r.info, Messages: slices.Clip(slices.Clone(r.msgs))}
	if r.cur != nil {
		sess.Messages = append(sess.Messages, *r.cur)
	}
	in := &sess.Info
	in.Agent, in.Source, in.DataDir, in.Updated = model.AgentCodex, r.path, r.dataDir, r.lastTS
	// sessions.FinishInfo's title and counts (Codex keeps no spill file),
	// the truncations as counted when each call was read
	for _, m := range sess.Messages {
		for _, p := range m.Parts {
			if in.Title == "" && m.Role == model.RoleUser && p.Type == model.PartText && !p.Synthetic {
				in.Title = sessions.FirstLine(p.Text)
			}
			if p.Tool == nil {
				continue
			}
			in.ToolCalls++
			if p.Tool.Status == model.StatusError {
				in.Errors++
			}
			if r.truncated[p.Tool] {
				in.Truncated++
			}
		}
	}
	in.Messages = len(sess.Messages)
	return sess, nil
}

// Output implements sessions.LineReader: an elided call's output is read
// again from its item's line.
func (r *reader) Output(partID string, read func(sessions.Line) ([]byte, error)) (*model.ToolCall, error) {
	ref, ok := r.parts[partID]
	if !ok {
		return nil, fmt.Errorf("%w: tool part %q in %s", sessions.ErrNotFound, partID, r.path)
	}
	return r.whole(ref, read)
}

// whole is the call at ref with its output.
func (r *reader) whole(ref callRef, read func(sessions.Line) ([]byte, error)) (*model.ToolCall, error) {
	c := *r.message(ref.msg).Parts[ref.part].Tool
	if !c.Elided {
		return &c, nil
	}
	l := r.outLine[ref]
	data, err := read(l)
	if err != nil {
		return nil, err
	}
	env, err := readEnvelope(data)
	var it codexItem
	if err == nil {
		it, err = readItem(env.Payload)
	}
	if err != nil || it.CallID != c.CallID {
		return nil, fmt.Errorf("%s:%d: the rollout changed since it was read (no output of call %s there)", r.path, l.N, c.CallID)
	}
	sent, _ := outputSent(it.Output)
	c.Sent, c.Output, c.Elided, c.OutputBytes = &sent, formatters.ResultText(sent), false, 0
	if c.Status == model.StatusError {
		c.Error = c.Output
	}
	return &c, nil
}

// storedItem is a response item as the wire sends it: without the
// rollout-only fields, compact, key order kept; with elided, its output
// is elidedOutput.
func storedItem(raw json.RawMessage, it codexItem, elided bool) json.RawMessage {
	if it.compact && !slices.ContainsFunc(it.members, func(m member) bool { return !m.plain }) {
		if !elided && !it.rolloutOnly {
			return raw // compact already
		}
		// the members as the general path below writes them
		b := []byte{'{'}
		for _, m := range it.members {
			if m.drop {
				continue
			}
			if len(b) > 1 {
				b = append(b, ',')
			}
			b = append(b, raw[m.key:m.val]...)
			if elided && m.output {
				b = append(b, elidedOutput...)
			} else {
				b = append(b, raw[m.val:m.end]...)
			}
		}
		return append(b, '}')
	}
	has := elided
	for _, k := range rolloutOnly {
		has = has || bytes.Contains(raw, []byte(`"`+k+`"`))
	}
	if !has {
		return sessions.CompactJSON(raw)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	ok := eachMember(raw, func(k string, v json.RawMessage) {
		if slices.Contains(rolloutOnly, k) {
			return
		}
		if elided && k == "output" {
			v = elidedOutput
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(sessions.CompactJSON(v))
	})
	if !ok {
		return raw
	}
	b.WriteByte('}')
	return b.Bytes()
}

// eachMember calls fn for each member of JSON object raw in order; false
// when raw is not one. Valid JSON (every stored item) is skimmed; any
// other goes through encoding/json's tokens, which take a valid object
// that trails more.
func eachMember(raw json.RawMessage, fn func(key string, v json.RawMessage)) bool {
	if jsonskim.Valid(raw) {
		return jsonskim.Members(raw, func(k, v []byte) bool {
			key, _ := jsonskim.Text(k)
			fn(key, v)
			return true
		})
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return false
		}
		fn(kt.(string), v)
	}
	return true
}

// readEnvelope reads a rollout line as json.Unmarshal into an envelope
// does, the payload a slice of line.
func readEnvelope(line []byte) (envelope, error) {
	var env envelope
	var ts, typ []byte
	plain := true
	_, ok := object(line, false, func(k, v []byte) {
		plain = plain && plainKey(k, "timestamp", "type", "payload")
		switch string(k) {
		case "timestamp":
			ts = v
		case "type":
			typ = v
		case "payload":
			env.Payload = v
		}
	})
	var tsOK, typOK bool
	env.Timestamp, tsOK = stringValue(ts)
	env.Type, typOK = stringValue(typ)
	if ok && plain && tsOK && typOK {
		return env, nil
	}
	env = envelope{}
	err := json.Unmarshal(line, &env)
	return env, err
}

// readItem reads a response item as json.Unmarshal into a codexItem does,
// its raw members slices of payload, which is valid JSON (an envelope's).
func readItem(payload []byte) (codexItem, error) {
	var it codexItem
	good := true
	compact, ok := object(payload, true, func(k, v []byte) {
		good = good && plainKey(k, "type", "id", "role", "content", "summary", "name", "arguments", "input", "call_id", "output", "action", "status")
		var str *string
		switch string(k) {
		case "type":
			str = &it.Type
		case "id":
			str = &it.ID
		case "role":
			str = &it.Role
		case "name":
			str = &it.Name
		case "arguments":
			str = &it.Arguments
		case "input":
			str = &it.Input
		case "call_id":
			str = &it.CallID
		case "status":
			str = &it.Status
		case "content":
			it.Content = v
		case "summary":
			it.Summary = v
		case "output":
			it.Output = v
		case "action":
			it.Action = v
		}
		if str != nil {
			var sok bool
			*str, sok = stringValue(v)
			good = good && sok
		}
		m := member{key: cap(payload) - cap(k) - 1, val: cap(payload) - cap(v), output: string(k) == "output",
			plain: !bytes.ContainsAny(k, `\<>&`) && utf8.Valid(k), drop: slices.Contains(rolloutOnly, string(k))}
		m.end = m.val + len(v)
		it.members = append(it.members, m)
		it.outputs += b2i(m.output)
		it.rolloutOnly = it.rolloutOnly || m.drop
	})
	if ok && good {
		it.compact = compact
		return it, nil
	}
	it = codexItem{}
	err := json.Unmarshal(payload, &it)
	return it, err
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// event is the part of an event_msg the reader reads.
type event struct {
	Type string `json:"type"`
	Item struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"item"`
}

// readEvent reads an event_msg payload (valid JSON, an envelope's) as
// json.Unmarshal into an event does, a value of another type read as "".
func readEvent(payload []byte) event {
	var m event
	var item []byte
	plain := true
	_, ok := object(payload, true, func(k, v []byte) {
		plain = plain && plainKey(k, "type", "item")
		switch string(k) {
		case "type":
			m.Type, _ = stringValue(v)
		case "item":
			item = v
		}
	})
	if ok && plain && len(item) > 0 && item[0] == '{' {
		_, _ = object(item, true, func(k, v []byte) {
			plain = plain && plainKey(k, "id", "status")
			switch string(k) {
			case "id":
				m.Item.ID, _ = stringValue(v)
			case "status":
				m.Item.Status, _ = stringValue(v)
			}
		})
	}
	if ok && plain {
		return m
	}
	m = event{}
	_ = json.Unmarshal(payload, &m)
	return m
}

// outputSent is a stored output as the result the model got
// (codexSent); canonical tells that a text output is stored as
// formatters.Stringify writes it.
func outputSent(out json.RawMessage) (sent model.ToolResultValue, canonical bool) {
	if len(out) > 0 && out[0] == '"' {
		text, canonical := unquote(out)
		return model.ToolResultValue{Type: model.ResultText, Text: text}, canonical
	}
	return codexSent(out), false
}
