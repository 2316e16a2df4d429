package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/require"
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
