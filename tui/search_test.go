package tui

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// fileView is a text view of a file of n lines "line i ab".
func fileView(t *testing.T, n int) (*textView, *fileLines) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(" ab\n")
	}
	fl := writeFileLines(t, b.String())
	t.Cleanup(fl.Close)
	tv := newTextView(NewStyles(true))
	tv.SetSize(40, 5)
	tv.SetFile(fl, nil, false)
	return &tv, fl
}

// A file view is searched in a Cmd, not in Update; an in-memory one at once.
func TestSearchFileIsAsync(t *testing.T) {
	tv, fl := fileView(t, 50)
	cmd := tv.Search("ab")
	require.NotNil(t, cmd)
	require.Empty(t, tv.matches)
	require.Equal(t, "/ab: searching…", tv.MatchInfo())
	tv.NextMatch() // nothing to step to yet
	msg := cmd().(fileSearchMsg)
	require.Equal(t, fl, msg.fl)
	require.True(t, tv.applySearch(msg))
	require.Len(t, tv.matches, 50)
	require.Equal(t, "/ab: 1/50", tv.MatchInfo())
	// the result is taken once
	require.False(t, tv.applySearch(msg))
	// clearing the query needs no Cmd
	require.Nil(t, tv.Search(""))
	require.Equal(t, "", tv.MatchInfo())

	mem := newTextView(NewStyles(true))
	mem.SetContent("a\nab\n", nil, nil, false)
	require.Nil(t, mem.Search("ab"))
	require.Equal(t, "/ab: 1/1", mem.MatchInfo())
}

// A result of an older search, of another file or of a view that shows
// something else now is ignored; a newer search cancels the older one.
func TestSearchStaleIgnored(t *testing.T) {
	tv, fl := fileView(t, 50)

	// an older search's result, run before the newer search started
	old := tv.Search("ab")().(fileSearchMsg)
	cmd := tv.Search("line x")
	require.False(t, tv.applySearch(old))
	require.Empty(t, tv.matches)
	require.Equal(t, "/line x: searching…", tv.MatchInfo())
	cur := cmd().(fileSearchMsg)
	require.True(t, tv.applySearch(cur))
	require.Len(t, tv.matches, 50-50/7-1)
	// the old result arriving late changes nothing
	require.False(t, tv.applySearch(old))
	require.Len(t, tv.matches, 50-50/7-1)

	// the same query again: only the newer generation counts
	old = tv.Search("ab")().(fileSearchMsg)
	cmd = tv.Search("ab")
	require.False(t, tv.applySearch(old))
	require.Equal(t, "/ab: searching…", tv.MatchInfo())
	cur = cmd().(fileSearchMsg)
	require.Greater(t, cur.gen, old.gen)
	require.True(t, tv.applySearch(cur))

	// a result for another file with the same generation
	tv2, fl2 := fileView(t, 10)
	cmd = tv.Search("ab")
	for fl2.gen.Load()+1 < fl.gen.Load() {
		fl2.gen.Add(1)
	}
	other := tv2.Search("ab")().(fileSearchMsg)
	require.Equal(t, fl.gen.Load(), other.gen)
	require.False(t, tv.applySearch(other))
	require.True(t, tv.applySearch(cmd().(fileSearchMsg)))

	// new content drops the search running
	cmd = tv.Search("ab")
	tv.SetContent("ab", nil, nil, true)
	require.Equal(t, "/ab: 1/1", tv.MatchInfo())
	require.Nil(t, cmd(), "the search of the file was not cancelled")
}

// A new search stops the running one: its scan gives up and its Cmd
// returns no message.
func TestSearchCancels(t *testing.T) {
	tv, fl := fileView(t, 20000)
	first := tv.Search("ab")
	second := tv.Search("line")
	require.Nil(t, first(), "the older search ran to its end")
	msg := second().(fileSearchMsg)
	require.True(t, tv.applySearch(msg))
	require.Len(t, tv.matches, 20000)

	// the scan stops as soon as it is told to
	var stop atomic.Bool
	ms, ok := fl.search("ab", true, maxMatches, &stop)
	require.True(t, ok)
	require.Len(t, ms, 20000)
	stop.Store(true)
	ms, ok = fl.search("ab", true, maxMatches, &stop)
	require.False(t, ok)
	require.Nil(t, ms)

	// Back clears the query: cancels the search running
	first = tv.Search("ab")
	require.Nil(t, tv.Search(""))
	require.Nil(t, first())
	require.Equal(t, "", tv.MatchInfo())
}

// SetFile keeping the search runs it again on the new file in the Cmd
// PendingSearch gives, without moving the view.
func TestSetFileKeepsSearch(t *testing.T) {
	tv, _ := fileView(t, 50)
	tv.ScrollDown(20)
	require.Nil(t, tv.PendingSearch())
	tv.applySearch(tv.Search("ab")().(fileSearchMsg))
	y := tv.yOff
	_, fl2 := fileView(t, 40)
	tv.SetFile(fl2, nil, true)
	require.Equal(t, "/ab: searching…", tv.MatchInfo())
	cmd := tv.PendingSearch()
	require.NotNil(t, cmd)
	require.Nil(t, tv.PendingSearch(), "the Cmd is taken once")
	require.True(t, tv.applySearch(cmd().(fileSearchMsg)))
	require.Equal(t, "/ab: 1/40", tv.MatchInfo())
	require.Equal(t, y, tv.yOff)
}

// Update gives a file search's result to the session pane or spill view
// waiting for it.
func TestUpdateAppliesFileSearch(t *testing.T) {
	tv, _ := fileView(t, 30)
	sv := &sessionView{views: make([]textView, paneCount)}
	sv.views[paneRequest] = *tv
	sp := &spillView{tv: newTextView(NewStyles(true))}
	m := Model{app: &app{}, stack: []*sessionView{sv}, spill: sp}
	cmd := sv.views[paneRequest].Search("ab")
	nm, _ := m.Update(cmd())
	m = nm.(Model)
	require.Equal(t, "/ab: 1/30", m.stack[0].views[paneRequest].MatchInfo())
}
