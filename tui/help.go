package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// helpView is the ? screen: the full keys of the component under it, in
// columns, and the global ones.
type helpView struct {
	a             *app
	under         component
	width, height int
}

func newHelpView(a *app, under component) *helpView { return &helpView{a: a, under: under} }

func (h *helpView) SetSize(w, hh int) { h.width, h.height = w, hh }

func (h *helpView) Update(msg tea.Msg) tea.Cmd {
	k := &h.a.keys
	if msg, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(msg, k.Help, k.Back):
			return send(closeMsg{})
		case key.Matches(msg, k.Quit):
			return h.a.quit()
		}
	}
	return nil
}

func (h *helpView) ShortHelp() []key.Binding { return []key.Binding{h.a.keys.Help, h.a.keys.Quit} }

func (h *helpView) FullHelp() [][]key.Binding {
	k := h.a.keys
	return append(h.under.FullHelp(), []key.Binding{k.Help, k.Back, k.Quit})
}

func (h *helpView) View() string {
	return box(h.a.st, "Help (? or esc to close)", helpColumns(h.a.st, h.FullHelp(), h.width-2), h.width, h.height, true)
}

// helpColumns lays groups of keys out in columns, starting a new band of
// columns when the next group does not fit in w.
func helpColumns(sty *Styles, groups [][]key.Binding, w int) []string {
	st := sty.Help
	var blocks [][]string
	for _, group := range groups {
		kw := 0
		for _, b := range group {
			if b.Enabled() && b.Help().Key != "" {
				kw = max(kw, ansi.StringWidth(b.Help().Key))
			}
		}
		var block []string
		for _, b := range group {
			if !b.Enabled() || b.Help().Key == "" {
				continue
			}
			hb := b.Help()
			block = append(block, st.FullKey.Render(fmt.Sprintf("%-*s", kw, hb.Key))+" "+st.FullDesc.Render(hb.Desc))
		}
		if len(block) > 0 {
			blocks = append(blocks, block)
		}
	}
	var out []string
	var band [][]string
	bandW := 0
	flush := func() {
		if len(band) == 0 {
			return
		}
		rows := 0
		widths := make([]int, len(band))
		for i, b := range band {
			rows = max(rows, len(b))
			for _, l := range b {
				widths[i] = max(widths[i], ansi.StringWidth(l))
			}
		}
		for r := 0; r < rows; r++ {
			var line strings.Builder
			for i, b := range band {
				cell := ""
				if r < len(b) {
					cell = b[r]
				}
				if i > 0 {
					line.WriteString("   ")
				}
				line.WriteString(padRight(cell, widths[i]))
			}
			out = append(out, line.String())
		}
		out = append(out, "")
		band, bandW = nil, 0
	}
	for _, b := range blocks {
		bw := 0
		for _, l := range b {
			bw = max(bw, ansi.StringWidth(l))
		}
		if len(band) > 0 && bandW+3+bw > w {
			flush()
		}
		if len(band) > 0 {
			bandW += 3
		}
		band = append(band, b)
		bandW += bw
	}
	flush()
	return out
}
