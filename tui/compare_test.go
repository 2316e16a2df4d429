package tui

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestCompareSidesKeptAcrossContents checks that the drawn sides a
// compare view keeps across contents draw what a fresh view draws, that
// the side a new content leaves as it was is not drawn again, and that
// what is kept stays bounded, copies of the texts (no content kept).
func TestCompareSidesKeptAcrossContents(t *testing.T) {
	conv := func(tag string, n int) string {
		var b strings.Builder
		b.WriteString("[\n")
		for i := range n {
			fmt.Fprintf(&b, "  {\"role\": \"tool\", \"content\": \"%s %d %s\"},\n", tag, i, strings.Repeat("x", i%200))
		}
		b.WriteString("]")
		return b.String()
	}
	fresh := func(left, right string, xOff int, wrap bool) string {
		c := compareView{st: NewStyles(true)}
		c.SetSize(100, 30)
		c.SetContent(left, right, false)
		c.SetWrap(wrap)
		c.ScrollRight(xOff)
		return c.View()
	}
	a, b, d := conv("same", 40), conv("other", 40), conv("third", 40)
	c := compareView{st: NewStyles(true)}
	c.SetSize(100, 30)
	c.SetContent(a, b, false)
	require.Equal(t, fresh(a, b, 0, false), c.View())
	// the left side's rows, unchanged, are taken as they were drawn
	for k := range c.sides {
		if strings.Contains(k.text, `"same 3 `) {
			c.sides[k] = "KEPT"
		}
	}
	c.SetContent(a, d, true)
	require.Contains(t, c.View(), "KEPT", "the left side, unchanged, was drawn again")
	c.SetStyles(c.st)
	require.Equal(t, fresh(a, d, 0, false), c.View())
	for k := range c.sides {
		for _, content := range []string{a, d} {
			p, lo := uintptr(unsafe.Pointer(unsafe.StringData(k.text))), uintptr(unsafe.Pointer(unsafe.StringData(content)))
			require.False(t, len(k.text) > 0 && p >= lo && p < lo+uintptr(len(content)), "a kept side's key holds its content")
		}
	}
	c.ScrollRight(7)
	require.Equal(t, fresh(a, d, 7, false), c.View())
	c.SetWrap(true)
	require.Equal(t, fresh(a, d, 0, true), c.View())
	for i := range 200 {
		c.SetContent(conv(fmt.Sprint(i), 40), d, false)
		c.View()
		require.LessOrEqual(t, c.sideBytes, maxSideBytes)
		n := 0
		for k, v := range c.sides {
			n += len(k.text) + len(v)
		}
		require.Equal(t, n, c.sideBytes)
	}
}
