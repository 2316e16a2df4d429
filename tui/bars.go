package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"correx/render"
)

// The bars around the body: the header (where you are), the status line
// (the last message or the warnings; what is selected) and the hint bar
// (the keys of the component on top).

func (m Model) headerView() string {
	st := m.st
	left := st.Header.Render("correx")
	crumbs := []string{"sessions"}
	if v := m.current(); v != nil {
		crumbs = crumbs[:0]
		for _, s := range m.stack {
			in := s.data.sess.Info
			crumbs = append(crumbs, inertString(firstNonEmpty(in.Title, in.ID), st.Inert))
		}
	}
	left += st.Muted.Render(" › ") + strings.Join(crumbs, st.Muted.Render(" › "))
	demo := ""
	if m.opts.Demo {
		demo = st.Demo.Render(" DEMO: built-in sample sessions, not your recordings ") + " "
	}
	v := m.current()
	if v == nil {
		return spread(left, demo, m.width)
	}
	// the id gives way before the title: cut to what the title leaves,
	// down to 8 cells, or left out
	in := v.data.sess.Info
	id, ver := inertString(in.ID, st.Inert), " · "+inertString(agentVersion(in), st.Inert)
	room := m.width - ansi.StringWidth(left) - 1 - ansi.StringWidth(demo) - ansi.StringWidth(ver)
	switch {
	case ansi.StringWidth(id) <= room:
	case room >= 8:
		id = ansi.Truncate(id, room, "…")
	default: // no room for the id at all: the version alone
		id, ver = "", agentVersion(in)
		ver = inertString(ver, st.Inert)
	}
	return spread(left, demo+st.HeaderID.Render(id+ver), m.width)
}

// spread puts left and right on one line of w cells; left is cut first.
func spread(left, right string, w int) string {
	rw := ansi.StringWidth(right)
	if rw >= w {
		return fit(right, w)
	}
	return fit(left, w-rw-1) + " " + right
}

func (m Model) statusView() string {
	st := m.st
	var left string
	switch {
	case m.status.text != "":
		s := st.StatusInfo
		switch m.status.kind {
		case statusWarn:
			s = st.StatusWarn
		case statusError:
			s = st.StatusErrM
		}
		left = s.Render(inertString(m.status.text, st.Inert))
	case len(m.warnings) > 0:
		w := fmt.Sprintf("⚠ %d %s", len(m.warnings), plural(len(m.warnings), "warning", "warnings"))
		left = st.StatusWarn.Render(w+": ") + st.Muted.Render(inertString(m.warnings[0], st.Inert))
	}
	var right string
	if m.busy() {
		right = m.spin.View() + st.Muted.Render(" loading")
	} else if v := m.current(); v != nil {
		if r, ok := v.list.Selected(); ok {
			ci := r.info()
			right = st.Muted.Render(fmt.Sprintf("call %d/%d · step %d · %s", v.list.sel+1, len(v.list.rows), ci.step, v.provider.Label()) +
				lowSuffix(render.SessionLowering(r.data.sess.Info, m.lowering)))
		}
	}
	return spread(left, right, m.width)
}

func (m Model) hintView() string {
	return fit(m.help.ShortHelpView(m.active().ShortHelp()), m.width)
}
