package opencode

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/sessions"
)

// TestDecodeRowIsDecodeBig: every part row of every recorded store, and
// rows with large outputs, errors and metadata written every way JSON
// allows (escapes, surrogates, bytes that are not UTF-8), decode read a
// chunk at a time with their strings cut as they decode read whole, or
// are left to be read whole (a row that is not JSON); and the outline's
// elided form of a row cut so is the one of the row read whole.
func TestDecodeRowIsDecodeBig(t *testing.T) {
	defer func(n int) { rowStreamMin = n }(rowStreamMin)
	rowStreamMin = 0
	long := strings.Repeat("line of output é\\t\\\"q\\\" ", 5000)
	path := partStore(t, "prt_03d",
		`{"type":"tool","tool":"bash","callID":"c1","state":{"status":"completed","input":{"command":"x"},"output":"`+long+`","metadata":{"output":"`+long+`","truncated":true},"title":"t"}}`,
		`{"type":"tool","tool":"bash","callID":"c2","state":{"status":"error","input":{},"error":"`+long+`\ud83d\ude00\ud83d x \udc00"}}`,
		"{\"type\":\"tool\",\"tool\":\"bash\",\"callID\":\"c3\",\"state\":{\"status\":\"completed\",\"input\":{},\"output\":\""+long+"\xff\xfe\"}}",
		`{"type":"tool","tool":"read","callID":"c4","state":{"status":"completed","input":{},"output":"`+strings.Repeat(`\u00e9`, 3000)+`","attachments":[{"type":"file","mime":"image/png","url":"data:image/png;base64,`+strings.Repeat("A", 4000)+`"}]}}`,
		`{"type":"tool","tool":"bash","callID":"c5","state":{"status":"completed","input":{},"output":null,"metadata":{"display":"`+long+`"}}}`,
		`{"type":"tool","tool":"bash","callID":"c6","state":{"status":"completed","input":{},"output":12345}}`,
		`{"type":"tool","tool":"bash","callID":"c7","state":{"status":"completed","input":{},"output":"`+long+`"`+` "x":1}}`,
		`{"type":"text","text":"`+long+`"}`,
	)
	streamed, elidedCut := 0, 0
	for _, p := range recordedStoresAnd(path) {
		s, err := sessions.Open(p)
		require.NoError(t, err)
		st := sessions.LazyFor(s, "").(*sqliteStore)
		rows, err := st.c().db.Query(`SELECT id, rowid, data FROM part WHERE typeof(data) IN ('text', 'blob')`)
		require.NoError(t, err)
		for rows.Next() {
			var id string
			var rowid int64
			var data []byte
			require.NoError(t, rows.Scan(&id, &rowid, &data))
			// the outline's elided row, read whole and cut as it is read
			if cs, ok := cutScan(st.c().blobs, rowid, false); ok {
				whole, wok := partElide(string(data), nil)
				require.True(t, wok, "%s row %s: cut and scanned, but not whole", p, id)
				require.Equal(t, string(whole), string(cs.p.out), "%s row %s: elided", p, id)
				elidedCut++
			}
			want, got := partSlot{id: id}, partSlot{id: id}
			want.decodeBig(data)
			if got.decodeRow(st.c().blobs, rowid) {
				streamed++
				require.Equal(t, want, got, "%s row %s", p, id)
			} else {
				require.Equal(t, partSlot{id: id}, got, "%s row %s: left as it was", p, id)
			}
		}
		require.NoError(t, rows.Close())
		s.Close()
	}
	require.Greater(t, streamed, 100, "rows decoded a chunk at a time")
	require.Greater(t, elidedCut, 100, "rows elided a chunk at a time")
}
