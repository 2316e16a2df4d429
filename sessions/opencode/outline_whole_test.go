package opencode

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/sessions"
)

// wholeOutline reads its outlines with LoadOutlineWhole.
type wholeOutline struct{ *sqliteStore }

func (w wholeOutline) LoadOutline(ctx context.Context, id string, from, limit int) (*sessions.OutlinePage, error) {
	return w.LoadOutlineWhole(ctx, id, from, limit)
}

// TestOutlineWholeEqualsOutline: on every recorded store and on rows that
// decode with warnings or not at all, an outline read with LoadOutlineWhole
// and its elided calls read with LoadOutput is, page by page, the outline
// with every elided call read with LoadOutput: the same parts, calls and
// warnings in the same order. With blob I/O from 0 bytes on, it reads
// every row once, whole, with blob I/O; else it keeps every elided row
// from its query.
func TestOutlineWholeEqualsOutline(t *testing.T) {
	defer func(e int, b int64) { elideBytes, blobBytes = e, b }(elideBytes, blobBytes)
	elideBytes = 16
	path := partStore(t, "prt_02w",
		`{"type":"tool","tool":"bash","callID":"c1","state":{"status":"completed","input":{},"output":12345678901234567890}}`,
		`{"type":"tool","tool":"bash","callID":"c2","state":{"status":7,"input":{},"output":"xxxxxxxxxxxxxxxxxxxx"}}`,
		`{"type":"tool","tool":"bash","callID":"c3","state":{"status":"completed" "output":"xxxxxxxxxxxxxxxxxxxx"}}`,
		`{"type":"text","text":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","state":{"output":"y"}}`,
		`{"type":"tool","tool":"read","callID":"c5","state":{"status":"completed","input":{},"output":"a\"\u00e9\ud83d\n","attachments":[{"type":"file","mime":"image/png","url":"data:image/png;base64,AAAA"}],"metadata":{"preview":"p","truncated":true}}}`,
		`{"type":"tool","tool":"bash","callID":"c6","state":{"status":"error","input":{},"error":"boom boom boom boom","metadata":{"output":"live","interrupted":true}}}`,
	)
	kept := 0
	for _, p := range recordedStoresAnd(path) {
		s, err := sessions.Open(p)
		require.NoError(t, err)
		infos, err := s.List(ctx)
		require.NoError(t, err)
		st := sessions.LazyFor(s, "").(*sqliteStore)
		for _, in := range infos {
			for _, blob := range []int64{0, 1 << 20} {
				blobBytes = blob
				for _, limit := range []int{0, 1, 3} {
					want, elided := outlineAll(t, st, in.ID, limit)
					got, stillElided := outlineAll(t, wholeOutline{st}, in.ID, limit)
					assert.Equal(t, want, got, "%s %s limit %d blob I/O from %d", p, in.ID, limit, blob)
					if blob == 0 {
						assert.Zero(t, stillElided, "with blob I/O from 0 bytes, every row is read once, whole: none is left for LoadOutput")
					}
					kept += elided - stillElided
				}
			}
		}
		s.Close()
	}
	assert.Positive(t, kept, "some elided rows kept whole")
}

// The elided forms of the large rows are kept, and a row rewritten in
// place (opencode's upsert: the same rowid) is elided again: with its
// time_updated changed, even at the same size.
func TestElidedFormsKeptWhileCurrent(t *testing.T) {
	defer func(e int, b int64) { elideBytes, blobBytes = e, b }(elideBytes, blobBytes)
	elideBytes, blobBytes = 16, 0 // every part row over 16 bytes elided, read with blob I/O
	path := filepath.Join(t.TempDir(), "opencode.db")
	db := openTestDB(t, path)
	defer db.Close()
	insertSession(t, db, rootSession())
	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()
	st := sessions.LazyFor(s, "").(*sqliteStore)
	title := func() string {
		p, err := st.LoadOutline(ctx, "ses_2", 0, 0)
		require.NoError(t, err)
		for _, r := range p.Session.ToolCalls() {
			if r.Call.CallID == "call_1" {
				require.True(t, r.Call.Elided)
				return r.Call.Title
			}
		}
		t.Fatal("no call_1")
		return ""
	}
	require.Equal(t, "Print numbers", title())
	st.elided.mu.Lock()
	kept := len(st.elided.m)
	st.elided.mu.Unlock()
	assert.Positive(t, kept, "elided forms kept")
	require.Equal(t, "Print numbers", title(), "read again from the kept forms")

	// the same size, a new time_updated: read again
	_, err = db.Exec(`UPDATE part SET data = replace(data, '"title":"Print numbers"', '"title":"Print NUMBERS"'), time_updated = time_updated + 1 WHERE id = 'prt_02d'`)
	require.NoError(t, err)
	assert.Equal(t, "Print NUMBERS", title())
	// another size, the same time_updated: read again
	_, err = db.Exec(`UPDATE part SET data = replace(data, '"title":"Print NUMBERS"', '"title":"Print all numbers"') WHERE id = 'prt_02d'`)
	require.NoError(t, err)
	assert.Equal(t, "Print all numbers", title())
}
