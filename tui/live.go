package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"correx/model"
	"correx/sessions"
)

// Live: while correx is open, a session that is still being written (an
// opencode running in another terminal) updates as new calls land. Every
// Config.LiveEvery a command lists the store (one short read, never blocking the
// writer) and reloads the open session only when its counts or update time
// changed; the call list keeps its selection and the status line says what
// is new.
//
// Listing opencode's database reads every part row (on a large database
// most of a second of CPU), so a check first takes the store's fingerprint
// (sessions.Fingerprint: a few stats) and lists only when it differs from
// the one taken before the previous successful list. The fingerprint rides
// the check loop (liveMsg, then the next liveTickMsg); a check with none
// (the first, or after a failure, or a store that cannot say) lists. After
// a check that found nothing, a wait (liveWaitCmd) takes the fingerprint
// every Config.LiveEvery without a message, until it moves.

// liveTickMsg starts a check; fp is the store's fingerprint at the
// previous successful check ("" when there is none).
type liveTickMsg struct{ fp string }

// liveMsg is what a live check found: the fresh list, and the reloaded
// open session when it changed (for a lazy store its first outline page,
// the rest to follow as pages before it is swapped in). unchanged says the
// store's fingerprint was the previous one and nothing was listed. fp is
// the fingerprint to hand to the next check: the one taken before this
// list when the list (and the reload it asked for) succeeded, else "".
type liveMsg struct {
	infos     []model.SessionInfo
	err       error
	data      *sessionData
	unchanged bool
	fp        string
}

// liveTick schedules the first check.
func liveTick(every time.Duration) tea.Cmd { return nextLiveTick(every, "") }

// nextLiveTick schedules a check that knows the fingerprint fp.
func nextLiveTick(every time.Duration, fp string) tea.Cmd {
	return tea.Tick(every, func(time.Time) tea.Msg { return liveTickMsg{fp: fp} })
}

// liveQuiet is how many unchanged fingerprints a wait takes before it
// hands back to a check (which sees what is open then): every message
// draws a frame, so a TUI left open draws two in that time, not two at
// every check.
const liveQuiet = 15

// liveWaitCmd takes the store's fingerprint every `every` until it is no
// longer fp (or cannot be taken), or liveQuiet times; then the next check
// starts, with fp to compare.
func liveWaitCmd(ctx context.Context, every time.Duration, store sessions.Store, fp string) tea.Cmd {
	return func() tea.Msg {
		for range liveQuiet {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(every):
			}
			if now, ok := sessions.Fingerprint(store); !ok || now != fp {
				break
			}
		}
		return liveTickMsg{fp: fp}
	}
}

// liveCmd checks the store: when its fingerprint is still prevFP it does
// nothing more; else it lists the store and reloads the open session id
// when its listed facts differ from prev, the ones of the previous list.
// The fingerprint is taken before the list, so a write during the list
// changes the next one.
func liveCmd(ctx context.Context, cfg Config, store sessions.Store, id string, prev model.SessionInfo, prevFP string) tea.Cmd {
	return func() tea.Msg {
		fp, ok := sessions.Fingerprint(store)
		if !ok {
			fp = ""
		}
		if fp != "" && fp == prevFP {
			return liveMsg{unchanged: true, fp: fp}
		}
		lctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		infos, err := store.List(lctx)
		msg := liveMsg{infos: infos, err: err}
		if err != nil {
			return msg
		}
		msg.fp = fp
		if id == "" {
			return msg
		}
		for _, in := range infos {
			if in.ID == id && changed(in, prev) {
				if loaded, ok := loadCmd(ctx, cfg, store, id)().(loadedMsg); ok && loaded.err == nil {
					msg.data = loaded.data
				} else {
					msg.fp = "" // list again next time
				}
			}
		}
		return msg
	}
}

// changed tells that a listed session a differs from b as listed before
// (when b's counts are not known, by its update time).
func changed(a, b model.SessionInfo) bool {
	if b.Uncounted {
		return !a.Updated.Equal(b.Updated)
	}
	return !a.Updated.Equal(b.Updated) || a.Messages != b.Messages || a.ToolCalls != b.ToolCalls ||
		a.Errors != b.Errors || a.Truncated != b.Truncated
}

// live handles a tick (start a check unless one runs, or a reload is still
// reading pages) and a check's result. It does no IO: the fingerprint is
// taken and compared in liveCmd.
func (m *Model) live(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case liveTickMsg:
		if m.store == nil || m.checking || m.liveNext != nil {
			return nextLiveTick(m.cfg.LiveEvery, msg.fp)
		}
		// a full list the live check did not make stands for one, unless
		// it is not what is open
		listedFP := m.listedFP
		m.listedFP, m.checking = "", true
		id, prev := "", model.SessionInfo{}
		if len(m.stack) > 0 {
			open := m.stack[0].data.sess.Info
			id = open.ID
			var listed bool
			if prev, listed = m.picker.Info(id); !listed || prev.Uncounted || !prev.Updated.Equal(open.Updated) {
				// not counted yet (the list after a large session), or
				// listed after a write the open session was loaded
				// before: it is as loaded unless its update time moved
				prev, prev.Uncounted, listedFP = open, true, ""
			}
		}
		if msg.fp == "" {
			msg.fp = listedFP
		}
		return liveCmd(m.ctx, m.cfg, m.store, id, prev, msg.fp)
	case liveMsg:
		m.checking = false
		if msg.unchanged {
			return liveWaitCmd(m.ctx, m.cfg.LiveEvery, m.store, msg.fp)
		}
		if msg.err == nil {
			m.picker.Refresh(msg.infos)
		}
		if d := msg.data; d != nil && len(m.stack) > 0 && m.stack[0].data.sess.Info.ID == d.sess.Info.ID {
			if d.loading {
				m.liveNext = d // swapped in by swapLive once its last page is read
				return tea.Batch(pageCmd(m.ctx, m.cfg, m.store, d), nextLiveTick(m.cfg.LiveEvery, msg.fp))
			}
			m.swapLive(d)
		}
		return nextLiveTick(m.cfg.LiveEvery, msg.fp)
	}
	return nil
}

// swapLive puts a reloaded session on screen.
func (m *Model) swapLive(d *sessionData) {
	m.liveNext = nil
	if len(m.stack) == 0 || m.stack[0].data.sess.Info.ID != d.sess.Info.ID {
		return
	}
	if news := m.stack[0].Replace(d); news != "" {
		m.info("live: " + news)
	}
}

// Replace swaps in a reloaded session, keeping the selected call and the
// panes, and says what is new.
func (v *sessionView) Replace(d *sessionData) string {
	old := map[string]model.ToolStatus{}
	for _, c := range v.data.calls {
		old[c.row.callID] = c.row.kind.status
	}
	selected := ""
	if r, ok := v.list.Selected(); ok {
		selected = r.info().row.callID
	}
	var added, finished []string
	for _, c := range d.calls {
		st, seen := old[c.row.callID]
		switch {
		case !seen:
			added = append(added, c.row.kind.tool)
		case st != c.row.kind.status:
			finished = append(finished, c.row.kind.tool)
		}
	}
	v.data = d
	rows := buildRows(d, 0)
	v.list.SetRows(rows)
	for i, r := range rows {
		if r.info().row.callID == selected {
			v.list.Select(i)
		}
	}
	clear(v.loaded)
	var parts []string
	if len(added) > 0 {
		parts = append(parts, fmt.Sprintf("%d new %s (%s)", len(added), plural(len(added), "call", "calls"), strings.Join(added, ", ")))
	}
	if len(finished) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s changed state", len(finished), plural(len(finished), "call", "calls")))
	}
	return strings.Join(parts, "; ")
}

// Info returns the listed facts of session id.
func (p *picker) Info(id string) (model.SessionInfo, bool) {
	for _, in := range p.all {
		if in.ID == id {
			return in, true
		}
	}
	return model.SessionInfo{}, false
}

// Refresh replaces the listed sessions, keeping the selected one.
func (p *picker) Refresh(infos []model.SessionInfo) {
	sel, ok := p.Selected()
	p.SetSessions(infos, nil)
	if !ok {
		return
	}
	p.SelectID(sel.ID)
}

// SelectID selects session id when it is shown.
func (p *picker) SelectID(id string) {
	for k, i := range p.shown {
		if p.all[i].ID == id {
			p.sel = k
			p.scroll()
		}
	}
}
