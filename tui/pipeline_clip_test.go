package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPipelineClipsHugeBodies: a body over clipBytes is written as its
// first and last whole lines with a note between (the same whether given
// whole or written through a clipWriter in pieces), offsets in its kept
// ends map to the same bytes, and a body up to clipBytes is written whole.
func TestPipelineClipsHugeBodies(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() <= 3*clipBytes; i++ {
		fmt.Fprintf(&b, "line %d of the output %s\n", i, strings.Repeat("é", i%17))
	}
	text := b.String() + "no final newline"
	whole := newPipeText()
	off := whole.body(text)
	var w clipWriter
	for s, n := text, 1; len(s) > 0; n = n*3%70001 + 1 {
		k := min(n, len(s))
		w.Write([]byte(s[:k]))
		s = s[k:]
	}
	pieces := newPipeText()
	require.Equal(t, off, pieces.bodyOf(&w))
	require.Equal(t, whole.String(), pieces.String(), "whole or in pieces")
	require.Equal(t, whole.clip, pieces.clip)

	got, c := whole.String(), whole.clip
	require.Less(t, len(got), 2*clipKeep+256, "held clipped")
	require.Equal(t, text[:c.head], got[:c.head], "the head")
	require.True(t, strings.HasSuffix(text[:c.head], "\n"), "whole lines")
	require.Contains(t, got[c.head:c.head+c.note], "left out here")
	tail := text[c.head+c.cut:]
	require.Equal(t, tail+"\n", got[c.head+c.note:], "the tail, ended by a newline")
	for _, i := range []int{0, c.head - 1, c.head + c.cut, len(text) - 1} {
		at, ok := c.at(i)
		require.True(t, ok, "offset %d", i)
		require.Equal(t, text[i], got[at], "offset %d", i)
	}
	_, ok := c.at(c.head + c.cut/2)
	require.False(t, ok, "the middle is cut")
	require.True(t, whole.notes[strings.Count(got[:c.head], "\n")], "the note is a note line")

	small := newPipeText()
	small.body(text[:clipBytes])
	require.Equal(t, text[:clipBytes]+"\n", small.String(), "written whole")
	require.Zero(t, small.clip)
}
