package tui

import (
	"container/list"
	"context"
	"time"

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
// does not grow with the session's output.

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
	children map[string]*sessionData
	pre      map[*model.ToolCall]detailMsg
	used     int
	warns    []string
	err      error
}

// preDetails computes the visible results of a page's calls whose output
// the outline holds, and of the elided ones while budget lasts; it returns
// them by the outline's call and the budget used.
func preDetails(ctx context.Context, l sessions.Lazy, sess *model.Session, budget int) (map[*model.ToolCall]detailMsg, int) {
	pre := map[*model.ToolCall]detailMsg{}
	used := 0
	spills := sessions.SpillsFor(sess.Info)
	for _, r := range sess.ToolCalls() {
		c := r.Call
		var msg detailMsg
		if c.Elided {
			if used+c.OutputBytes > budget {
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
	key       detailKey
	full      *model.ToolCall // the whole call when the outline elided it
	vis       model.Visible
	visNative map[render.Provider]*model.Visible
	err       error
}

// loadFirstPage reads the first outline page of session id.
func loadFirstPage(ctx context.Context, cfg Config, store sessions.Store, l sessions.Lazy, id string) tea.Msg {
	p, err := l.LoadOutline(ctx, id, 0, cfg.FirstPage)
	if err != nil {
		return loadedMsg{id: id, err: err}
	}
	d := &sessionData{children: map[string]*sessionData{}, lazy: l, details: newDetailCache(), budget: eagerBytes}
	var warns []string
	children := pageChildren(ctx, store, p.Session, &warns)
	pre, used := preDetails(ctx, l, p.Session, firstPageEager)
	d.budget -= used
	d.addPage(p, children, pre)
	return loadedMsg{id: id, data: d, warns: warns}
}

// pageCmd reads the outline page of d's session that follows what d holds.
func pageCmd(ctx context.Context, cfg Config, store sessions.Store, d *sessionData) tea.Cmd {
	l, id, from, budget := d.lazy, d.sess.Info.ID, d.next, d.budget
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		p, err := l.LoadOutline(ctx, id, from, cfg.Page)
		if err != nil {
			return pageMsg{data: d, err: err}
		}
		var warns []string
		children := pageChildren(ctx, store, p.Session, &warns)
		pre, used := preDetails(ctx, l, p.Session, budget)
		return pageMsg{data: d, page: p, children: children, pre: pre, used: used, warns: warns}
	}
}

// pageChildren loads the subagent sessions of a page's task calls.
func pageChildren(ctx context.Context, store sessions.Store, sess *model.Session, warns *[]string) map[string]*sessionData {
	tmp := &sessionData{children: map[string]*sessionData{}}
	for _, r := range sess.ToolCalls() {
		tmp.calls = append(tmp.calls, callInfo{ref: r, vis: &notShown})
	}
	loadChildren(ctx, store, tmp, map[string]bool{sess.Info.ID: true}, 1, warns)
	return tmp.children
}

// addPage appends an outline page: its messages, their calls (without
// their visible results) and the subagent sessions loaded for them.
func (d *sessionData) addPage(p *sessions.OutlinePage, children map[string]*sessionData, pre map[*model.ToolCall]detailMsg) {
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
	}
	steps := countAssistant(d.sess.Messages[:old])
	info := &d.sess.Info
	for mi := old; mi < len(d.sess.Messages); mi++ {
		m := &d.sess.Messages[mi]
		step := 0
		if m.Role == model.RoleAssistant {
			steps++
			step = steps
		}
		for pi := range m.Parts {
			c := m.Parts[pi].Tool
			if c == nil {
				continue
			}
			ci := callInfo{ref: model.CallRef{Message: mi, Part: pi, Call: c}, step: step, msg: m, vis: &notShown}
			if dm, ok := pre[c]; ok {
				ci.vis, ci.visNative, ci.full, ci.ready = &dm.vis, dm.visNative, dm.full, true
				ci.seen, ci.trunc, ci.errRes = true, dm.vis.Truncation != nil, dm.vis.Result.Type == model.ResultError
			}
			d.calls = append(d.calls, ci)
			info.ToolCalls++
			if c.Status == model.StatusError {
				info.Errors++
			}
			if f := formatters.AgentFlagged(c); f != nil && *f {
				info.Truncated++
			}
		}
	}
	for id, c := range children {
		d.children[id] = c
	}
	d.next = p.From + len(p.Session.Messages)
	d.loading = p.More
}

func countAssistant(msgs []model.Message) int {
	n := 0
	for i := range msgs {
		if msgs[i].Role == model.RoleAssistant {
			n++
		}
	}
	return n
}

// detailCmd computes the visible result of call idx of d, reading the
// whole call first when the outline elided its output.
func detailCmd(ctx context.Context, d *sessionData, idx int) tea.Cmd {
	ci := &d.calls[idx]
	c, l := ci.ref.Call, d.lazy
	info := d.sess.Info
	partID := d.sess.Messages[ci.ref.Message].Parts[ci.ref.Part].ID
	carrier := render.CarrierModel(d.sess, ci.ref.Message, "")
	k := detailKey{d, idx}
	return func() tea.Msg {
		msg := detailMsg{key: k}
		if c.Elided {
			ctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			full, err := l.LoadOutput(ctx, info.ID, partID)
			if err != nil {
				msg.err = err
				return msg
			}
			c, msg.full = full, full
		}
		spills := sessions.SpillsFor(info)
		msg.vis, msg.visNative = visibles(c, spills, carrier)
		return msg
	}
}

// setDetail stores a computed detail, dropping the least recently shown
// ones beyond the cache's bounds.
func (d *sessionData) setDetail(msg detailMsg) {
	if msg.key.idx >= len(d.calls) {
		return
	}
	ci := &d.calls[msg.key.idx]
	if msg.err != nil {
		msg.vis = model.Visible{Text: "(could not read the call's output: " + msg.err.Error() + ")", Why: "read error"}
	}
	ci.vis, ci.visNative, ci.full, ci.ready = &msg.vis, msg.visNative, msg.full, true
	ci.seen, ci.trunc, ci.errRes = true, msg.vis.Truncation != nil, msg.vis.Result.Type == model.ResultError
	size := len(msg.vis.Text)
	for _, nv := range msg.visNative {
		size += len(nv.Text)
	}
	if msg.full != nil {
		size += len(msg.full.Output) + len(msg.full.Error)
	}
	for _, i := range d.details.add(msg.key.idx, size) {
		e := &d.calls[i]
		e.vis, e.visNative, e.full, e.ready = &notShown, nil, nil, false
	}
}

// touch marks call idx as just shown.
func (d *sessionData) touch(idx int) {
	if d.details != nil {
		d.details.touch(idx)
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
	f := formatters.AgentFlagged(c.ref.Call)
	return false, f != nil && *f
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
	d.addPage(msg.page, msg.children, msg.pre)
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
