package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// openWarningsMsg opens the warnings view (W, or a click on the status
// line's "⚠ N warnings").
type openWarningsMsg struct{}

// warningsView lists every warning of the stores and the sessions opened,
// each as its file:line or row and the problem, wrapped and scrollable.
type warningsView struct {
	a             *app
	width, height int
	off           int
}

func newWarningsView(a *app) *warningsView { return &warningsView{a: a} }

func (w *warningsView) SetSize(width, h int) { w.width, w.height = width, h; w.scroll(0) }

func (w *warningsView) lines() []string {
	st := w.a.st
	var out []string
	for i, s := range w.a.warnings {
		num := fmt.Sprintf("%d. ", i+1)
		body := ansi.Wrap(inertString(s, st.Inert), max(w.width-2-len(num), 10), "")
		for j, l := range strings.Split(body, "\n") {
			if j == 0 {
				out = append(out, st.StatusWarn.Render(num)+l)
			} else {
				out = append(out, padRight("", len(num))+l)
			}
		}
	}
	return out
}

func (w *warningsView) scroll(d int) {
	w.off = clampInt(w.off+d, 0, max(len(w.lines())-(w.height-2), 0))
}

func (w *warningsView) Update(msg tea.Msg) tea.Cmd {
	k := &w.a.keys
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Back, k.Warnings):
			return send(closeMsg{})
		case key.Matches(msg, k.Quit):
			return w.a.quit()
		default:
			if d, ok := k.scrollBy(msg, w.height-3); ok {
				w.scroll(d)
			}
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			w.scroll(-3)
		case tea.MouseWheelDown:
			w.scroll(3)
		}
	}
	return nil
}

func (w *warningsView) ShortHelp() []key.Binding {
	k := w.a.keys
	return []key.Binding{k.Down, k.Back, k.Help}
}

func (w *warningsView) FullHelp() [][]key.Binding {
	k := w.a.keys
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}}
}

func (w *warningsView) View() string {
	lines := w.lines()
	lines = lines[min(w.off, len(lines)):]
	title := fmt.Sprintf("Warnings: %d (esc to close)", len(w.a.warnings))
	return box(w.a.st, title, lines, w.width, w.height, true)
}
