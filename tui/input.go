package tui

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"correx/internal/inert"
)

// lineInput is the one-line text input of filters and searches: bubbles'
// textinput (cursor movement, word and line deletion) with a static cursor,
// so a frame never depends on a blink timer. The zero value is ready.
type lineInput struct {
	ti    textinput.Model
	ready bool
}

// inputResult says what a key did to a lineInput.
type inputResult int

const (
	inputEdited inputResult = iota
	inputDone               // enter
	inputCancel             // esc
	inputIgnored
)

// model makes the textinput on first use: focused, no prompt, a cursor
// that does not blink.
func (in *lineInput) model() *textinput.Model {
	if !in.ready {
		in.ti = textinput.New()
		in.ti.Prompt = ""
		st := in.ti.Styles()
		st.Cursor.Blink = false
		in.ti.SetStyles(st)
		in.ti.Focus()
		in.ready = true
	}
	return &in.ti
}

func (in *lineInput) Value() string { return in.model().Value() }

// Clear empties the input.
func (in *lineInput) Clear() { in.model().Reset() }

func (in *lineInput) Update(msg tea.KeyPressMsg) inputResult {
	switch msg.String() {
	case "enter":
		return inputDone
	case "esc":
		return inputCancel
	case "space":
		msg = tea.KeyPressMsg{Code: ' ', Text: " "}
	}
	msg.Text = inputText(msg.Text)
	ti := in.model()
	before, pos := ti.Value(), ti.Position()
	*ti, _ = ti.Update(msg) // a static cursor asks for no blink Cmd
	if ti.Value() == before && ti.Position() == pos {
		return inputIgnored
	}
	return inputEdited
}

// Paste adds pasted text as one line (see inputText), so a paste can
// neither end the input nor reach the terminal.
func (in *lineInput) Paste(text string) {
	ti := in.model()
	*ti, _ = ti.Update(tea.PasteMsg{Content: strings.TrimRight(inputText(text), " ")})
}

// inputText is text for the input: line breaks and tabs become spaces, and
// what the inspector would draw as an inert glyph (control and format
// characters) is dropped, as the input draws its text as is.
func inputText(text string) string {
	var b strings.Builder
	for _, r := range text {
		if r == '\n' || r == '\r' || r == '\t' {
			b.WriteByte(' ')
		} else if _, odd := inert.Glyph(r); !odd {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (in *lineInput) View() string { return in.model().View() }

// searchInput feeds a key to a pane search; the search runs as you type.
func searchInput(msg tea.KeyPressMsg, on *bool, in *lineInput, tv *textView, relayout func()) tea.Cmd {
	var cmd tea.Cmd
	switch in.Update(msg) {
	case inputDone:
		*on = false
	case inputCancel:
		*on = false
		in.Clear()
		cmd = tv.Search("")
	case inputEdited:
		cmd = tv.Search(in.Value())
	}
	relayout()
	return cmd
}
