package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/render"
)

// TestRequestKeepsItsPlaceWhileWritten: the Request pane shown while its
// request is written (its first lines, from the spool) keeps its place
// when the rest comes, in memory or from the file, and its screen: the
// same lines, header lines and gutter; another request starts at its top.
func TestRequestKeepsItsPlaceWhileWritten(t *testing.T) {
	h := openMain(t, 120, 40)
	h.selectCall("call_seq")
	h.key("4")
	v := h.m.current()
	require.Equal(t, paneRequest, v.pane)
	text := strings.Repeat("{\n  \"line\": 1\n},\n", 400) // 1,200 lines, 256 first
	// spool is the file of text; of its first lines, as written so
	// far, with lines > 0
	spool := func(lines int) *fileLines {
		path := filepath.Join(t.TempDir(), "spool.json")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		f, err := os.Open(path)
		require.NoError(t, err)
		var starts []int64
		for _, s := range lineStarts(text) {
			starts = append(starts, int64(s))
		}
		starts = starts[:len(starts)-1]
		if lines > 0 {
			return &fileLines{f: f, starts: linesFrom(starts[:lines]...), size: starts[lines], trail: true}
		}
		return newFileLines(f, linesFrom(starts...), int64(len(text)), true)
	}
	shows := func(res convResult) {
		v.refresh(func(convKey) (convResult, bool) { return res, true })
	}
	for _, whole := range []convResult{{rendered: true, json: text, size: int64(len(text))}, {rendered: true, file: spool(0), size: int64(len(text))}} {
		shows(convResult{rendered: true, file: spool(firstScreenLines), size: firstScreenBytes, writing: true})
		require.NotNil(t, v.views[paneRequest].file, "the first lines are shown from the spool")
		v.views[paneRequest].yOff = 50
		screen, header := v.views[paneRequest].View(), slices.Clone(v.hdr)
		require.Contains(t, strings.Join(header, "\n"), "writing…")
		shows(whole)
		require.Equal(t, 50, v.views[paneRequest].yOff, "the rest came at the same place")
		require.Equal(t, screen, v.views[paneRequest].View(), "the same screen, gutter and all")
		require.Len(t, v.hdr, len(header), "as many header lines")
		require.NotContains(t, strings.Join(v.hdr, "\n"), "writing…")
		for _, p := range render.Providers {
			if p != v.provider {
				v.provider = p // another request
				break
			}
		}
		shows(whole)
		require.Zero(t, v.views[paneRequest].yOff)
	}
}

// pipelineFirstScreen checks that v's Pipeline pane, settled on its call,
// showed the same first screen while the request was still rendered,
// the wire stage's lines to come; crossed tells that those lines took
// the line count past a power of ten (the gutter's width is reserved:
// TestAgentFixtures counts them).
func pipelineFirstScreen(t *testing.T, v *sessionView) (crossed bool) {
	t.Helper()
	require.Equal(t, panePipeline, v.pane)
	require.Empty(t, v.need, "rendered")
	settled, lines := v.views[panePipeline].View(), v.views[panePipeline].Lines()
	defer func() { v.loaded[panePipeline] = "" }() // the next refresh loads it again
	v.loaded[panePipeline] = ""
	v.refresh(func(convKey) (convResult, bool) { return convResult{}, false })
	if len(v.need) == 0 {
		return false // no later request
	}
	require.Contains(t, v.raw[panePipeline], "rendering the request of step")
	require.Less(t, v.views[panePipeline].Lines(), lines, "the wire stage's lines are still to come")
	require.Equal(t, settled, v.views[panePipeline].View(), "the first screen while rendering")
	return len(fmt.Sprint(v.views[panePipeline].Lines())) < len(fmt.Sprint(lines))
}
