package geminicli

// Gemini CLI's own wire: the Gemini `contents` it sent, rebuilt from the
// stored records by its history rules, learnt from recordings
// (testdata/gemini-cli).

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"correx/formatters"
	"correx/internal/jsonskim"
	"correx/internal/parallel"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

func init() {
	render.RegisterOwnWire(model.AgentGeminiCLI, render.OwnWire{
		Provider: render.Gemini,
		Conversation: func(s *model.Session, upto int, pl *render.Placer) (render.Value, error) {
			return Contents(s, upto, pl), nil
		},
		ResentResults: resentResults,
		TailFrom:      tailFrom,
		HeadTo:        headTo,
	})
}

// headTo implements render.OwnWire.HeadTo: the first model message from
// the n-th on, when the request at upto is its run's first (no history
// loaded) and every message before it is one that run wrote itself, its
// model turns live (ensureActiveLoopHasThoughtSignatures signs re-set ones
// only), none carrying a setHistory: each request
// then sends the records before it in order, and an earlier one's are
// the start of a later one's. 0 when there is none.
func headTo(s *model.Session, upto, n int) int {
	run := s.Messages[upto].Run
	if run != 1 {
		return 0
	}
	to := 0
	for i := range s.Messages[:upto] {
		m := &s.Messages[i]
		for _, raw := range m.Stored {
			if bytes.Contains(raw, []byte(`"rewrite"`)) {
				return 0
			}
		}
		if v, ok := gcPick(m.Stored, run); ok && (v.Run != run || v.Set && m.Role == model.RoleAssistant) {
			return 0 // an earlier run's, or a model turn re-set (signed)
		}
		if to == 0 && i >= n && m.Role == model.RoleAssistant && m.Run == run {
			to = i
		}
	}
	return to
}

// tailFrom implements render.OwnWire.TailFrom: the last model message at or
// before n messages before upto that follows a user message (the prompt or
// the function responses before it: coalesceConsecutiveRoles joins
// neither with what came before), when every message of the request from
// the user message on is one the requesting run wrote itself (written
// live: ensureActiveLoopHasThoughtSignatures signs none of them; an
// earlier run's is sent with the history the run loaded, before all of
// them), neither re-set by a resume nor carrying a setHistory. 0 when
// there is none.
func tailFrom(s *model.Session, upto, n int) int {
	run := s.Messages[upto].Run
	written := func(m *model.Message) (visible, ok bool) {
		for _, raw := range m.Stored {
			if bytes.Contains(raw, []byte(`"rewrite"`)) {
				return false, false
			}
		}
		v, picked := gcPick(m.Stored, run)
		if !picked {
			return false, true // not in this request
		}
		return true, v.Run == run && !(run > 1 && v.Set)
	}
	for f := upto - 1; f > 1; f-- {
		visible, ok := written(&s.Messages[f])
		if !ok {
			return 0
		}
		if !visible || f > upto-n || s.Messages[f].Role != model.RoleAssistant || s.Messages[f-1].Role != model.RoleUser {
			continue
		}
		if visible, ok := written(&s.Messages[f-1]); visible && ok {
			return f
		}
	}
	return 0
}

// geminiSyntheticSignature is the thoughtSignature Gemini CLI puts on a
// function call that has none, where the API requires one.
const geminiSyntheticSignature = "skip_thought_signature_validator"

type gcContent struct {
	role  string
	parts []render.Obj
	live  bool // a model turn of the run that sends: its thoughtSignatures are not stored
	// unnamed: the stored id of a part sent without one (a subagent's
	// call), by part index, for the Placer
	unnamed map[int]string
}

// Contents rebuilds `contents` as Gemini CLI 0.61.0 does, for the
// run that made the request (the run that wrote the step's record):
//
//   - a resumed run sends the session context it wrote, then the history
//     it loaded: convertSessionToClientHistory of the records as the file
//     stood when it began (gcConvert: a model record with its calls' results
//     after it, which a resume's rewrite gives each call for its whole
//     batch, and the stored `<id>_response` and user records again);
//   - then every record the run wrote itself: a user record's parts, a
//     model record written live as its text and function calls (thoughts
//     are not sent);
//   - a setHistory of the run (its context management masking big tool
//     outputs: the history re-recorded under new ids, carried by the
//     messages, see gcItems) is the whole history sent from there on, one
//     record's content parts per content;
//   - a rewritten model record's thoughts are stripped and its first call
//     gets the sentinel signature (stripThoughts);
//   - consecutive contents of one role are merged (so each resume sends
//     the earlier function responses again);
//   - from the last user text on, the first function call of each model
//     turn without a signature gets the sentinel
//     (ensureActiveLoopHasThoughtSignatures);
//   - the stored "<tool>__" prefix is stripped from call and response ids
//     (stripToolCallIdPrefixes);
//   - a subagent's live calls have no id when the model gave none (the
//     local executor's "<agent id>#<turn>-<index>" is the stored id only).
//
// The signatures the model streamed are kept in memory only: a live model
// turn is rendered without them, a gap (render.StreamedSignaturesWhy).
func Contents(s *model.Session, upto int, pl *render.Placer) []render.Value {
	out := []render.Value{}
	for _, c := range gcHistory(s, upto, leaverFor(s, pl)) {
		if c.live { // its thoughtSignatures are not stored
			pl.Gap(render.Gap{Item: len(out), Path: []string{"parts"}, Why: render.StreamedSignaturesWhy})
		}
		parts := []render.Value{}
		for _, p := range c.parts {
			gcPlace(p, c.unnamed[len(parts)], len(out), len(parts), pl)
			parts = append(parts, p)
		}
		out = append(out, render.Obj{render.KV("role", c.role), render.KV("parts", parts)})
	}
	return out
}

// gcHistory is the request's contents, the ids without their stored
// prefix; with lv, the large outputs of the records read from the chat
// file are left in it.
func gcHistory(s *model.Session, upto int, lv *sessions.Leaver) []gcContent {
	plan := gcPlan(s, upto)
	pieces := gcReadAll(s, plan, lv)
	var hist []gcContent
	for i, rd := range plan {
		if rd.as == asRewriteFirst {
			hist = nil
		}
		hist = append(hist, pieces[i]...)
	}
	nonEmpty := hist[:0]
	for _, c := range hist {
		if len(c.parts) > 0 {
			nonEmpty = append(nonEmpty, c)
		}
	}
	hist = nonEmpty
	// coalesceConsecutiveRoles
	var merged []gcContent
	for _, c := range hist {
		if n := len(merged); n > 0 && merged[n-1].role == c.role {
			m := &merged[n-1]
			for j, id := range c.unnamed {
				if m.unnamed == nil {
					m.unnamed = map[int]string{}
				}
				m.unnamed[len(m.parts)+j] = id
			}
			m.parts = append(m.parts, c.parts...)
			m.live = m.live || c.live
			continue
		}
		merged = append(merged, c)
	}
	// ensureActiveLoopHasThoughtSignatures
	start := -1
	for i := len(merged) - 1; i >= 0; i-- {
		if merged[i].role == "user" && gcAny(merged[i].parts, "text") && !gcAny(merged[i].parts, "functionResponse") {
			start = i
			break
		}
	}
	for i := max(start, 0); start >= 0 && i < len(merged); i++ {
		if merged[i].role != "model" || merged[i].live {
			continue
		}
		gcSignFirstCall(merged[i].parts)
	}
	return merged
}

// gcLive is a model turn as this run wrote it, live: the text and calls
// as the model streamed them (thoughts are not sent).
func gcLive(s *model.Session, r gcRecord) gcContent {
	c := gcContent{role: "model", live: true}
	for _, p := range gcParts(r.Content) {
		if _, thought := p.Get("thought"); !thought {
			c.parts = append(c.parts, p)
		}
	}
	for _, tc := range r.ToolCalls {
		fc := render.Obj{render.KV("id", tc.ID), render.KV("args", render.InputValue(tc.Args)), render.KV("name", tc.Name)}
		if strings.HasPrefix(tc.ID, s.Info.ID+"#") {
			// a subagent's executor keeps the call as the model
			// sent it and names it "<agent id>#<turn>-<index>"
			// only when the model gave no id
			fc = fc[1:]
			if c.unnamed == nil {
				c.unnamed = map[int]string{}
			}
			c.unnamed[len(c.parts)] = tc.ID
		}
		c.parts = append(c.parts, render.Obj{render.KV("functionCall", fc)})
	}
	return c
}

// gcRead is a record gcHistory reads, and how it joins the history.
type gcRead struct {
	v  gcVersion
	as gcAs
}

type gcAs int

const (
	asContext      gcAs = iota // a resumed run's session context: a user turn
	asLoaded                   // a record a resumed run loaded (convertSessionToClientHistory)
	asRewriteFirst             // the first content of the run's setHistory: what came before is dropped
	asRewrite                  // a further content of it
	asWritten                  // a record the run wrote
)

// gcPlan is the records the request of message upto is built from, in
// order: which are read follows from the outline alone.
func gcPlan(s *model.Session, upto int) []gcRead {
	run := s.Messages[upto].Run
	var plan []gcRead
	if run > 1 {
		// a resumed run: the session context it wrote, then the history
		// it loaded (convertSessionToClientHistory of the records as the
		// file stood when it began)
		lines := sessions.LinesAt{Path: s.Info.Source}
		defer lines.Close()
		for _, sm := range s.Messages {
			if v, ok := gcPick(sm.Stored, run); ok && v.Run == run && v.Set && gcContext(v.resolve(lines.Read, true)) {
				plan = append(plan, gcRead{v, asContext})
				break
			}
		}
		for _, it := range gcItems(s.Messages) {
			if !gcInHistory(it.stored, run) {
				continue
			}
			if v, ok := gcPick(it.stored, run-1); ok {
				plan = append(plan, gcRead{v, asLoaded})
			}
		}
	}
	inRewrite := false
	for _, it := range gcItems(s.Messages[:upto]) {
		v, ok := gcPick(it.stored, run)
		if ok && it.rewrite == run && v.Run == run {
			// this run's setHistory: the history as sent from here on,
			// one record per content
			as := asRewrite
			if !inRewrite {
				as, inRewrite = asRewriteFirst, true
			}
			plan = append(plan, gcRead{v, as})
			continue
		}
		inRewrite = false
		if !ok || v.Run != run || run > 1 && v.Set {
			continue // an earlier run's record, or a resume's rewrite
		}
		plan = append(plan, gcRead{v, asWritten})
	}
	return plan
}

// gcReadAll is what each record of plan gives the history (gcPiece), read
// from the chat file (gcRecordLeft) side by side (parallel.InRuns).
func gcReadAll(s *model.Session, plan []gcRead, lv *sessions.Leaver) [][]gcContent {
	pieces := make([][]gcContent, len(plan))
	_ = parallel.InRuns(len(plan), 32, func() *sessions.LinesAt { return &sessions.LinesAt{Path: s.Info.Source} },
		func(lines *sessions.LinesAt, i int) error {
			pieces[i] = gcPiece(s, plan[i], gcRecordLeft(plan[i].v, lines, lv))
			return nil
		}, func(lines *sessions.LinesAt) { lines.Close() })
	return pieces
}

// gcPiece is the contents record r, read as rd says, adds to the
// history, the ids of their calls and responses without their stored
// prefix.
func gcPiece(s *model.Session, rd gcRead, r gcRecord) []gcContent {
	var out []gcContent
	switch rd.as {
	case asContext:
		out = []gcContent{{role: "user", parts: gcParts(r.Content)}}
	case asLoaded:
		out = gcConvert(r)
	case asRewriteFirst, asRewrite:
		role := "user"
		if r.Type == "gemini" {
			role = "model"
		}
		out = []gcContent{{role: role, parts: gcParts(r.Content)}}
	case asWritten:
		switch {
		case r.Type == "user":
			out = []gcContent{{role: "user", parts: gcParts(r.Content)}}
		case r.Type == "gemini" && rd.v.Set:
			out = []gcContent{{role: "model", parts: gcStripThoughts(gcParts(r.Content), true)}}
		case r.Type == "gemini":
			out = []gcContent{gcLive(s, r)}
		}
	}
	for _, c := range out {
		for j, p := range c.parts {
			c.parts[j] = gcStripPrefix(p)
		}
	}
	return out
}

// gcItem is one record's versions (as in Message.Stored); rewrite is the
// run whose setHistory wrote it (0: a record of the session's messages).
type gcItem struct {
	stored  []json.RawMessage
	rewrite int
}

// gcItems are the records of the messages in list order: each message's
// own, then the setHistory records it carries (see geminicli.go).
func gcItems(msgs []model.Message) []gcItem {
	var out []gcItem
	for _, sm := range msgs {
		own := gcItem{}
		var carried []gcItem
		for _, raw := range sm.Stored {
			if !bytes.Contains(raw, []byte(`"rewrite"`)) { // the most are no rewrite: not decoded
				own.stored = append(own.stored, raw)
				continue
			}
			var c struct {
				Rewrite *struct {
					Run      int               `json:"run"`
					Versions []json.RawMessage `json:"versions"`
					History  []int             `json:"history"`
				} `json:"rewrite"`
			}
			if json.Unmarshal(raw, &c) != nil || c.Rewrite == nil {
				own.stored = append(own.stored, raw)
				continue
			}
			it := gcItem{stored: c.Rewrite.Versions, rewrite: c.Rewrite.Run}
			if len(c.Rewrite.History) > 0 {
				b, _ := json.Marshal(map[string][]int{"history": c.Rewrite.History})
				it.stored = append(it.stored, b)
			}
			carried = append(carried, it)
		}
		out = append(out, own)
		out = append(out, carried...)
	}
	return out
}

func gcRecOf(raw json.RawMessage) gcRecord {
	var r gcRecord
	_ = decodeRecord(raw, &r)
	return r
}

// gcContext says whether a record is the session context Gemini CLI puts
// first in a run's history.
func gcContext(raw json.RawMessage) bool {
	r := gcRecOf(raw)
	return r.Type == "user" && strings.HasPrefix(strings.TrimSpace(gcText(gcParts(r.Content))), "<session_context>")
}

// gcText is partListUnionToString: the texts, and a placeholder for every
// other part (so a user record of function responses is not empty).
func gcText(parts []render.Obj) string {
	var b strings.Builder
	for _, p := range parts {
		if v, ok := p.Get("text"); ok {
			var t string
			_ = json.Unmarshal(rawOf(v), &t)
			b.WriteString(t)
		} else {
			b.WriteString("[part]")
		}
	}
	return b.String()
}

// gcInHistory says whether a record was in the history that run loaded
// when it resumed the session.
func gcInHistory(stored []json.RawMessage, run int) bool {
	for _, raw := range stored {
		var h struct {
			History []int `json:"history"`
		}
		if json.Unmarshal(raw, &h) == nil && slices.Contains(h.History, run) {
			return true
		}
	}
	return false
}

// gcConvert is Gemini CLI's convertSessionToClientHistory for one record:
// a user record's parts (not a slash command, a session context or a hook
// context); a model record's content parts when they hold a call or a
// thought, else its thoughts, text and toolCalls as calls; then a user
// content of its toolCalls' results (each result's parts as stored, so a
// result that holds its whole batch sends the batch again).
func gcConvert(r gcRecord) []gcContent {
	parts := gcParts(r.Content)
	switch r.Type {
	case "user":
		t := strings.TrimSpace(gcText(parts))
		if t == "" || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "?") ||
			strings.HasPrefix(t, "<session_context>") || strings.HasPrefix(t, "<hook_context>") {
			return nil
		}
		return []gcContent{{role: "user", parts: parts}}
	case "gemini":
	default:
		return nil
	}
	var model []render.Obj
	if gcAny(parts, "functionCall") || gcAny(parts, "thought") {
		model = parts
	} else {
		for _, th := range r.Thoughts {
			t := th.Description
			if th.Subject != "" {
				t = "**" + th.Subject + "** " + th.Description
			}
			model = append(model, render.Obj{render.KV("text", t), render.KV("thought", true)})
		}
		model = append(model, parts...)
		for _, tc := range r.ToolCalls {
			model = append(model, render.Obj{render.KV("functionCall", render.Obj{render.KV("id", tc.ID), render.KV("name", tc.Name), render.KV("args", render.InputValue(tc.Args))})})
		}
	}
	if len(model) == 0 {
		return nil
	}
	out := []gcContent{{role: "model", parts: gcStripThoughts(model, true)}}
	var resp []render.Obj
	for _, tc := range r.ToolCalls {
		var str string
		switch {
		case len(tc.Result) == 0 || string(tc.Result) == "null":
		case json.Unmarshal(tc.Result, &str) == nil:
			resp = append(resp, render.Obj{render.KV("functionResponse", render.Obj{render.KV("id", tc.ID), render.KV("name", tc.Name), render.KV("response", render.Obj{render.KV("output", str)})})})
		case strings.HasPrefix(strings.TrimSpace(string(tc.Result)), "["):
			resp = append(resp, gcParts(tc.Result)...)
		default:
			if o, ok := orderedObj(tc.Result); ok {
				resp = append(resp, o)
			}
		}
	}
	if len(resp) > 0 {
		out = append(out, gcContent{role: "user", parts: resp})
	}
	return out
}

// gcPick is the version of a record that run used: the latest of a run
// not after it (its record read with gcVersion.resolve).
func gcPick(stored []json.RawMessage, run int) (gcVersion, bool) {
	var best gcVersion
	ok := false
	for _, raw := range stored {
		v, err := decodeVersion(raw)
		if err != nil || v.Run > run || len(v.Record) == 0 && v.Line == nil {
			continue
		}
		if !ok || v.Run >= best.Run {
			best, ok = v, true
		}
	}
	return best, ok
}

// gcParts is a PartListUnion as parts (a string is one text part).
func gcParts(content json.RawMessage) []render.Obj {
	var s string
	if t := bytes.TrimLeft(content, " \t\r\n"); len(t) > 0 && t[0] == '"' && json.Unmarshal(content, &s) == nil {
		if s == "" {
			return nil
		}
		return []render.Obj{{render.KV("text", s)}}
	}
	// content was checked with the record it is in: its parts are
	// skimmed, not copied
	var raws []json.RawMessage
	if !jsonskim.Elements(content, func(v []byte) bool { raws = append(raws, v); return true }) {
		raws = nil
		_ = json.Unmarshal(content, &raws)
	}
	var out []render.Obj
	for _, r := range raws {
		if o, ok := orderedObj(r); ok {
			out = append(out, o)
		}
	}
	return out
}

// orderedObj decodes a JSON object keeping its key order, values raw
// (spans of raw). raw is valid JSON, decoded before (a record, its
// content, a part): its members are skimmed, and decoded only where the
// skim says no.
func orderedObj(raw json.RawMessage) (render.Obj, bool) {
	var o render.Obj
	skimmed := jsonskim.Members(raw, func(key, val []byte) bool {
		k, ok := jsonskim.Text(key)
		if !ok {
			return false
		}
		o = append(o, render.KV(k, json.RawMessage(val)))
		return true
	})
	if skimmed {
		return o, true
	}
	return orderedObjDecoded(raw)
}

// orderedObjDecoded is orderedObj by encoding/json alone.
func orderedObjDecoded(raw json.RawMessage) (render.Obj, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var o render.Obj
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		o = append(o, render.KV(kt.(string), v))
	}
	return o, true
}

// gcStripThoughts drops thought parts; a model turn that had any gets the
// sentinel signature on its first function call when it has none.
func gcStripThoughts(parts []render.Obj, model bool) []render.Obj {
	var kept []render.Obj
	had := false
	for _, p := range parts {
		if v, ok := p.Get("thought"); ok && string(rawOf(v)) == "true" {
			had = true
			continue
		}
		kept = append(kept, p)
	}
	if had && model {
		gcSignFirstCall(kept)
	}
	return kept
}

// stringOf is v decoded as a JSON string, "" when it is not one.
func stringOf(v render.Value) string {
	if s, ok := v.(string); ok {
		return s
	}
	s, _ := jsonskim.Text(rawOf(v))
	return s
}

func rawOf(v render.Value) []byte {
	switch x := v.(type) {
	case json.RawMessage:
		return x
	case bool:
		if x {
			return []byte("true")
		}
		return []byte("false")
	}
	b, _ := render.Marshal(v)
	return b
}

// gcSignFirstCall gives the first function call the sentinel signature if
// it has none.
func gcSignFirstCall(parts []render.Obj) {
	for i, p := range parts {
		if _, ok := p.Get("functionCall"); !ok {
			continue
		}
		if _, ok := p.Get("thoughtSignature"); !ok {
			q := append(render.Obj{}, p...)
			q.Set("thoughtSignature", geminiSyntheticSignature)
			parts[i] = q
		}
		return
	}
}

// gcPlace records a function call or response, entry j of content item,
// by its id on the wire (the loader's CallID, WireID), or
// unnamed, the stored id of a call sent without one.
func gcPlace(p render.Obj, unnamed string, item, j int, pl *render.Placer) {
	for _, f := range p {
		if f.Key != "functionCall" && f.Key != "functionResponse" {
			continue
		}
		if id, ok := partID(f.Val); ok {
			if id == "" {
				id = unnamed
			}
			if f.Key == "functionCall" {
				pl.Call(id, item, j)
			} else {
				pl.Result(id, item, j, 1)
			}
		}
	}
}

// partID is the id of a function call or response, as encoding/json
// reads it; ok false when v is not an object. The id is skimmed from v's
// bytes when they name it once, so that a big response is not encoded
// again to be decoded.
func partID(v render.Value) (string, bool) {
	var inner struct {
		ID string `json:"id"`
	}
	switch x := v.(type) {
	case json.RawMessage:
		if vals, ok := jsonskim.Named(x, "id"); ok && (vals[0] == nil || json.Unmarshal(vals[0], &inner.ID) == nil) {
			return inner.ID, true
		}
	case render.Obj: // as gcStripPrefix rebuilt it: one key "id", a string
		ids := 0
		for _, f := range x {
			if strings.EqualFold(f.Key, "id") {
				ids++
				inner.ID, _ = f.Val.(string)
			}
		}
		if id, ok := x.Get("id"); ok && ids == 1 {
			if _, isString := id.(string); isString {
				return inner.ID, true
			}
		}
	}
	if b, err := render.Marshal(v); err == nil && json.Unmarshal(b, &inner) == nil {
		return inner.ID, true
	}
	return "", false
}

func gcAny(parts []render.Obj, key string) bool {
	for _, p := range parts {
		if _, ok := p.Get(key); ok {
			return true
		}
	}
	return false
}

// gcStripPrefix is stripToolCallIdPrefixes for one part: a call or
// response whose id starts with "<name>__" is rebuilt as {name, args|
// response, id} with the prefix removed (other fields are dropped).
func gcStripPrefix(p render.Obj) render.Obj {
	for i, f := range p {
		if f.Key != "functionCall" && f.Key != "functionResponse" {
			continue
		}
		// an object the lowering built is read as it is: writing it out
		// (its output among it) to read its name and id was a fifth of
		// the lowering
		inner, ok := f.Val.(render.Obj)
		if !ok {
			if inner, ok = orderedObj(rawOf(f.Val)); !ok {
				continue
			}
		}
		var name, id string
		if v, ok := inner.Get("name"); ok {
			name = stringOf(v)
		}
		if v, ok := inner.Get("id"); ok {
			id = stringOf(v)
		}
		n := strings.TrimSpace(name)
		if n == "" {
			n = "generic_tool"
		}
		if id == "" || !strings.HasPrefix(id, n+"__") {
			continue
		}
		second := "args"
		if f.Key == "functionResponse" {
			second = "response"
		}
		body, _ := inner.Get(second)
		q := append(render.Obj{}, p...)
		q[i] = render.KV(f.Key, render.Obj{render.KV("name", name), render.KV(second, body), render.KV("id", id[len(n)+2:])})
		return q
	}
	return p
}

// resentResults are the results the request at upto sent in another
// form than the call's stored result, by call id on the wire: a resumed
// run's setHistory (context management masking a big tool output)
// re-sent the result shrunk, as the request's contents hold it. Each
// value is the functionResponse output or error texts of the call, in
// the order of the request (each copy a resume sent again was masked on
// its own, naming its own spill file). render.GeminiResentResults.
func resentResults(s *model.Session, upto int) map[string][]string {
	var out map[string][]string
	for _, c := range gcHistory(s, upto, nil) {
		for _, p := range c.parts {
			v, ok := p.Get("functionResponse")
			if !ok {
				continue
			}
			var fr struct {
				ID       string                     `json:"id"`
				Response map[string]json.RawMessage `json:"response"`
			}
			if json.Unmarshal(rawOf(v), &fr) != nil {
				continue
			}
			ref, found := s.FindCall(fr.ID)
			if !found || ref.Call.Sent == nil {
				continue
			}
			text, ok := gcResponseText(fr.Response)
			if ok && text != formatters.ResultText(*ref.Call.Sent) {
				if out == nil {
					out = map[string][]string{}
				}
				out[fr.ID] = append(out[fr.ID], text)
			}
		}
	}
	return out
}

// gcResponseText is a functionResponse's output or error text.
func gcResponseText(resp map[string]json.RawMessage) (string, bool) {
	var s string
	if len(resp) == 1 {
		for _, k := range []string{"output", "error"} {
			if r, ok := resp[k]; ok && json.Unmarshal(r, &s) == nil {
				return s, true
			}
		}
	}
	return "", false
}
