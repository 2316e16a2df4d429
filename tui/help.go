package tui

import (
	"correx/model"
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
	off           int // lines scrolled off the top
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
		default:
			if d, ok := k.scrollBy(msg, h.height-3); ok {
				h.scroll(d)
			}
		}
	}
	return nil
}

func (h *helpView) scroll(d int) { h.off = clampInt(h.off+d, 0, max(len(h.lines())-(h.height-2), 0)) }

func (h *helpView) ShortHelp() []key.Binding {
	k := h.a.keys
	if len(h.lines()) > h.height-2 {
		return []key.Binding{k.Down, k.Help, k.Quit}
	}
	return []key.Binding{k.Help, k.Quit}
}

func (h *helpView) FullHelp() [][]key.Binding {
	k := h.a.keys
	return append(h.under.FullHelp(), []key.Binding{k.Help, k.Back, k.Quit})
}

func (h *helpView) lines() []string {
	return append(helpColumns(h.a.st, h.FullHelp(), h.width-2), helpLegend(h.a.st, h.width-2)...)
}

func (h *helpView) View() string {
	lines := h.lines()
	return box(h.a.st, "Help (? or esc to close)", lines[min(h.off, len(lines)):], h.width, h.height, true)
}

// legend says what the marks and words on screen mean.
var legend = [][2]string{
	{"✂", "truncated: the model saw part of the output; its badge names how (bash-tail, read-lines and the others)"},
	{"⑂", "a task call's subagent session (enter opens it)"},
	{"▌ ▖", "full output: a line the model saw whole, or part of"},
	{"≠", "Compare: the row differs between the two providers"},
	{"as sent", "the wire of the provider the agent itself sent the step to"},
	{"projection", "the same step lowered for another provider: never sent"},
}

func helpLegend(st *Styles, w int) []string {
	kw := 0
	for _, l := range legend {
		kw = max(kw, ansi.StringWidth(l[0]))
	}
	out := []string{st.Help.FullDesc.Render("Legend")}
	for _, l := range legend {
		key := st.Help.FullKey.Render(padRight(l[0], kw))
		for _, d := range strings.Split(ansi.Wrap(l[1], max(w-kw-1, 10), ""), "\n") {
			out = append(out, key+" "+st.Help.FullDesc.Render(d))
			key = padRight("", kw)
		}
	}
	out = append(out, "", st.Help.FullDesc.Render("Truncation kinds (the ✂ badge)"))
	for _, k := range model.TruncationKinds {
		kw = max(kw, ansi.StringWidth(string(k.Kind)))
	}
	for _, k := range model.TruncationKinds {
		key := st.Help.FullKey.Render(padRight(string(k.Kind), kw))
		for _, d := range strings.Split(ansi.Wrap(k.What, max(w-kw-1, 10), ""), "\n") {
			out = append(out, key+" "+st.Help.FullDesc.Render(d))
			key = padRight("", kw)
		}
	}
	return out
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
