package tui

import tea "charm.land/bubbletea/v2"

// The root's navigation: which page is on screen, the stack of session
// views, the spill viewer and the overlay, changed at the components'
// request (app.go's messages).

// navigate opens and closes pages at a component's request.
func (m *Model) navigate(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case openMsg:
		if len(m.stack) > 0 && m.stack[0].data.sess.Info.ID == msg.info.ID {
			m.page = pageSession
			return nil
		}
		m.loading++
		m.info("opening " + inertString(firstNonEmpty(msg.info.Title, msg.info.ID), plainStyle) + "…")
		return loadCmd(m.ctx, m.cfg, m.store, msg.info.ID)
	case backMsg:
		switch {
		case m.page == pagePicker && len(m.stack) > 0:
			m.page = pageSession
		case len(m.stack) > 1:
			m.stack[len(m.stack)-1].Close()
			m.stack = m.stack[:len(m.stack)-1]
		default:
			m.page = pagePicker
			if len(m.stack) > 0 {
				m.picker.SelectID(m.stack[0].data.sess.Info.ID)
			}
		}
	case pushMsg:
		msg.v.SetSize(m.width, m.bodyHeight())
		m.stack = append(m.stack, msg.v)
		m.info("subagent session: esc to come back")
	case openSpillMsg:
		if m.spill != nil {
			m.spill.Close()
		}
		m.spill = newSpillView(m.app, msg.tool, msg.trunc)
		m.spill.SetSize(m.width, m.bodyHeight())
		m.loading++
		return spillCmd(msg.spills, msg.trunc.SpillFound)
	case openWarningsMsg:
		m.overlay = newWarningsView(m.app)
		m.overlay.SetSize(m.width, m.bodyHeight())
	case closeMsg:
		switch {
		case m.overlay != nil:
			m.overlay = nil
		case m.spill != nil:
			m.spill.Close()
			m.spill = nil
		}
	}
	return nil
}

// loaded puts a session opened from the picker (or --session) on screen.
func (m *Model) loaded(msg loadedMsg) tea.Cmd {
	m.loading = max(m.loading-1, 0)
	if msg.err != nil {
		m.fail("could not open session: " + msg.err.Error())
		return nil
	}
	m.addWarnings(msg.warns...)
	m.addWarnings(msg.data.sess.Warnings...)
	for _, v := range m.stack {
		v.Close()
	}
	v := newSessionView(m.app, msg.data)
	v.SetSize(m.width, m.bodyHeight())
	m.stack = []*sessionView{v}
	m.page = pageSession
	m.clearStatus()
	if msg.data.loading {
		return pageCmd(v.ctx, m.cfg, m.store, msg.data)
	}
	return nil
}
