package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/render"
)

// TestRequestKeepsItsPlaceWhileWritten: the Request pane shown while its
// request is written (its first lines, from the spool) keeps its place
// when the rest comes, in memory or from the file; another request starts
// at its top.
func TestRequestKeepsItsPlaceWhileWritten(t *testing.T) {
	h := openMain(t, 120, 40)
	h.selectCall("call_seq")
	h.key("4")
	v := h.m.current()
	require.Equal(t, paneRequest, v.pane)
	text := strings.Repeat("{\n  \"line\": 1\n},\n", 300)
	spool := func() *fileLines {
		path := filepath.Join(t.TempDir(), "spool.json")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		f, err := os.Open(path)
		require.NoError(t, err)
		var starts []int64
		for _, s := range lineStarts(text) {
			starts = append(starts, int64(s))
		}
		return newFileLines(f, starts[:len(starts)-1], int64(len(text)), true)
	}
	shows := func(res convResult) {
		v.refresh(func(convKey) (convResult, bool) { return res, true })
	}
	for _, whole := range []convResult{{rendered: true, json: text, size: int64(len(text))}, {rendered: true, file: spool(), size: int64(len(text))}} {
		shows(convResult{rendered: true, file: spool(), size: int64(len(text)), writing: true})
		require.NotNil(t, v.views[paneRequest].file, "the first lines are shown from the spool")
		v.views[paneRequest].yOff = 50
		shows(whole)
		require.Equal(t, 50, v.views[paneRequest].yOff, "the rest came at the same place")
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
