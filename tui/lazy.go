package tui

import (
	"bufio"
	"cmp"
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"

	"correx/formatters"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// The lazy path for stores that read a session as an outline
// (sessions.Lazy: opencode's SQLite store). The first page of messages
// makes the first frame; the others are read one Cmd at a time and
// appended. A call's model-visible result (and its whole output, when the
// outline left it out) is computed in a Cmd when the call is shown, and
// kept for the most recently shown calls only, so what stays in memory
// does not grow with the session's output. Only the most recently used
// pages keep their parts (Config.OutlineBytes): for every call the session
// keeps its message and what its list row shows (callFacts), and a page
// dropped is read again, by the key the store keeps of where it starts,
// when one of its calls is shown or a conversation is rendered.

const (
	// maxDetailBytes bounds the outputs and visible texts kept for shown
	// calls; the most recent call is kept whatever its size.
	maxDetailBytes   = 4 << 20
	maxDetailEntries = 256
	// maxConvs bounds the rendered conversations kept; maxLazyConvs those
	// of lazy sessions, two for Compare.
	maxConvs     = 8
	maxLazyConvs = 2
)

// eagerBytes is how much elided output a lazy session's page reads ahead
// (in all) to compute the visible results of its calls with the page, as
// for small outputs; beyond it, a call's result is computed when shown.
// The first page reads ahead less, to be on screen sooner.
const (
	eagerBytes     = 2 << 20
	firstPageEager = 512 << 10
)

type pageMsg struct {
	data     *sessionData
	page     *sessions.OutlinePage
	limit    int // the page was read as LoadOutline(page.From, limit)
	facts    []callFacts
	children map[string]*sessionData
	pre      map[*model.ToolCall]detailMsg
	used     int
	warns    []string
	err      error
}

// outlinePage is one outline page of a lazy session as read.
type outlinePage struct {
	from, limit int // LoadOutline(from, limit) reads it again
	lo, hi      int // its messages in sess.Messages
	call0, n    int // its calls in calls
	// held: its messages have their parts and its calls their ref.Call;
	// bytes is about how much memory those take (heldBytes)
	held  bool
	bytes int
	used  uint64 // when last used (sessionData.clock)
}

// pageFacts is what the list keeps of each call of a page, in order; their
// call ids and summaries share one string (one allocation a page).
func pageFacts(s *model.Session, kinds callKinds) []callFacts {
	refs := s.ToolCalls()
	out := make([]callFacts, 0, len(refs))
	size := 0
	for _, r := range refs {
		f := factsOf(r.Call, kinds)
		size += len(f.callID) + len(f.summary)
		out = append(out, f)
	}
	var b strings.Builder
	b.Grow(size)
	for _, f := range out {
		b.WriteString(f.callID)
		b.WriteString(f.summary)
	}
	all, at := b.String(), 0
	cut := func(n int) string {
		at += n
		return all[at-n : at]
	}
	for i := range out {
		out[i].callID = cut(len(out[i].callID))
		out[i].summary = cut(len(out[i].summary))
	}
	return out
}

// preDetails computes the visible results of a page's calls whose output
// the outline holds, and of the elided ones while budget lasts; it returns
// them by the outline's call and the budget used.
func preDetails(ctx context.Context, l sessions.Lazy, sess *model.Session, budget, spoolText int) (map[*model.ToolCall]detailMsg, int) {
	pre := map[*model.ToolCall]detailMsg{}
	used := 0
	spills := sessions.SpillsFor(sess.Info)
	for _, r := range sess.ToolCalls() {
		c := r.Call
		var msg detailMsg
		if c.Elided {
			if used+c.OutputBytes > budget || c.OutputBytes > spoolText { // (spoolDetail's when shown)
				continue
			}
			full, err := l.LoadOutput(ctx, sess.Info.ID, sess.Messages[r.Message].Parts[r.Part].ID)
			if err != nil {
				continue
			}
			used += c.OutputBytes
			c, msg.full = full, full
		}
		msg.vis, msg.visNative = visibles(c, spills, render.CarrierModel(sess, r.Message, ""))
		pre[r.Call] = msg
	}
	return pre, used
}

type detailKey struct {
	data *sessionData
	idx  int
}

type detailMsg struct {
	key  detailKey
	page []model.Message // the call's outline page, read again
	full *model.ToolCall // the whole call when the outline elided it
	vis  model.Visible
	// text holds the visible text (spoolDetail) when vis does not;
	// textField is the stored field it is ("output" or "error")
	text      *fileLines
	textField string
	visNative map[render.Provider]*model.Visible
	err       error
}

// loadFirstPage reads the first outline page of session id.
func loadFirstPage(ctx context.Context, cfg Config, store sessions.Store, l sessions.Lazy, id string) tea.Msg {
	p, err := l.LoadOutline(ctx, id, 0, cfg.FirstPage)
	if err != nil {
		return loadedMsg{id: id, err: err}
	}
	d := &sessionData{children: map[string]*sessionData{}, lazy: l, details: newDetailCache(), budget: eagerBytes,
		kinds: callKinds{}, maxOutline: cfg.OutlineBytes, spoolText: cfg.SpoolTextBytes}
	var warns []string
	children := pageChildren(ctx, store, p.Session, &warns)
	pre, used := preDetails(ctx, l, p.Session, firstPageEager, cfg.SpoolTextBytes)
	d.budget -= used
	d.addPage(p, cfg.FirstPage, pageFacts(p.Session, d.kinds), children, pre, true)
	return loadedMsg{id: id, data: d, warns: warns}
}

// pageCmd reads the outline page of d's session that follows what d holds.
// Its kinds are d's: the pages of a session are read one after another.
func pageCmd(ctx context.Context, cfg Config, store sessions.Store, d *sessionData) tea.Cmd {
	l, id, from, budget, kinds := d.lazy, d.sess.Info.ID, d.next, d.budget, d.kinds
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		p, err := l.LoadOutline(ctx, id, from, cfg.Page)
		if err != nil {
			return pageMsg{data: d, err: err}
		}
		var warns []string
		children := pageChildren(ctx, store, p.Session, &warns)
		pre, used := preDetails(ctx, l, p.Session, budget, cfg.SpoolTextBytes)
		return pageMsg{data: d, page: p, limit: cfg.Page, facts: pageFacts(p.Session, kinds), children: children, pre: pre, used: used, warns: warns}
	}
}

// pageChildren loads the subagent sessions of a page's task calls.
func pageChildren(ctx context.Context, store sessions.Store, sess *model.Session, warns *[]string) map[string]*sessionData {
	tmp := &sessionData{children: map[string]*sessionData{}}
	for _, r := range sess.ToolCalls() {
		if cid := r.Call.ChildSessionID; cid != "" {
			tmp.calls = append(tmp.calls, callInfo{row: callFacts{kind: &callKind{child: cid}}})
		}
	}
	loadChildren(ctx, store, tmp, map[string]bool{sess.Info.ID: true}, 1, warns)
	return tmp.children
}

// addPage appends an outline page read as LoadOutline(p.From, limit): its
// messages, their calls (facts: what the list keeps of each) and the
// subagent sessions loaded for them. The visible results computed with
// the page (pre) are kept, as shown calls' are, with keep (the first
// page); else only their list badges are.
func (d *sessionData) addPage(p *sessions.OutlinePage, limit int, facts []callFacts, children map[string]*sessionData, pre map[*model.ToolCall]detailMsg, keep bool) {
	old := 0
	if d.sess == nil {
		s := p.Session
		msgs := s.Messages
		// room for the whole session, so that the calls' message pointers
		// stay valid as pages are appended
		s.Messages = append(make([]model.Message, 0, max(s.Info.Messages, len(msgs))), msgs...)
		s.Info.ToolCalls, s.Info.Truncated, s.Info.Errors = 0, 0, 0
		d.sess = s
	} else {
		old = len(d.sess.Messages)
		d.sess.Messages = append(d.sess.Messages, p.Session.Messages...)
		d.sess.Warnings = append(d.sess.Warnings, p.Session.Warnings...)
		// the file as read so far (a title, the last update, may come
		// late); the calls are counted here
		info := p.Session.Info
		info.ToolCalls, info.Truncated, info.Errors = d.sess.Info.ToolCalls, d.sess.Info.Truncated, d.sess.Info.Errors
		d.sess.Info = info
	}
	pg := outlinePage{from: p.From, limit: limit, lo: old, hi: len(d.sess.Messages), call0: len(d.calls), held: true,
		bytes: heldBytes(p.Session.Messages)}
	d.roomForCalls(len(facts))
	info := &d.sess.Info
	var kept []detailMsg
	for mi := old; mi < len(d.sess.Messages); mi++ {
		m := &d.sess.Messages[mi]
		step := 0
		if m.Role == model.RoleAssistant {
			d.steps++
			step = d.steps
		}
		for pi := range m.Parts {
			c := m.Parts[pi].Tool
			if c == nil {
				continue
			}
			idx := len(d.calls)
			ci := callInfo{ref: model.CallRef{Message: mi, Part: pi, Call: c}, page: int32(len(d.pages)), step: int32(step),
				vis: &notShown, flagged: agentFlagged(c)}
			if k := idx - pg.call0; k < len(facts) {
				ci.row = facts[k]
			} else {
				ci.row = factsOf(c, nil) // (d.kinds is the page commands')
			}
			d.factBytes += len(ci.row.callID) + len(ci.row.summary)
			if dm, ok := pre[c]; ok {
				ci.seen, ci.trunc, ci.errRes = true, dm.vis.Truncation != nil, dm.vis.Result.Type == model.ResultError
				if keep {
					dm.key = detailKey{d, idx}
					kept = append(kept, dm)
				}
			}
			d.calls = append(d.calls, ci)
			info.ToolCalls++
			if c.Status == model.StatusError {
				info.Errors++
			}
			if ci.flagged {
				info.Truncated++
			}
		}
	}
	pg.n = len(d.calls) - pg.call0
	d.mu.Lock()
	d.pages = append(d.pages, pg)
	d.mu.Unlock()
	d.usePage(len(d.pages) - 1)
	for _, dm := range kept {
		d.setDetail(dm)
	}
	for id, c := range children {
		d.children[id] = c
	}
	d.next = p.From + len(p.Session.Messages)
	d.loading = p.More
	d.dropPages()
}

// roomForCalls makes room for n more calls and, when it must grow after
// the first page, for as many as the session will hold at the rate of
// calls per message read so far (a session of 50,000 calls grown by append's 1.25 would allocate
// its calls five times over).
func (d *sessionData) roomForCalls(n int) {
	need := len(d.calls) + n
	if need <= cap(d.calls) {
		return
	}
	want := need
	// not on the first page: a first frame allocates only what it shows
	if read := len(d.sess.Messages); len(d.pages) > 0 && d.sess.Info.Messages > read {
		want = max(need, need*d.sess.Info.Messages/read*17/16)
	}
	d.calls = slices.Grow(d.calls, want-len(d.calls))
}

// heldBytes is about how much memory the parts of msgs take: their
// structs and the strings and JSON they hold.
func heldBytes(msgs []model.Message) int {
	const part, call = int(unsafe.Sizeof(model.Part{})), int(unsafe.Sizeof(model.ToolCall{}))
	n := 0
	for i := range msgs {
		for _, p := range msgs[i].Parts {
			n += part + len(p.ID) + len(p.Text) + len(p.Metadata)
			if c := p.Tool; c != nil {
				n += call + len(c.CallID) + len(c.Input) + len(c.Output) + len(c.Error) + len(c.Title) +
					len(c.Metadata) + len(c.Structured) + len(c.ErrorValue)
				for _, t := range c.Content {
					n += len(t.Text)
				}
			}
		}
	}
	return n
}

// usePage marks page i as just used.
func (d *sessionData) usePage(i int) {
	d.clock++
	d.pages[i].used = d.clock
}

// outlineBytes is about what d keeps of every call and message, held or
// not: the calls' rows and the messages without their parts.
func (d *sessionData) outlineBytes() int {
	const call, row, msg = int(unsafe.Sizeof(callInfo{})), int(unsafe.Sizeof(callRow{})), int(unsafe.Sizeof(model.Message{}))
	return cap(d.calls)*(call+row) + d.factBytes + cap(d.sess.Messages)*msg
}

// dropPages drops the parts of the least recently used pages while they
// and the rest of the outline (outlineBytes) take more than maxOutline
// bytes, but for the last page held (and the details of their calls,
// which refer to them).
func (d *sessionData) dropPages() {
	if d.maxOutline <= 0 {
		return
	}
	held, bytes := 0, d.outlineBytes()
	for i := range d.pages {
		if d.pages[i].held {
			held++
			bytes += d.pages[i].bytes
		}
	}
	for ; held > 1 && bytes > d.maxOutline; held-- {
		lru := -1
		for i := range d.pages {
			if d.pages[i].held && (lru < 0 || d.pages[i].used < d.pages[lru].used) {
				lru = i
			}
		}
		pg := &d.pages[lru]
		bytes -= pg.bytes
		d.mu.Lock()
		pg.held = false
		for mi := pg.lo; mi < pg.hi; mi++ {
			d.sess.Messages[mi].Parts = nil
		}
		d.mu.Unlock()
		for i := pg.call0; i < pg.call0+pg.n; i++ {
			d.calls[i].ref.Call = nil
			d.dropDetail(i)
			d.details.remove(i)
		}
	}
}

// holdPage puts back the parts of page i, read again as msgs; false when
// they are not the messages the page held (the session changed since).
func (d *sessionData) holdPage(i int, msgs []model.Message) bool {
	pg := &d.pages[i]
	if pg.held {
		return true
	}
	if len(msgs) != pg.hi-pg.lo {
		return false
	}
	var calls []*model.ToolCall
	for k := range msgs {
		if msgs[k].ID != d.sess.Messages[pg.lo+k].ID {
			return false
		}
		for pi := range msgs[k].Parts {
			if c := msgs[k].Parts[pi].Tool; c != nil {
				calls = append(calls, c)
			}
		}
	}
	if len(calls) != pg.n {
		return false
	}
	d.mu.Lock()
	for k := range msgs {
		d.sess.Messages[pg.lo+k].Parts = msgs[k].Parts
	}
	pg.held, pg.bytes = true, heldBytes(msgs)
	d.mu.Unlock()
	for k, c := range calls {
		d.calls[pg.call0+k].ref.Call = c
	}
	d.usePage(i)
	d.dropPages()
	return true
}

// readPage reads page pg of session id again: its messages.
func readPage(ctx context.Context, l sessions.Lazy, id string, pg outlinePage) ([]model.Message, error) {
	p, err := l.LoadOutline(ctx, id, pg.from, pg.limit)
	if err != nil {
		return nil, err
	}
	return p.Session.Messages, nil
}

// lowerFrom is what conversation k of d's session is lowered from: snap,
// the session, and for a lazy session fill, to run in the Cmd first,
// which puts into snap a copy of its messages (lockedView) with the parts
// of the pages not held read again (outlineSnapshot); or, where the
// conversation can be lowered a window at a time, win (windowFrom), and
// fill, which copies the messages for its ends alone (a head or tails,
// convSpool) when every page before the step is held, none otherwise
// (its ends are then not lowered first).
//
// Update takes none of these copies: a session of 16,680 messages is 4 MB
// of them, which made a key wait on the collector.
func (d *sessionData) lowerFrom(k convKey) (snap *model.Session, fill func(context.Context) error, win *windowSource) {
	snap = new(*d.sess)
	if d.lazy == nil {
		return snap, nil, nil // loaded whole: never changed
	}
	snap.Messages = nil
	view := d.view()
	if render.Windowable(d.sess, k.p, k.step, render.Model{Lowering: k.low}) {
		win = d.windowFrom(k.step, view)
		return snap, func(context.Context) error {
			snap.Messages = view.copy(win.at)
			return nil
		}, win
	}
	return snap, d.outlineSnapshot(k.step, view, snap), nil
}

// heldView is d's messages and pages as Update left them when a Cmd
// was made, for the Cmd to copy under d.mu (copy).
type heldView struct {
	d     *sessionData
	msgs  []model.Message
	pages []outlinePage // as they were then: held is read again under the lock
}

func (d *sessionData) view() heldView {
	return heldView{d: d, msgs: d.sess.Messages, pages: slices.Clone(d.pages)}
}

// held tells, under d.mu, whether page i still holds its parts.
func (v heldView) held(i int) bool { return v.d.pages[i].held }

// copy copies the messages, under d.mu's read lock, when every page
// before message at holds its parts (at < 0: every page); nil otherwise.
func (v heldView) copy(at int) []model.Message {
	v.d.mu.RLock()
	defer v.d.mu.RUnlock()
	for i, pg := range v.pages {
		if (at < 0 || pg.lo < at) && !v.held(i) {
			return nil
		}
	}
	return slices.Clone(v.msgs)
}

// windowSource is what a conversation lowered a window at a time
// (render.WriteWindowedAt) is lowered from: the session's info, the index
// of the step's assistant message and a copy of it, and pages, which give
// the messages before it with their parts, a page at a time.
type windowSource struct {
	info  model.SessionInfo
	at    int
	step  model.Message
	pages render.Pages
}

// windowFrom is the windowSource of step of d's session (0: the last),
// taken in Update with view (d.view()); its pages copy the held pages'
// messages (under d.mu, in the Cmd, when first asked) and read the others
// again, checking that they hold the ids they held.
func (d *sessionData) windowFrom(step int, view heldView) *windowSource {
	steps := d.sess.AssistantSteps()
	if step == 0 {
		step = len(steps)
	}
	at := steps[step-1]
	src := &windowSource{info: d.sess.Info, at: at, step: d.sess.Messages[at]}
	pages := view.pages
	for i, pg := range pages {
		if pg.lo >= at {
			pages = pages[:i]
			break
		}
	}
	var kept [][]model.Message
	copyHeld := sync.OnceFunc(func() {
		d.mu.RLock()
		defer d.mu.RUnlock()
		kept = make([][]model.Message, len(pages))
		for i, pg := range pages {
			if view.held(i) {
				kept[i] = slices.Clone(view.msgs[pg.lo:min(pg.hi, at)])
			}
		}
	})
	l, id := d.lazy, d.sess.Info.ID
	src.pages = func(ctx context.Context, lo int) ([]model.Message, error) {
		copyHeld()
		// every message of a lazy session came in one of its pages
		i, _ := slices.BinarySearchFunc(pages, lo, func(pg outlinePage, lo int) int { return cmp.Compare(pg.hi-1, lo) })
		if i == len(pages) || pages[i].lo > lo {
			return nil, fmt.Errorf("no outline page holds message %d", lo)
		}
		pg := pages[i]
		if kept[i] != nil {
			return kept[i][lo-pg.lo:], nil
		}
		msgs, err := readPage(ctx, l, id, pg)
		if err != nil {
			return nil, err
		}
		if len(msgs) != pg.hi-pg.lo {
			return nil, errSessionChanged
		}
		for k := range msgs[:min(len(msgs), at-pg.lo)] {
			if msgs[k].ID != view.msgs[pg.lo+k].ID { // ids never change
				return nil, errSessionChanged
			}
		}
		return msgs[lo-pg.lo:], nil
	}
	return src
}

// outlineSnapshot is fill for a conversation up to step (0: the last) of
// view: it puts into snap a copy of the messages, taken under d.mu, and
// reads into it the parts of the pages not held then.
func (d *sessionData) outlineSnapshot(step int, view heldView, snap *model.Session) func(context.Context) error {
	last := len(view.msgs) - 1
	if step > 0 {
		for mi, n := 0, 0; mi < len(view.msgs); mi++ {
			if view.msgs[mi].Role == model.RoleAssistant {
				if n++; n == step {
					last = mi
					break
				}
			}
		}
	}
	l, id := d.lazy, d.sess.Info.ID
	return func(ctx context.Context) error {
		var holes []outlinePage
		d.mu.RLock()
		snap.Messages = slices.Clone(view.msgs)
		for i, pg := range view.pages {
			if pg.lo <= last && !view.held(i) {
				holes = append(holes, pg)
			}
		}
		d.mu.RUnlock()
		for _, pg := range holes {
			msgs, err := readPage(ctx, l, id, pg)
			if err != nil {
				return err
			}
			if len(msgs) != pg.hi-pg.lo {
				return errSessionChanged
			}
			for k := range msgs {
				if msgs[k].ID != snap.Messages[pg.lo+k].ID {
					return errSessionChanged
				}
				snap.Messages[pg.lo+k].Parts = msgs[k].Parts
			}
		}
		return nil
	}
}

var errSessionChanged = errors.New("the session changed since it was read (it is read again when live follow sees the change)")

// detailCmd computes the visible result of call idx of d, reading the
// call's outline page again first when it is not held, and the whole call
// when the outline elided its output.
func detailCmd(ctx context.Context, d *sessionData, idx int) tea.Cmd {
	ci := &d.calls[idx]
	c, l := ci.ref.Call, d.lazy
	info := d.sess.Info
	var partID string
	if c != nil {
		partID = d.sess.Messages[ci.ref.Message].Parts[ci.ref.Part].ID
	}
	var pg outlinePage
	if d.pages != nil {
		pg = d.pages[ci.page]
	}
	carrier := render.CarrierModel(d.sess, ci.ref.Message, "")
	k := detailKey{d, idx}
	spoolText := d.spoolText // past it, spoolDetail is tried first
	return func() tea.Msg {
		msg := detailMsg{key: k}
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if c == nil {
			msgs, err := readPage(ctx, l, info.ID, pg)
			if err != nil {
				msg.err = err
				return msg
			}
			msg.page = msgs
			if c, partID = pageCall(msgs, idx-pg.call0); c == nil {
				msg.err = errSessionChanged
				return msg
			}
		}
		spills := sessions.SpillsFor(info)
		if c.Elided && c.OutputBytes > spoolText {
			if ok, err := spoolDetail(ctx, l, info.ID, partID, c, spills, carrier, &msg); ok || err != nil {
				msg.err = err
				return msg
			}
		}
		if c.Elided {
			full, err := l.LoadOutput(ctx, info.ID, partID)
			if err != nil {
				msg.err = err
				return msg
			}
			c, msg.full = full, full
		}
		msg.vis, msg.visNative = visibles(c, spills, carrier)
		return msg
	}
}

// spoolDetail is the detail of oc, an elided call, when its model-visible
// text is its output or its error as stored, and holds no truncation
// marker: the text streamed from the store into a spool file, never held
// (a 47 MiB output held, and read and scanned for markers, took the
// inspector to 87–96 MB), and the call with its metadata as stored. ok is
// false when it is not such a call, or the store does not stream so: it
// is read whole.
func spoolDetail(ctx context.Context, l sessions.Lazy, sessionID, partID string, oc *model.ToolCall, spills formatters.SpillFinder, carrier render.Model, msg *detailMsg) (ok bool, err error) {
	ms, streams := l.(sessions.MetaStreamer)
	field, verbatim := render.VerbatimField(oc)
	scan, scans := formatters.NewLiteralScan(oc.Agent, oc.Tool)
	if !streams || !verbatim || field == "" || !scans {
		return false, nil
	}
	// the visible result with a token for the text: the text itself, on
	// every lowering, no truncation found around it
	ph := *oc
	ph.Output, ph.Error, ph.Elided = hugeToken, hugeToken, false
	vis, native := visibles(&ph, spills, carrier)
	if vis.Text != hugeToken || vis.Result.Text != hugeToken || vis.Truncation != nil || native != nil {
		return false, nil
	}
	call, text, err := ms.LoadStreamedMeta(ctx, sessionID, partID)
	if err != nil {
		return false, err
	}
	if f, ok := render.VerbatimField(render.AsOutlined(call)); !ok || f != field || text == nil {
		return false, nil
	}
	f, err := createSpool()
	if err != nil {
		return false, err
	}
	buf := bufio.NewWriterSize(f, 64<<10)
	lw := &lineIndexWriter{w: buf, starts: linesFrom(0)}
	err = text(field, func(piece string) error {
		scan.WriteString(piece)
		_, err := io.WriteString(lw, piece)
		return err
	})
	if err == nil {
		err = buf.Flush()
	}
	if err != nil || scan.Found() {
		f.Close()
		os.Remove(f.Name())
		return false, err // a marker may be in it: read it whole
	}
	starts, trail := lw.lines()
	vis.Text, vis.Result.Text = "", ""
	// the call as stored, its metadata whole, without the text the file holds
	full := *call
	full.Output, full.Error, full.Elided = "", "", true
	msg.vis, msg.full, msg.text, msg.textField = vis, &full, newFileLines(f, starts, lw.n, trail), field
	return true, nil
}

// hugeToken stands for a huge text in spoolDetail's visible result: NUL
// bytes and the process's start time, which no stored text is.
var hugeToken = fmt.Sprintf("\x00correx-huge-%x\x00", time.Now().UnixNano())

// pageCall is the k-th call of a page's messages, with its part's id.
func pageCall(msgs []model.Message, k int) (*model.ToolCall, string) {
	for mi := range msgs {
		for _, p := range msgs[mi].Parts {
			if p.Tool == nil {
				continue
			}
			if k == 0 {
				return p.Tool, p.ID
			}
			k--
		}
	}
	return nil, ""
}

// setDetail stores a computed detail, holding again the call's page when
// the detail brings it, and dropping the least recently shown details
// beyond the cache's bounds. A detail of a call whose page was dropped
// meanwhile is not kept: the call is read again when shown.
func (d *sessionData) setDetail(msg detailMsg) {
	if msg.key.idx >= len(d.calls) {
		return
	}
	ci := &d.calls[msg.key.idx]
	if d.pages != nil && !d.pages[ci.page].held && msg.err == nil {
		if msg.page == nil {
			msg.close()
			return
		}
		if !d.holdPage(int(ci.page), msg.page) {
			msg.err = errSessionChanged
		}
	}
	if msg.err != nil {
		msg.vis = model.Visible{Text: "(could not read the call's output: " + msg.err.Error() + ")", Why: "read error"}
		msg.visNative, msg.full = nil, nil
		msg.close()
	}
	ci.vis, ci.ready = &callDetail{Visible: msg.vis, native: msg.visNative, full: msg.full, text: msg.text, textField: msg.textField}, true
	ci.seen, ci.trunc, ci.errRes = true, msg.vis.Truncation != nil, msg.vis.Result.Type == model.ResultError
	if d.details == nil {
		return
	}
	size := len(msg.vis.Text)
	for _, nv := range msg.visNative {
		size += len(nv.Text)
	}
	if msg.full != nil {
		size += len(msg.full.Output) + len(msg.full.Error)
	}
	for _, i := range d.details.add(msg.key.idx, size) {
		d.dropDetail(i)
	}
}

// dropDetail forgets call i's visible result (its list badges stay).
func (d *sessionData) dropDetail(i int) {
	e := &d.calls[i]
	if e.vis.text != nil {
		e.vis.text.Close()
	}
	e.vis, e.ready = &notShown, false
}

// close lets go of the spool file of a detail not kept.
func (m *detailMsg) close() {
	if m.text != nil {
		m.text.Close()
		m.text, m.textField = nil, ""
	}
}

// touch marks call idx (and its page) as just shown.
func (d *sessionData) touch(idx int) {
	if d.details != nil {
		d.details.touch(idx)
	}
	if d.pages != nil {
		d.usePage(int(d.calls[idx].page))
	}
}

// detailCache is an LRU of call indexes with their sizes.
type detailCache struct {
	order *list.List // of detailEntry, most recent first
	at    map[int]*list.Element
	bytes int
}

type detailEntry struct{ idx, size int }

func newDetailCache() *detailCache {
	return &detailCache{order: list.New(), at: map[int]*list.Element{}}
}

func (c *detailCache) touch(idx int) {
	if e, ok := c.at[idx]; ok {
		c.order.MoveToFront(e)
	}
}

// remove forgets idx.
func (c *detailCache) remove(idx int) {
	if e, ok := c.at[idx]; ok {
		c.bytes -= e.Value.(detailEntry).size
		c.order.Remove(e)
		delete(c.at, idx)
	}
}

// add records idx and returns the indexes evicted.
func (c *detailCache) add(idx, size int) []int {
	if e, ok := c.at[idx]; ok {
		c.bytes -= e.Value.(detailEntry).size
		c.order.Remove(e)
	}
	c.at[idx] = c.order.PushFront(detailEntry{idx, size})
	c.bytes += size
	var out []int
	for c.order.Len() > 1 && (c.bytes > maxDetailBytes || c.order.Len() > maxDetailEntries) {
		e := c.order.Back()
		de := e.Value.(detailEntry)
		c.order.Remove(e)
		delete(c.at, de.idx)
		c.bytes -= de.size
		out = append(out, de.idx)
	}
	return out
}

// truncated is the list's ✂ badge: detected tells the truncation correx
// found in the result; until a lazy call's result is read, flagged tells
// what the agent's own record says (shown muted, as not yet checked).
func (c *callInfo) truncated() (detected, flagged bool) {
	switch {
	case c.ready:
		return c.vis.Truncation != nil, false
	case c.seen:
		return c.trunc, false
	}
	return false, c.flagged
}

// errResult tells that the model was shown an error result.
func (c *callInfo) errResult() bool {
	switch {
	case c.ready:
		return c.vis.Result.Type == model.ResultError
	case c.seen:
		return c.errRes
	}
	return false
}

// addPage appends a lazy session's outline page and asks for the next.
func (m *Model) addPage(msg pageMsg) tea.Cmd {
	d := msg.data
	if msg.err != nil {
		d.loading = false
		if d == m.liveNext {
			m.liveNext = nil
		}
		m.warn("could not read the rest of the session: " + msg.err.Error())
		return nil
	}
	d.budget -= msg.used
	had := len(d.calls)
	d.addPage(msg.page, msg.limit, msg.facts, msg.children, msg.pre, false)
	m.addWarnings(msg.warns...)
	m.addWarnings(msg.page.Session.Warnings...)
	for _, v := range m.stack {
		if v.data == d {
			// the page's calls follow the rows of the calls before it
			v.list.SetRows(appendRows(v.list.rows, d, 0, had))
		}
	}
	if d.loading && (d == m.liveNext || len(m.stack) > 0 && m.stack[0].data == d) {
		ctx := m.ctx
		if d != m.liveNext {
			ctx = m.stack[0].ctx
		}
		return pageCmd(ctx, m.cfg, m.store, d)
	}
	d.loading = false
	if d == m.liveNext {
		m.swapLive(d)
	}
	return nil
}
