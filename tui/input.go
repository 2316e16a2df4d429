package tui

import (
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// lineInput is a minimal one-line text input for filters and searches:
// typing appends, backspace deletes, ctrl+u clears. It draws its own block
// cursor, so a frame never depends on a blink timer.
type lineInput struct {
	value string
}

// inputResult says what a key did to a lineInput.
type inputResult int

const (
	inputEdited inputResult = iota
	inputDone               // enter
	inputCancel             // esc
	inputIgnored
)

func (in *lineInput) Update(msg tea.KeyPressMsg) inputResult {
	switch msg.String() {
	case "enter":
		return inputDone
	case "esc":
		return inputCancel
	case "backspace", "ctrl+h":
		if in.value != "" {
			_, n := utf8.DecodeLastRuneInString(in.value)
			in.value = in.value[:len(in.value)-n]
		}
		return inputEdited
	case "ctrl+u":
		in.value = ""
		return inputEdited
	case "space":
		in.value += " "
		return inputEdited
	}
	if msg.Text != "" && msg.Mod&^tea.ModShift == 0 {
		in.value += msg.Text
		return inputEdited
	}
	return inputIgnored
}

// Paste adds pasted text as one line: line breaks become spaces and other
// control characters are dropped, so a paste can neither end the input
// nor reach the terminal.
func (in *lineInput) Paste(text string) {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		default:
			b.WriteRune(r)
		}
	}
	in.value += strings.TrimRight(b.String(), " ")
}

func (in lineInput) View() string {
	return inertString(in.value, plainStyle) + "█"
}

// searchInput feeds a key to a pane search; the search runs as you type.
func searchInput(msg tea.KeyPressMsg, on *bool, in *lineInput, tv *textView, relayout func()) tea.Cmd {
	var cmd tea.Cmd
	switch in.Update(msg) {
	case inputDone:
		*on = false
	case inputCancel:
		*on = false
		in.value = ""
		cmd = tv.Search("")
	case inputEdited:
		cmd = tv.Search(in.value)
	}
	relayout()
	return cmd
}
