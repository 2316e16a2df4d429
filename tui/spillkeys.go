package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The spill viewer as a component: its keys, the mouse, its help.

func (s *spillView) typing() bool { return s.searching }

func (s *spillView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if s.searching {
			return searchInput(msg, &s.searching, &s.search, &s.tv, s.layout)
		}
		return s.key(msg)
	case tea.PasteMsg:
		if s.searching {
			s.search.Paste(msg.Content)
			cmd := s.tv.Search(s.search.Value())
			s.layout()
			return cmd
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			s.tv.ScrollDown(-3)
		case tea.MouseWheelDown:
			s.tv.ScrollDown(3)
		}
	}
	return nil
}

func (s *spillView) key(msg tea.KeyPressMsg) tea.Cmd {
	k := &s.a.keys
	tv := &s.tv
	switch {
	case key.Matches(msg, k.Quit):
		return s.a.quit()
	case key.Matches(msg, k.Back):
		if tv.query != "" {
			cmd := tv.Search("")
			s.search.Clear()
			s.layout()
			return cmd
		}
		return send(closeMsg{})
	case key.Matches(msg, k.Pager):
		return pagerCmd(s.path)
	case key.Matches(msg, k.Copy):
		return s.a.copyPane(tv.file, "the full output", "")
	case key.Matches(msg, k.Search):
		s.searching = true
		s.search.Clear()
		cmd := tv.Search("")
		s.layout()
		return cmd
	case tv.scrollKey(k, msg):
	case key.Matches(msg, k.Left):
		tv.Left()
	case key.Matches(msg, k.Right):
		tv.Right()
	}
	return nil
}

func (s *spillView) ShortHelp() []key.Binding {
	k := s.a.keys
	return []key.Binding{k.Down, k.Search, k.Next, k.Pager, k.Copy, k.Back, k.Help}
}

func (s *spillView) FullHelp() [][]key.Binding {
	k := s.a.keys
	return [][]key.Binding{moveKeys(k), {k.Left, k.Search, k.Next, k.Copy, k.Pager}}
}

// moveKeys are the scrolling keys of every scrolled view.
func moveKeys(k KeyMap) []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom}
}
