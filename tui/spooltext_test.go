package tui

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"correx/model"
	"correx/render"
	"correx/sessions"
)

// TestSpooledTextShowsWhatHeldTextShows: a lazy session whose model-visible
// texts left in the store are spooled (spoolDetail: every one, with
// SpoolTextBytes 0) shows every call's list row, and the Call, Model sees,
// Wire and Pipeline panes, headers and drawn text, exactly as the same
// session with the texts read whole; a spooled text is the visible text
// byte for byte, and the rest of its visible result the same. Over every
// fixture whose store reads lazily.
func TestSpooledTextShowsWhatHeldTextShows(t *testing.T) {
	spooled := 0
	eachLazyFixtureSession(t, func(where string, _ sessions.Store, _ model.SessionInfo, open func(func(*Config)) (*harness, *sessionView)) {
		hw, whole := open(func(cfg *Config) { cfg.SpoolTextBytes = 1 << 30 })
		hs, spool := open(func(cfg *Config) { cfg.SpoolTextBytes = 0 })
		require.Equal(t, len(whole.list.rows), len(spool.list.rows), where)
		for _, pane := range []string{"2", "1", "3", "6"} {
			hw.key(pane)
			hs.key(pane)
			for i := range whole.list.rows {
				whole.list.Select(i)
				spool.list.Select(i)
				hw.send(nil)
				hs.send(nil)
				wi, si := whole.list.rows[i].info(), spool.list.rows[i].info()
				at := where + " pane " + pane + " call " + wi.row.callID
				require.Equal(t, whole.list.row(i), spool.list.row(i), at)
				require.True(t, si.ready, at)
				require.Equal(t, whole.headers[whole.pane], spool.headers[spool.pane], at)
				require.Equal(t, whole.views[whole.pane].View(), spool.views[spool.pane].View(), at)
				if fl := si.bigText(); fl != nil && pane == "2" {
					require.Nil(t, wi.bigText(), at)
					text, err := fl.readAll()
					require.NoError(t, err, at)
					require.Equal(t, wi.vis.Text, text, at)
					want := wi.vis.Visible
					want.Text, want.Result.Text = "", ""
					require.Equal(t, want, si.vis.Visible, at)
					spooled++
				}
			}
		}
	})
	require.Greater(t, spooled, 10, "texts spooled")
}

// A call whose visible text is not its stored output as it is, or that
// holds a marker, is read whole: spoolDetail declines it.
func TestSpoolDetailDeclines(t *testing.T) {
	declined, took := 0, 0
	eachLazyFixtureSession(t, func(where string, st sessions.Store, in model.SessionInfo, _ func(func(*Config)) (*harness, *sessionView)) {
		l := sessions.LazyFor(st, in.ID)
		s, err := st.Load(t.Context(), in.ID)
		require.NoError(t, err)
		p, err := l.LoadOutline(t.Context(), in.ID, 0, 0)
		require.NoError(t, err)
		spills := sessions.SpillsFor(in)
		for _, r := range p.Session.ToolCalls() {
			oc := r.Call
			if !oc.Elided {
				continue
			}
			partID := p.Session.Messages[r.Message].Parts[r.Part].ID
			var msg detailMsg
			carrier := render.CarrierModel(p.Session, r.Message, "")
			ok, err := spoolDetail(t.Context(), l, in.ID, partID, oc, spills, carrier, &msg)
			require.NoError(t, err)
			whole, found := s.FindCall(oc.CallID)
			require.True(t, found)
			vis, _ := visibles(whole.Call, spills, carrier)
			if !ok {
				declined++
				continue
			}
			took++
			require.Nil(t, vis.Truncation, "%s %s: spooled, but truncated", where, oc.CallID)
			msg.close()
		}
	})
	require.Positive(t, declined, "calls read whole")
	require.Positive(t, took, "calls spooled")
}

// writeText gives a file's text in pieces of whole runes, however the
// runes fall across its reads.
func TestFileWriteTextWholeRunes(t *testing.T) {
	for _, pad := range []int{0, 1, 2, 3} {
		text := strings.Repeat("x", pad) + strings.Repeat("é漢😀", 40000)
		f, err := createSpool()
		require.NoError(t, err)
		_, err = f.WriteString(text)
		require.NoError(t, err)
		fl := newFileLines(f, linesFrom(0), int64(len(text)), false)
		var got strings.Builder
		pieces := 0
		require.NoError(t, fl.writeText(func(piece string) error {
			require.True(t, utf8.ValidString(piece), "pad %d piece %d cuts a rune", pad, pieces)
			got.WriteString(piece)
			pieces++
			return nil
		}))
		require.Greater(t, pieces, 1, "pad %d", pad)
		require.Equal(t, text, got.String(), "pad %d", pad)
		fl.Close()
	}
}
