package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"correx/model"
	"correx/sessions"
)

// The recorded fixtures (../testdata/opencode/<flavour>/data) are read in
// place through sessions.Open; nothing is copied. A flavour recorded after
// its goldens were written is skipped until `go test ./tui -update` writes
// them (review them before keeping them).

func fixtureFlavours(t *testing.T) []string {
	dirs, _ := filepath.Glob("../testdata/opencode/*/data")
	var out []string
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Skip("no recorded fixtures under testdata/opencode yet")
	}
	return out
}

// mainSession opens a flavour's store and the top-level session with the
// most tool calls.
func openFixture(t *testing.T, dir string, w, hh int) *harness {
	s, err := sessions.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	h := newHarness(t, Options{Stores: []sessions.Store{s}}, w, hh)
	best, bestCalls := -1, -1
	for i, in := range h.m.picker.all {
		if in.ParentID == "" && in.ToolCalls > bestCalls {
			best, bestCalls = i, in.ToolCalls
		}
	}
	require.GreaterOrEqual(t, best, 0, "no session in %s", dir)
	for k, i := range h.m.picker.shown {
		if i == best {
			h.m.picker.sel = k
		}
	}
	h.key("enter")
	require.NotNil(t, h.m.current(), "session did not open")
	return h
}

func findRow(v *sessionView, pred func(ci *callInfo) bool) (int, bool) {
	for i, r := range v.list.rows {
		if pred(r.info()) {
			return i, true
		}
	}
	return 0, false
}

func TestFixtures(t *testing.T) {
	for _, dir := range fixtureFlavours(t) {
		flavour := filepath.Base(filepath.Dir(dir))
		t.Run(flavour, func(t *testing.T) {
			for _, w := range []int{80, 120} {
				t.Run(fmt.Sprint(w), func(t *testing.T) {
					h := openFixture(t, dir, w, 30)
					v := h.m.current()
					checkFrame(t, h.raw(), w, 30)

					// the truncated bash call shows its marker and badge
					i, ok := findRow(v, func(ci *callInfo) bool {
						return ci.vis.Truncation != nil && ci.vis.Truncation.Kind == model.TruncBashTail
					})
					if !ok {
						t.Skip("no bash tail truncation in this flavour")
					}
					v.list.Select(i)
					h.key("2")
					tr := v.list.rows[i].info().vis.Truncation
					out := h.plain()
					require.Contains(t, out, "✂ model saw "+commas(tr.SeenLines))
					require.Contains(t, h.raw(), h.m.st.Marker.Render("...output truncated..."))
					checkFrame(t, h.raw(), w, 30)

					// the spill viewer marks the tail the model saw
					if tr.SpillFound != "" {
						h.key("o")
						require.NotNil(t, h.m.spill)
						want := "▌ model saw lines "
						if tr.SeenLines == 0 { // opencode kept an empty tail: "(no output)"
							want = "▌ model saw none of its 1 line (bash-tail)"
						}
						require.Contains(t, h.plain(), want)
						checkFrame(t, h.raw(), w, 30)
						h.key("esc")
					}

					// escape bytes of a transcript never reach the terminal raw
					if i, ok := findRow(v, func(ci *callInfo) bool { return strings.Contains(ci.vis.Text, "\x1b[31m") }); ok {
						v.list.Select(i)
						h.send(nil)
						raw := h.raw()
						require.NotContains(t, raw, "\x1b[31mred")
						require.Contains(t, ansi.Strip(raw), "␛[31mred")
					}

					// provider cycling changes the label
					h.key("3")
					before := v.provider
					h.key("p")
					require.NotEqual(t, before, v.provider)
					require.Contains(t, h.plain(), v.provider.Label())
					for p := 1; p <= 6; p++ {
						h.key(fmt.Sprint(p))
						checkFrame(t, h.raw(), w, 30)
					}
				})
			}
		})
	}
}
