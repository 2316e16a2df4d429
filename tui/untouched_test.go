package tui

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/sessions"
)

// TestTUINeverTouchesTheAgentsFolders drives the inspector over a copy of
// every fixture of every agent (opencode's databases in WAL mode without
// -wal and -shm): every session opened, its calls scrolled, every pane
// shown, the spill viewer opened, then quit; the folder is the same after
// each session and after the store is closed.
func TestTUINeverTouchesTheAgentsFolders(t *testing.T) {
	spills := 0
	defer func() { assert.Positive(t, spills, "some spill file was opened") }()
	for _, f := range fixtures.All(t) {
		t.Run(f.ID(), func(t *testing.T) {
			src := fixtures.CopySource(t, f)
			before := fixtures.Snapshot(t, src)
			st, err := sessions.Open(src)
			require.NoError(t, err)
			h := newHarness(t, Options{Stores: []sessions.Store{st}}, 120, 40)
			require.NotEmpty(t, h.m.picker.shown)
			for k := range h.m.picker.shown {
				h.m.picker.sel = k
				h.key("enter")
				require.NotNil(t, h.m.current(), "session %d did not open", k)
				h.key("j", "j", "G", "l", "pgdown", "2", "o", "esc", "3", "4", "pgdown", "5", "6", "1")
				if i, ok := findRow(h.m.current(), func(ci *callInfo) bool {
					return ci.vis.Truncation != nil && ci.vis.Truncation.SpillFound != ""
				}); ok {
					h.m.current().list.Select(i)
					h.key("l", "2", "o")
					require.NotNil(t, h.m.spill, "the spill viewer opened")
					spills++
					h.key("G", "esc")
				}
				for i := 0; i < 4 && h.m.page != pagePicker; i++ {
					h.key("esc")
				}
				assert.Equal(t, before, fixtures.Snapshot(t, src), "after session %d", k)
			}
			h.key("q")
			assert.True(t, h.quit)
			require.NoError(t, st.Close())
			assert.Equal(t, before, fixtures.Snapshot(t, src), "after the store closed")
		})
	}
}

// TestTUIShowsADamagedStore opens a copy of an opencode store with damaged
// part pages: the picker lists every session, the counts marked as lower
// bounds, the session opens, and the warnings name the rows left out.
func TestTUIShowsADamagedStore(t *testing.T) {
	f := fixtures.Fixture{Source: "../testdata/opencode/anthropic/data"}
	src := fixtures.CopySource(t, f)
	require.True(t, fixtures.DamagePages(t, filepath.Join(src, "opencode.db"), "part"))
	st, err := sessions.Open(src)
	require.NoError(t, err)
	defer st.Close()
	h := newHarness(t, Options{Stores: []sessions.Store{st}}, 120, 40)
	require.Len(t, h.m.picker.all, 2, "every session listed")
	damaged := 0
	for k, i := range h.m.picker.shown {
		if in := h.m.picker.all[i]; in.Damaged != "" {
			damaged++
			assert.Contains(t, h.m.picker.row(in, false, h.m.picker.cols()), fmt.Sprintf("%d+", in.ToolCalls))
			h.m.picker.sel = k
		}
	}
	require.Positive(t, damaged)
	h.key("enter")
	require.NotNil(t, h.m.current(), "the damaged session opens")
	assert.NotEmpty(t, h.m.current().list.rows)
	assert.True(t, slices.ContainsFunc(h.m.warnings, func(w string) bool { return strings.Contains(w, "unreadable") }), "%q", h.m.warnings)
}
