package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// KeyMap is every binding of the TUI. Bindings are matched by the component
// that has focus; help shows the ones that apply to it.
type KeyMap struct {
	// global
	Quit key.Binding
	Help key.Binding
	Back key.Binding
	// Warnings opens the warnings view
	Warnings key.Binding

	// lists (picker and call list)
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Open     key.Binding
	Filter   key.Binding

	// session view
	FocusPane key.Binding
	NextPane  key.Binding
	PrevPane  key.Binding
	JumpPane  key.Binding // 1-9, one a registered pane
	Provider  key.Binding
	Provider2 key.Binding
	Lowering  key.Binding // ai-sdk ↔ native for opencode v1 sessions
	Inputs    key.Binding // the models' inputs: declared, text-only, all
	OtherPipe key.Binding // Compare: the same tool in the other pipeline
	Zoom      key.Binding // the focused pane full width, and back
	NextStage key.Binding // Pipeline: the next stage
	PrevStage key.Binding
	Wrap      key.Binding // Compare: wrap long lines
	Left      key.Binding
	Right     key.Binding
	HalfUp    key.Binding
	HalfDown  key.Binding
	Search    key.Binding
	Next      key.Binding
	Prev      key.Binding
	Copy      key.Binding
	Spill     key.Binding
	Pager     key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	b := key.NewBinding
	k, h := key.WithKeys, key.WithHelp
	return KeyMap{
		Quit: b(k("q", "ctrl+c"), h("q", "quit")),
		Help: b(k("?"), h("?", "help")),
		Back: b(k("esc"), h("esc", "back")),

		Warnings: b(k("W"), h("W", "warnings")),

		Up:       b(k("up", "k"), h("↑/k", "up")),
		Down:     b(k("down", "j"), h("↓/j", "down")),
		PageUp:   b(k("pgup", "b"), h("pgup/b", "page up")),
		PageDown: b(k("pgdown", "space", "f"), h("pgdn/space", "page down")),
		Top:      b(k("home", "g"), h("g/home", "top")),
		Bottom:   b(k("end", "G"), h("G/end", "bottom")),
		Open:     b(k("enter"), h("enter", "open")),
		Filter:   b(k("/"), h("/", "filter")),

		FocusPane: b(k("right", "l"), h("→/l", "focus pane")),
		NextPane:  b(k("tab"), h("tab", "next pane")),
		PrevPane:  b(k("shift+tab"), h("shift+tab", "prev pane")),
		JumpPane:  b(k(jumpKeys()...), h(fmt.Sprintf("1-%d", len(jumpKeys())), "jump to pane")),
		Provider:  b(k("p"), h("p", "provider")),
		Provider2: b(k("P"), h("P", "compare with")),
		Lowering:  b(k("L"), h("L", "lowering")),
		Inputs:    b(k("I"), h("I", "inputs")),
		OtherPipe: b(k("V"), h("V", "v1↔v2")),
		Zoom:      b(k("+", "z"), h("+", "zoom pane")),
		NextStage: b(k("]"), h("]/[", "stage (Pipeline)")),
		PrevStage: b(k("[")),
		Wrap:      b(k("w"), h("w", "wrap (Compare)")),
		Left:      b(k("left", "h"), h("←/→", "scroll sideways")),
		Right:     b(k("right", "l")),
		HalfUp:    b(k("ctrl+u"), h("ctrl+u", "half page up")),
		HalfDown:  b(k("ctrl+d"), h("ctrl+d", "half page down")),
		Search:    b(k("/"), h("/", "search")),
		Next:      b(k("n"), h("n/N", "next/prev match")),
		Prev:      b(k("N")),
		Copy:      b(k("y"), h("y", "copy pane")),
		Spill:     b(k("o"), h("o", "full output")),
		Pager:     b(k("O"), h("O", "full output in $PAGER")),
	}
}

// jumpKeys are the digits that jump to the registered panes (nine at most).
func jumpKeys() []string {
	var ks []string
	for i := range min(int(paneCount), 9) {
		ks = append(ks, fmt.Sprint(i+1))
	}
	return ks
}

// scrollBy is how far a scroll key moves a view page lines high (top and
// bottom as far as it goes: the view clamps); ok is false for other keys.
func (k *KeyMap) scrollBy(msg tea.KeyPressMsg, page int) (d int, ok bool) {
	const far = 1 << 30
	switch {
	case key.Matches(msg, k.Up):
		return -1, true
	case key.Matches(msg, k.Down):
		return 1, true
	case key.Matches(msg, k.PageUp):
		return -page, true
	case key.Matches(msg, k.PageDown):
		return page, true
	case key.Matches(msg, k.Top):
		return -far, true
	case key.Matches(msg, k.Bottom):
		return far, true
	}
	return 0, false
}
