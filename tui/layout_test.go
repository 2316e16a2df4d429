package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/require"

	"correx/sessions"
)

// layoutSizes are the terminals the layout goldens are drawn at.
var layoutSizes = [][2]int{{80, 24}, {120, 40}}

// + zooms the focused pane to the whole width, the call list hidden; +
// again (or ←) gives the list back.
func TestZoomGolden(t *testing.T) {
	for _, sz := range layoutSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			h := openMain(t, sz[0], sz[1])
			h.selectCall("call_hello")
			h.key("1", "+")
			out := h.plain()
			require.NotContains(t, out, "Calls 8")
			require.Contains(t, out, "(zoomed: + back)")
			checkFrame(t, h.raw(), sz[0], sz[1])
			golden.RequireEqual(t, out)
			h.key("+")
			require.Contains(t, h.plain(), "Calls 8")
			h.key("+", "left")
			require.Contains(t, h.plain(), "Calls 8", "← to the list unzooms")
			require.Equal(t, focusList, h.m.current().focus)
		})
	}
}

// Compare scrolls sideways (→ shows what a cut line hides) and wraps
// long lines on w.
func TestCompareSidewaysAndWrapGolden(t *testing.T) {
	for _, sz := range layoutSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			h := openMain(t, sz[0], sz[1])
			h.selectCall("call_hello")
			h.key("5", "l")
			c := &h.m.current().cmp
			require.NotEmpty(t, c.rows)
			before := h.plain()
			h.key("right", "right")
			require.Equal(t, 2*sideStep, c.xOff)
			sideways := h.plain()
			require.NotEqual(t, before, sideways)
			checkFrame(t, h.raw(), sz[0], sz[1])
			h.key("left", "left")
			require.Equal(t, 0, c.xOff)
			require.Equal(t, focusPane, h.m.current().focus)
			h.key("w")
			wrapped := h.plain()
			require.True(t, c.wrap)
			checkFrame(t, h.raw(), sz[0], sz[1])
			golden.RequireEqual(t, "sideways:\n"+sideways+"\n\nwrapped:\n"+wrapped)
		})
	}
}

// The hint bar fits 80 columns with the keys that matter first.
func TestHintBarAt80(t *testing.T) {
	h := openMain(t, 80, 24)
	h.selectCall("call_seq")
	out := h.plain()
	hint := out[strings.LastIndex(out, "\n")+1:]
	for _, want := range []string{"enter open", "o full output", "/ search", "esc back", "? help"} {
		require.Contains(t, hint, want)
	}
}

// The warnings view numbers each warning and wraps it to the width.
func TestWarningsGolden(t *testing.T) {
	for _, sz := range layoutSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			opts := fakeOpts(t)
			opts.Warnings = []string{
				"opencode.db: table part, row prt_0001: unexpected end of JSON input; the part is skipped",
				"ses_main.jsonl:12: a record longer than the 64 MiB read limit; the rest of the file is skipped, and this warning is long enough to wrap at 80 columns",
				"store.db: row c: a damaged part",
			}
			h := newHarness(t, opts, sz[0], sz[1])
			h.key("W")
			out := h.plain()
			require.Contains(t, out, "Warnings: 3")
			checkFrame(t, h.raw(), sz[0], sz[1])
			golden.RequireEqual(t, out)
		})
	}
}

// The session header keeps a long title whole and shortens the id when
// the two do not fit.
func TestHeaderGolden(t *testing.T) {
	for _, sz := range layoutSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			s := newFakeStore(t)
			main := s.sess["ses_main"]
			main.Info.ID = "ses_0123456789abcdefghijklmnopqrstuvwxyz"
			main.Info.Title = "A long session title that fills the header"
			s.infos[0] = main.Info
			s.sess[main.Info.ID] = main
			h := newHarness(t, Options{Stores: []sessions.Store{s}, SessionID: main.Info.ID}, sz[0], sz[1])
			out := h.plain()
			header := strings.SplitN(out, "\n", 2)[0]
			require.Contains(t, header, main.Info.Title)
			require.Contains(t, header, "opencode 1.18.33")
			if sz[0] == 80 { // no room for the whole id: it gives way, not the title
				require.Contains(t, header, "ses_0123…")
				require.NotContains(t, header, main.Info.ID)
			}
			checkFrame(t, h.raw(), sz[0], sz[1])
			golden.RequireEqual(t, out)
		})
	}
}
