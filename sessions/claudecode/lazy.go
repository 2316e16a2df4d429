package claudecode

// The lazy path (sessions.Lazy) over Claude Code transcripts. A transcript
// is indexed by line as it is scanned (sessions.LineIndex), a later scan
// reading only what was appended, and fed to a ccReader, which keeps of
// each large result, api-request-blob record and request message only
// where it is in the file. An outline page reads the file no further than
// its messages are stable; a call's result and a step's logged request
// are read again from their lines when shown (LoadOutput, LoadRequest);
// Load reads them all.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"correx/formatters"
	"correx/internal/jsonskim"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// keepOpen is how many transcripts a store keeps read: the one on screen,
// a subagent's, and the other side of a compare.
const keepOpen = 3

// ccFile is one transcript read so far.
type ccFile struct {
	mu    sync.Mutex
	path  string
	root  string
	index *sessions.LineIndex
	r     *ccReader
	given sessions.PageWarnings
}

// ccListed is what List read of a file: each session's info, message
// count and first warning (the problem of a file that holds none).
type ccListed struct {
	stat  string
	infos []model.SessionInfo
	msgs  []int
	first string
}

// file is the open ccFile of path, or a new one.
func (s *claudeStore) file(path string) *ccFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.open {
		if f.path == path {
			s.open = slices.Insert(slices.Delete(s.open, i, i+1), 0, f)
			return f
		}
	}
	f := &ccFile{path: path, root: s.root, index: sessions.NewLineIndex(path)}
	f.r = newCCReader(path, s.root)
	s.open = slices.Insert(s.open, 0, f)
	if len(s.open) > keepOpen {
		s.open = s.open[:keepOpen]
	}
	return f
}

// scan reads on until the file's session holds want stable messages
// (want < 0: to the end). Call with f.mu held.
func (f *ccFile) scan(ctx context.Context, want int) error {
	return f.index.ScanToPrepared(ctx, want, func() int { return f.r.stableMessages() }, func() { f.r = newCCReader(f.path, f.root) },
		func(data []byte) any { return decodeCCLine(data) },
		func(l sessions.Line, data []byte, prep any, last bool) {
			f.r.decodedLine(l, data, prep.(*ccDecoded), last)
		},
		func(n int, format string, args ...any) { f.r.warnAt(n, format, args...) })
}

// session is the file's session id, nil when it holds none.
func (f *ccFile) session(id string) *model.Session {
	for _, sess := range f.r.sessions() {
		if sess.Info.ID == id {
			return sess
		}
	}
	return nil
}

// read scans file path to its end and gives its sessions to fn. It
// scans a chunk of messages at a time, so that the pages and calls of a
// session on screen are read between chunks.
func (s *claudeStore) read(ctx context.Context, path string, fn func(f *ccFile) error) error {
	f := s.file(path)
	for {
		f.mu.Lock()
		err := f.scan(ctx, f.r.stableMessages()+readChunk)
		if err != nil || f.index.AtEnd() {
			if err == nil {
				err = fn(f)
			}
			f.mu.Unlock()
			return err
		}
		f.mu.Unlock()
	}
}

// readChunk is how many messages read scans at a time.
const readChunk = 256

func (s *claudeStore) List(ctx context.Context) ([]model.SessionInfo, error) {
	var infos []model.SessionInfo
	var warns []string
	var problems []error
	files := map[string]string{}
	seen := map[string]bool{}
	for _, path := range s.transcriptFiles() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l, err := s.listed1(ctx, path)
		if err == nil && l.msgs[0] == 0 && l.first != "" {
			err = sessions.NotSession(path, "line "+strings.TrimPrefix(l.first, path+":"))
		}
		if err != nil {
			warns = append(warns, sessions.Skipped(err))
			problems = append(problems, err)
			continue
		}
		for i, info := range l.infos {
			if seen[info.ID] {
				continue
			}
			seen[info.ID], files[info.ID] = true, path
			if l.msgs[i] > 0 {
				infos = append(infos, info)
			}
		}
	}
	s.SetIndex(files, warns)
	sessions.SortInfos(infos)
	return infos, sessions.NoSessionRead(len(infos), problems)
}

// listed1 is what List reads of one file: again only when it changed.
func (s *claudeStore) listed1(ctx context.Context, path string) (ccListed, error) {
	stat, statOK := sessions.StatPrint(path, time.Now(), false)
	s.mu.Lock()
	l, ok := s.listed[path]
	s.mu.Unlock()
	if ok && statOK && l.stat == stat {
		return l, nil
	}
	l = ccListed{stat: stat}
	err := s.read(ctx, path, func(f *ccFile) error {
		for _, sess := range f.r.sessions() {
			out := f.r.snapshot(sess, 0, 0, true)
			l.infos = append(l.infos, out.Info)
			l.msgs = append(l.msgs, len(sess.Messages))
			if sess == f.r.main && len(out.Warnings) > 0 {
				l.first = out.Warnings[0]
			}
		}
		return nil
	})
	if err != nil {
		return l, err
	}
	if statOK {
		s.mu.Lock()
		s.listed[path] = l
		s.mu.Unlock()
	}
	return l, nil
}

// guess names the files that may hold session id, so that a session is
// opened without listing the store: <id>.jsonl and agent-<id>.jsonl
// under the roots.
func (s *claudeStore) guess(id string) []string {
	if id == "" || strings.ContainsAny(id, `/\*?[`) {
		return nil
	}
	var out []string
	for _, r := range s.roots {
		if sessions.IsFile(r) {
			out = append(out, r)
			continue
		}
		for _, pat := range []string{id + ".jsonl", "*/" + id + ".jsonl", "agent-" + id + ".jsonl", "*/agent-" + id + ".jsonl",
			"*/*/subagents/agent-" + id + ".jsonl", "*/subagents/agent-" + id + ".jsonl"} {
			m, _ := filepath.Glob(filepath.Join(r, pat))
			out = append(out, m...)
		}
	}
	return out
}

// fileOf is the file of session id: by the last List, else by guess (a
// guessed file whose first line names id), else by listing again.
func (s *claudeStore) fileOf(ctx context.Context, id string) (string, error) {
	if f, err := s.FileOf(ctx, id, s.path, notListed); err == nil {
		return f, nil // by the last List
	}
	s.mu.Lock()
	path, ok := s.guessed[id]
	s.mu.Unlock()
	if ok {
		return path, nil
	}
	for _, path := range s.guess(id) {
		ok, _ := looksClaude(path)
		if !ok {
			continue
		}
		f := s.file(path)
		f.mu.Lock()
		err := f.scan(ctx, 1)
		found := err == nil && f.session(id) != nil
		f.mu.Unlock()
		if found {
			s.mu.Lock()
			s.guessed[id] = path
			s.mu.Unlock()
			return path, nil
		}
	}
	return s.FileOf(ctx, id, s.path, s.List)
}

// opened is the open file of session id, scanned until the session holds
// want stable messages (want < 0: to its end), with f.mu held: the
// caller unlocks it.
func (s *claudeStore) opened(ctx context.Context, id string, want int) (*ccFile, *model.Session, error) {
	path, err := s.fileOf(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	f := s.file(path)
	f.mu.Lock()
	if err := f.scan(ctx, want); err != nil {
		f.mu.Unlock()
		return nil, nil, fmt.Errorf("load %s: %w", id, err)
	}
	sess := f.session(id)
	if sess == nil && !f.index.AtEnd() {
		err = f.scan(ctx, -1) // an inline sidechain not met yet
		sess = f.session(id)
	}
	if sess == nil || err != nil {
		f.mu.Unlock()
		return nil, nil, cmpErr(err, sessions.NotFound(id, s.path))
	}
	return f, sess, nil
}

// notListed is the list of fileOf's first look-up: the last List's index
// only.
func notListed(context.Context) ([]model.SessionInfo, error) { return nil, errNotListed }

var errNotListed = errors.New("not listed yet")

func cmpErr(err, other error) error {
	if err != nil {
		return err
	}
	return other
}

func (s *claudeStore) Load(ctx context.Context, id string) (*model.Session, error) {
	f, sess, err := s.opened(ctx, id, -1)
	if err != nil {
		return nil, err
	}
	defer f.mu.Unlock()
	out, err := f.r.whole(sess)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", id, err)
	}
	out.Warnings = append(out.Warnings, s.Warnings()...)
	return out, nil
}

// LoadOutline implements sessions.OutlineLoader: the first from+limit
// stable messages are read, and no more of the file.
func (s *claudeStore) LoadOutline(ctx context.Context, id string, from, limit int) (*sessions.OutlinePage, error) {
	want := -1
	if limit > 0 {
		want = from + limit
	}
	f, sess, err := s.opened(ctx, id, want)
	if err != nil {
		return nil, err
	}
	defer f.mu.Unlock()
	end := len(sess.Messages)
	if !f.index.AtEnd() {
		end = min(end, f.r.stableMessages())
	}
	if limit > 0 {
		end = min(end, from+limit)
	}
	from = min(from, end)
	out := f.r.snapshot(sess, from, end, f.index.AtEnd())
	out.Warnings = f.given.Of(from, out.Warnings)
	if from == 0 {
		out.Warnings = append(out.Warnings, s.Warnings()...)
	}
	return &sessions.OutlinePage{Session: out, From: from, More: !f.index.AtEnd() || end < len(sess.Messages)}, nil
}

// LoadOutput implements sessions.OutputLoader.
func (s *claudeStore) LoadOutput(ctx context.Context, sessionID, partID string) (*model.ToolCall, error) {
	f, sess, err := s.opened(ctx, sessionID, 0)
	if err != nil {
		return nil, err
	}
	defer f.mu.Unlock()
	st := f.r.st[sess]
	cc := st.parts[partID]
	if cc == nil {
		return nil, fmt.Errorf("%w: tool part %q of session %s", sessions.ErrNotFound, partID, sessionID)
	}
	full, err := f.r.output(cc)
	if err == nil && cc.dirty {
		cc.trunc, cc.dirty = full.Sent != nil && formatters.Visible(full, nil).Truncation != nil, false
	}
	return full, err
}

// LoadRequest implements sessions.RequestLoader: the logged request of
// message msg, read again from the lines it names.
func (s *claudeStore) LoadRequest(ctx context.Context, sessionID string, msg int) (*model.LoggedRequest, error) {
	req, _, err := s.loadRequest(ctx, sessionID, msg, nil, 0, 0)
	return req, err
}

// LoadRequestDeferred implements sessions.DeferringRequestLoader:
// LoadRequest with the string content of each large tool_result of a
// logged request left in the transcript (a rebuilt request is read whole).
func (s *claudeStore) LoadRequestDeferred(ctx context.Context, sessionID string, msg int, place func(func(context.Context, func(string) error) error) string) (*model.LoggedRequest, func() error, error) {
	req, _, closed, err := s.LoadRequestWindow(ctx, sessionID, msg, 0, 0, place)
	return req, closed, err
}

// LoadRequestWindow implements sessions.WindowRequestLoader (head and
// tail 0: LoadRequestDeferred).
func (s *claudeStore) LoadRequestWindow(ctx context.Context, sessionID string, msg, head, tail int, place func(func(context.Context, func(string) error) error) string) (*model.LoggedRequest, int, func() error, error) {
	d := &sessions.Leaver{Place: place}
	req, from, err := s.loadRequest(ctx, sessionID, msg, d, head, tail)
	if d.Spans == nil {
		return req, from, nil, err
	}
	return req, from, d.Spans.Close, err
}

// loadRequest reads the request of step message msg, deferred with d;
// with head (or tail) > 0, only its first head (last tail) messages, from
// its message from on (nil when it has no more, or is rebuilt).
func (s *claudeStore) loadRequest(ctx context.Context, sessionID string, msg int, d *sessions.Leaver, head, tail int) (_ *model.LoggedRequest, from int, _ error) {
	f, sess, err := s.opened(ctx, sessionID, msg+1)
	if err != nil {
		return nil, 0, err
	}
	defer f.mu.Unlock()
	steps := sess.AssistantSteps()
	k := slices.Index(steps, msg)
	if k < 0 {
		return nil, 0, fmt.Errorf("%w: session %s has no step at message %d", sessions.ErrNotFound, sessionID, msg)
	}
	st := f.r.st[sess]
	x := newCCLines(f.path)
	defer x.close()
	window := head > 0 || tail > 0
	if why := f.r.rebuiltWhy(st, msg, k); why != "" {
		if window {
			return nil, 0, nil
		}
		req, err := st.rebuilt(x, st.stepLine[msg], why)
		return req, 0, err
	}
	cr := st.requests[st.stepReq[msg]]
	if window {
		if len(cr.msgs) <= head+tail {
			return nil, 0, nil
		}
		from = len(cr.msgs) - tail
		if head > 0 {
			from = 0
		}
		cr = cr.window(from, from+head+tail)
	}
	if d != nil {
		d.Spans = &sessions.SpanFile{Path: f.path}
		x.deferral, x.without = d, st.without
	}
	req, err := x.logged(cr)
	return req, from, err
}

// window is cr's messages [from, to), with the cache marks among them.
func (cr *ccRequest) window(from, to int) *ccRequest {
	w := *cr
	w.msgs, w.cache = cr.msgs[from:to:to], nil
	for _, c := range cr.cache {
		if c.Message >= from && c.Message < to {
			c.Message -= from
			w.cache = append(w.cache, c)
		}
	}
	return &w
}

// ---- the reader's side ----

// snapshot is session sess as read so far, with copies of its messages
// [from, end) (the caller's to change) and no others: each step's request
// as an outline gives it (model.LoggedRequest.Elided), the warnings and
// the list counts (final: the file was read to its end; before, the
// truncations of large results that changed are not read again).
func (r *ccReader) snapshot(sess *model.Session, from, end int, final bool) *model.Session {
	st := r.st[sess]
	r.settle(st, final)
	out := &model.Session{Info: sess.Info, Warnings: slices.Clone(sess.Warnings), Messages: slices.Clone(sess.Messages[from:end])}
	steps := sess.AssistantSteps()
	if len(st.requests) == 0 && len(steps) > 0 {
		out.Warnings = append(out.Warnings, r.rebuiltWhy(st, steps[0], 0)+": every request "+model.RebuiltLabel)
	}
	for k, idx := range steps {
		why := r.rebuiltWhy(st, idx, k)
		if why != "" && len(st.requests) > 0 {
			out.Warnings = append(out.Warnings, why+": "+model.RebuiltLabel)
		}
		if idx >= from && idx < end {
			out.Messages[idx-from].Request = &model.LoggedRequest{Provider: "anthropic", Rebuilt: why, Elided: true}
		}
	}
	for i := range out.Messages {
		m := &out.Messages[i]
		m.Parts = slices.Clone(m.Parts)
		for j := range m.Parts {
			if c := m.Parts[j].Tool; c != nil {
				cp := *c
				if cp.Notice != nil {
					n := *cp.Notice
					cp.Notice = &n
				}
				m.Parts[j].Tool = &cp
			}
		}
	}
	if t := ccClip(st.firstPrompt, 100); t != "" && r.rank[sess] == 0 {
		out.Info.Title = t
	}
	sessions.CountCalls(&out.Info, sess.Messages)
	out.Info.Truncated = 0
	for i := range sess.Messages {
		for _, p := range sess.Messages[i].Parts {
			if cc := st.parts[p.ID]; cc != nil && p.Tool == cc.call && cc.trunc {
				out.Info.Truncated++
			}
		}
	}
	if sess == r.main {
		r.linkSidechains(out)
		out.Warnings = append(out.Warnings, r.warn...)
		r.spawnInfo(out)
	}
	return out
}

// rebuiltWhy says why the request of step k (assistant message idx) is
// rebuilt from the transcript, "" when it is as logged.
func (r *ccReader) rebuiltWhy(st *ccState, idx, k int) string {
	if len(st.requests) == 0 {
		return fmt.Sprintf("%s: no api-request records (Claude Code before 2.1 logs none)", r.file)
	}
	cr := st.requests[st.stepReq[idx]]
	switch {
	case cr == nil:
		return fmt.Sprintf("%s:%d: step %d has no api-request record", r.file, st.stepLine[idx], k+1)
	case cr.missing > 0:
		return fmt.Sprintf("%s:%d: api-request %s (step %d): %d of %d messages not found in the transcript",
			r.file, cr.line, cr.id, k+1, cr.missing, cr.missing+len(cr.msgs))
	}
	return ""
}

// settle finds the truncation of the calls that changed (with final,
// also of the large results, read again), and where each
// read_truncation_notice went once a logged request carried its call.
func (r *ccReader) settle(st *ccState, final bool) {
	for _, cc := range st.parts {
		if !cc.dirty || cc.elided && !final {
			continue
		}
		if !cc.elided {
			cc.settle()
			continue
		}
		if full, err := r.output(cc); err == nil {
			cc.trunc = full.Sent != nil && formatters.Visible(full, nil).Truncation != nil
		}
		cc.dirty = false
	}
	for _, n := range st.notices {
		cr := st.firstLogged[n.id]
		if n.done || cr == nil {
			continue
		}
		n.done = true
		c := st.calls[n.id].call
		x := newCCLines(r.file)
		req, err := x.logged(cr)
		x.close()
		if err != nil {
			continue
		}
		if where, ok := noticeWhere(req, n.id, c.Notice.Text); ok {
			c.Notice = &model.Notice{Text: c.Notice.Text, Where: fmt.Sprintf("%s (read_truncation_notice at %s:%d)", where, r.file, n.line)}
		}
	}
}

// output is call cc whole: its result read again from its line (and the
// result as sent from the logged request's).
func (r *ccReader) output(cc *ccCall) (*model.ToolCall, error) {
	c := *cc.call
	if !cc.elided {
		if c.Notice != nil {
			n := *c.Notice
			c.Notice = &n
		}
		return &c, nil
	}
	x := newCCLines(r.file)
	defer x.close()
	var b model.AnthropicBlock
	raw, err := x.block(cc.result)
	if err == nil && decodeBlock(raw, &b) != nil {
		err = fmt.Errorf("%s:%d: the file changed since it was read", r.file, cc.result.line.N)
	}
	if err != nil {
		return nil, err
	}
	isErr := b.Errored()
	content := b.Content
	if cc.rep != nil {
		content = cc.rep
	}
	v := claudeResultValue(content, isErr)
	if text := formatters.ResultText(*v); isErr {
		c.Error = text
	} else {
		c.Output = text
	}
	if tur := x.toolUseResult; len(tur) > 0 && string(tur) != "null" {
		c.Metadata = tur
	}
	switch {
	case cc.sent != nil:
		raw, err := x.block(cc.sent.block)
		var sb model.AnthropicBlock
		if err == nil && decodeBlock(raw, &sb) != nil {
			err = fmt.Errorf("%s:%d: the file changed since it was read", r.file, cc.sent.block.line.N)
		}
		if err != nil {
			return nil, err
		}
		v = claudeResultValue(sb.Content, sb.Errored())
	case cc.lateRep != nil:
		v = claudeResultValue(cc.lateRep, c.Status == model.StatusError)
	}
	c.Sent = v
	c.Elided, c.OutputBytes = false, 0
	if c.Notice != nil {
		n := *c.Notice
		c.Notice = &n
	}
	return &c, nil
}

// decodeBlock decodes raw, a block of a line read again (and so checked
// again), as encoding/json does.
func decodeBlock(raw []byte, b *model.AnthropicBlock) error {
	if !jsonskim.Valid(raw) {
		return json.Unmarshal(raw, b)
	}
	return render.DecodeAnthropicBlock(raw, b)
}

// whole is session sess with every result and logged request read again:
// the session as the file gives it.
func (r *ccReader) whole(sess *model.Session) (*model.Session, error) {
	st := r.st[sess]
	out := r.snapshot(sess, 0, len(sess.Messages), true)
	x := newCCLines(r.file)
	defer x.close()
	logged, err := st.resolved(x)
	if err != nil {
		return nil, err
	}
	for _, idx := range sess.AssistantSteps() {
		m := &out.Messages[idx]
		if m.Request.Rebuilt != "" {
			if m.Request, err = st.rebuilt(x, st.stepLine[idx], m.Request.Rebuilt); err != nil {
				return nil, err
			}
			continue
		}
		cr := st.requests[st.stepReq[idx]]
		msgs := logged[cr]
		m.Request = &model.LoggedRequest{Provider: "anthropic", Messages: msgs[:len(msgs):len(msgs)], Cache: cr.cache}
	}
	for i := range out.Messages {
		for j, p := range out.Messages[i].Parts {
			if p.Tool == nil || !p.Tool.Elided {
				continue
			}
			full, err := r.output(st.parts[p.ID])
			if err != nil {
				return nil, err
			}
			out.Messages[i].Parts[j].Tool = full
		}
	}
	return out, nil
}

// resolved is the messages of every complete logged request, read again,
// each request extending its base's as the records do (so that steps
// share them, and each message is read once).
func (st *ccState) resolved(x *ccLines) (map[*ccRequest][]json.RawMessage, error) {
	out := map[*ccRequest][]json.RawMessage{}
	read := map[ccMsgRef]json.RawMessage{}
	for _, cr := range st.order {
		if cr.missing > 0 {
			continue
		}
		var msgs []json.RawMessage
		k := 0
		switch {
		case cr.shared:
			msgs, k = out[cr.base], cr.keep
		case cr.keep > 0:
			msgs, k = append(make([]json.RawMessage, 0, len(cr.msgs)), out[cr.base][:cr.keep]...), cr.keep
		}
		for _, ref := range cr.msgs[k:] {
			m, ok := read[ref]
			if !ok {
				var err error
				if m, err = x.message(ref); err != nil {
					return nil, err
				}
				read[ref] = m
			}
			msgs = append(msgs, m)
		}
		out[cr] = msgs
	}
	return out, nil
}

// readClaudeTranscript reads one file whole: its session (or subagent)
// first, then any inline sidechains as their own sessions.
func readClaudeTranscript(file, root string) ([]*model.Session, error) {
	s := newClaudeStore(file, []string{file})
	s.root = root
	var out []*model.Session
	err := s.read(context.Background(), file, func(f *ccFile) error {
		for _, sess := range f.r.sessions() {
			w, err := f.r.whole(sess)
			if err != nil {
				return err
			}
			out = append(out, w)
		}
		return nil
	})
	return out, err
}
