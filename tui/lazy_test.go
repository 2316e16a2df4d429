package tui

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// TestHeldPagesShowWhatAllPagesShow: a lazy session whose outline pages
// are dropped but for one (OutlineBytes 1: one page, of 2 messages) and read again
// by key when a call is shown shows every call's list row and every pane,
// on every call, exactly as the same session with all its pages held, and
// the session's title and last update as Load gives them; over every
// fixture whose store reads lazily.
func TestHeldPagesShowWhatAllPagesShow(t *testing.T) {
	paged := 0
	eachLazyFixtureSession(t, func(where string, st sessions.Store, in model.SessionInfo, open func(func(*Config)) (*harness, *sessionView)) {
		hw, whole := open(func(cfg *Config) { cfg.FirstPage, cfg.Page, cfg.OutlineBytes = 1, 2, 0 })
		hp, part := open(func(cfg *Config) { cfg.FirstPage, cfg.Page, cfg.OutlineBytes = 1, 2, 1 })
		require.Equal(t, len(whole.list.rows), len(part.list.rows), where)
		// what comes late in the file (a title, the last update) is
		// the session's once every page is read
		loaded, err := st.Load(t.Context(), in.ID)
		require.NoError(t, err)
		for _, d := range []*sessionData{whole.data, part.data} {
			require.False(t, d.loading, where)
			require.Equal(t, loaded.Info.Title, d.sess.Info.Title, where)
			require.Equal(t, loaded.Info.Updated, d.sess.Info.Updated, where)
		}
		if len(part.data.pages) > 1 {
			paged++
		}
		for _, pane := range []string{"1", "2", "3", "5", "6", "4"} {
			hw.key(pane)
			hp.key(pane)
			for i := range whole.list.rows {
				if pane == "4" && i != len(whole.list.rows)-1 {
					continue // the whole request: the last call's
				}
				whole.list.Select(i)
				part.list.Select(i)
				hw.send(nil)
				hp.send(nil)
				at := where + " pane " + pane + " call " + whole.list.rows[i].info().row.callID
				require.Equal(t, whole.list.row(i), part.list.row(i), at)
				require.True(t, part.list.rows[i].info().ready, at)
				require.Equal(t, whole.headers[whole.pane], part.headers[part.pane], at)
				require.Equal(t, whole.raw[whole.pane], part.raw[part.pane], at)
				held := 0
				for _, pg := range part.data.pages {
					if pg.held {
						held++
					}
				}
				require.LessOrEqual(t, held, 1, at)
			}
		}
	})
	require.Positive(t, paged, "some fixture session has several outline pages")
}

// eachLazyFixtureSession calls fn on every top session with calls of every
// fixture whose store reads it lazily, with open, which opens it in a
// harness of its own (a store not listed, so its first page is the
// file's head) with DefaultConfig as set changes it, its session focused.
func eachLazyFixtureSession(t *testing.T, fn func(where string, st sessions.Store, in model.SessionInfo, open func(set func(*Config)) (*harness, *sessionView))) {
	for _, f := range fixtures.All(t) {
		st, err := sessions.Open(f.Source)
		require.NoError(t, err)
		infos, err := st.List(t.Context())
		require.NoError(t, err)
		for _, in := range infos {
			if in.ParentID != "" || in.ToolCalls == 0 || sessions.LazyFor(st, in.ID) == nil {
				continue
			}
			where := f.ID() + " " + in.ID
			fn(where, st, in, func(set func(*Config)) (*harness, *sessionView) {
				cfg := DefaultConfig()
				set(&cfg)
				fresh, err := sessions.Open(f.Source)
				require.NoError(t, err)
				t.Cleanup(func() { fresh.Close() })
				h := newHarness(t, Options{Stores: []sessions.Store{fresh}, SessionID: in.ID, Config: &cfg}, 140, 40)
				v := h.m.current()
				require.NotNil(t, v, where)
				h.key("l")
				return h, v
			})
		}
		st.Close()
	}
}

// TestWindowFromIsWhole: a conversation lowered a window at a time from
// what a paged session holds (windowFrom: its held pages' messages, the
// others read again), at windows of two prompt messages, is byte for byte
// the whole session's, for every step and provider of every lazy fixture
// session whose conversations can be.
func TestWindowFromIsWhole(t *testing.T) {
	defer func(n int) { render.WindowMessages = n }(render.WindowMessages)
	render.WindowMessages = 2
	checked := 0
	eachLazyFixtureSession(t, func(where string, st sessions.Store, in model.SessionInfo, open func(func(*Config)) (*harness, *sessionView)) {
		_, v := open(func(cfg *Config) { cfg.FirstPage, cfg.Page, cfg.OutlineBytes = 1, 2, 1 })
		full, err := st.Load(t.Context(), in.ID)
		require.NoError(t, err)
		for step := 1; step <= len(full.AssistantSteps()); step++ {
			for _, p := range render.Providers {
				if !render.Windowable(v.data.sess, p, step, render.Model{}) {
					continue
				}
				r, err := render.Render(full, p, step, render.Model{})
				require.NoError(t, err)
				want, err := render.MarshalIndent(r.Value)
				require.NoError(t, err)
				src := v.data.windowFrom(step, v.data.view())
				var got bytes.Buffer
				w, err := render.WriteWindowedAt(t.Context(), v.data.lazy, src.info, src.at, &src.step, src.pages, p, render.Model{}, &got)
				require.NoError(t, err, where)
				w.Last.Close()
				require.Equal(t, string(want), got.String(), "%s step %d %s", where, step, p)
				checked++
			}
		}
	})
	require.Greater(t, checked, 100)
}

// TestLowerFromEnds: a conversation lowered a window at a time gets a copy
// of the session's messages for its ends (Compare's tails), made by fill in
// the Cmd, only when every page before its step is held as fill runs;
// with a page dropped, none (its ends would be lowered from messages
// without their parts). Update copies nothing: a page dropped between
// lowerFrom and fill counts as dropped.
func TestLowerFromEnds(t *testing.T) {
	copied, none, late := 0, 0, 0
	eachLazyFixtureSession(t, func(where string, st sessions.Store, in model.SessionInfo, open func(func(*Config)) (*harness, *sessionView)) {
		for _, held := range []int{0, 1} {
			_, v := open(func(cfg *Config) { cfg.FirstPage, cfg.Page, cfg.OutlineBytes = 1, 2, held })
			d := v.data
			k := convKey{sess: d.sess, data: d, p: render.Anthropic}
			snap, fill, win := d.lowerFrom(k)
			require.NotNil(t, fill, where)
			require.Nil(t, snap.Messages, where, "Update copies no messages")
			if win == nil {
				require.NoError(t, fill(t.Context()), where)
				require.Len(t, snap.Messages, len(d.sess.Messages), where)
				continue
			}
			dropped := slices.ContainsFunc(d.pages, func(pg outlinePage) bool { return !pg.held && pg.lo < win.at })
			require.NoError(t, fill(t.Context()), where)
			if dropped {
				require.Nil(t, snap.Messages, where)
				none++
				continue
			}
			require.Len(t, snap.Messages, len(d.sess.Messages), where)
			require.NotSame(t, &d.sess.Messages[0], &snap.Messages[0], where)
			copied++
			if len(d.pages) > 1 && d.pages[0].lo < win.at {
				// a page dropped after lowerFrom, before the Cmd's fill
				snap, fill, _ = d.lowerFrom(k)
				d.maxOutline = 1
				d.dropPages()
				require.NoError(t, fill(t.Context()), where)
				require.Nil(t, snap.Messages, where)
				late++
			}
		}
	})
	require.Positive(t, copied)
	require.Positive(t, none)
	require.Positive(t, late)
}

// TestOutlineBound: with pages of two messages and a bound halfway
// between what a session's outline takes with none of its pages' parts
// and with all of them, every lazy fixture session keeps its outline
// within the bound, or holds one page alone; at least one page is held,
// and a bound of 0 holds every page.
func TestOutlineBound(t *testing.T) {
	bounded := 0
	eachLazyFixtureSession(t, func(where string, st sessions.Store, in model.SessionInfo, open func(func(*Config)) (*harness, *sessionView)) {
		_, all := open(func(cfg *Config) { cfg.FirstPage, cfg.Page, cfg.OutlineBytes = 1, 2, 0 })
		parts := 0
		for _, pg := range all.data.pages {
			require.True(t, pg.held, where)
			parts += pg.bytes
		}
		bound := all.data.outlineBytes() + parts/2
		_, v := open(func(cfg *Config) { cfg.FirstPage, cfg.Page, cfg.OutlineBytes = 1, 2, bound })
		d := v.data
		held, bytes := 0, d.outlineBytes()
		for _, pg := range d.pages {
			if pg.held {
				held++
				bytes += pg.bytes
			}
		}
		require.Positive(t, held, where)
		require.True(t, held == 1 || bytes <= bound, "%s: %d pages held, %d bytes over a bound of %d", where, held, bytes, bound)
		if held < len(d.pages) {
			bounded++
		}
	})
	require.Positive(t, bounded)
}
