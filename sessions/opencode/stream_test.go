package opencode

import (
	"encoding/json"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"correx/formatters"
	"correx/model"
	"correx/sessions"
)

// TestUnquotePieces checks that a string literal decoded a piece at a
// time gives what encoding/json gives for it whole, with pieces of whole
// runes, however small the pieces.
func TestUnquotePieces(t *testing.T) {
	units := []string{"a", "Z", " ", `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00e9`, `\u0000`,
		`\uD83D\uDE00`, `\uD83D`, `\uDE00`, `\uD83D\u0041`, `\uD83D\uD83D`, `\udbff\udfff`,
		"é", "漢", "😀", "\u2028", "\xff", "\xe2\x80", "\xed\xa0\x80", "<&>"}
	rng := rand.New(rand.NewSource(1))
	defer func(n int) { pieceBytes = n }(pieceBytes)
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		b.WriteString(`"`)
		for n := rng.Intn(30); n > 0; n-- {
			b.WriteString(units[rng.Intn(len(units))])
		}
		b.WriteString(`"`)
		lit := b.String()
		var want string
		require.NoError(t, json.Unmarshal([]byte(lit), &want), lit)
		pieceBytes = 1 + rng.Intn(14)
		var got strings.Builder
		require.NoError(t, unquotePieces(lit, func(p string) error {
			require.True(t, utf8.ValidString(p), "piece %q of %q", p, lit)
			got.WriteString(p)
			return nil
		}))
		require.Equal(t, want, got.String(), "%q with pieces of %d", lit, pieceBytes)
	}
}

// TestLoadStreamed checks, on every part of the recorded stores, on the
// scanner's cases and on an output of several blob chunks, all read with
// blob I/O, whole or a chunk at a time with their strings cut (cutScan),
// that LoadOutput and the streamed output and error are what
// Load reads through SQLite (and, streamed as JSON, what Stringify writes
// for it), and the streamed call is the outline's.
func TestLoadStreamed(t *testing.T) {
	defer func(b int64, n int) { blobBytes, rowStreamMin = b, n }(blobBytes, rowStreamMin)
	testLoadStreamed(t) // small rows decoded in the query (decodeStreamed)
	blobBytes = 0
	for _, n := range []int{blobScratchMax, 0} {
		rowStreamMin = n
		testLoadStreamed(t)
	}
}

func testLoadStreamed(t *testing.T) {
	// an output over several blob chunks, escapes and runes across their edges
	long := `{"type":"tool","callID":"c_long","tool":"bash","state":{"status":"completed","output":"` +
		strings.Repeat(`é\n\"漢\ud83d\ude00\t😀x`, 3*blobChunk/20) + `","error":"e\u00e9","metadata":{"output":"m","display":{"text":"d"}},"attachments":[]}}`
	path := partStore(t, "prt_scan", append([]string{long}, partScanCases...)...)
	dirs, _ := filepath.Glob("../../testdata/opencode/*/data")
	streamed := 0
	for _, dir := range append([]string{filepath.Dir(path)}, dirs...) {
		st, err := sessions.Open(dir)
		require.NoError(t, err)
		defer st.Close()
		s, ok := st.(*sqliteStore)
		if !ok {
			continue // the legacy JSON storage
		}
		require.NotNil(t, s.c().blobs)
		infos, err := st.List(ctx)
		require.NoError(t, err)
		for _, in := range infos {
			if in.Pipeline == model.PipelineV2 {
				continue // its calls are in session_message, never elided
			}
			l := sessions.LazyFor(st, in.ID)
			page, err := l.LoadOutline(ctx, in.ID, 0, 0)
			require.NoError(t, err)
			whole, err := st.Load(ctx, in.ID)
			require.NoError(t, err)
			loaded := map[string]*model.ToolCall{}
			for _, r := range whole.ToolCalls() {
				c := *r.Call
				c.OutputBytes = len(c.Output)
				loaded[whole.Messages[r.Message].Parts[r.Part].ID] = &c
			}
			for _, m := range page.Session.Messages {
				for _, pt := range m.Parts {
					if pt.Tool == nil {
						continue
					}
					full := loaded[pt.ID] // read by SQLite, whole
					require.NotNil(t, full, pt.ID)
					out, err := s.LoadOutput(ctx, in.ID, pt.ID)
					require.NoError(t, err)
					require.Equal(t, full, out, pt.ID)
					call, text, err := s.LoadStreamed(ctx, in.ID, pt.ID)
					require.NoError(t, err)
					_, body, err := s.LoadStreamedJSON(ctx, in.ID, pt.ID)
					require.NoError(t, err)
					for field, want := range map[string]string{"output": full.Output, "error": full.Error} {
						var got strings.Builder
						require.NoError(t, text(field, func(p string) error { got.WriteString(p); return nil }))
						require.Equal(t, want, got.String(), "%s %s %s", dir, pt.ID, field)
						enc, err := formatters.Stringify(want)
						require.NoError(t, err)
						got.Reset()
						require.NoError(t, body(field, func(p string) error { got.WriteString(p); return nil }))
						require.Equal(t, string(enc[1:len(enc)-1]), got.String(), "%s %s %s as JSON", dir, pt.ID, field)
					}
					require.Equal(t, full.Status, call.Status)
					require.Equal(t, full.CallID, call.CallID)
					// with its metadata as stored, the text streamed the same
					mcall, mtext, err := s.LoadStreamedMeta(ctx, in.ID, pt.ID)
					require.NoError(t, err)
					requireJSONEq(t, full.Metadata, mcall.Metadata, pt.ID)
					for field, want := range map[string]string{"output": full.Output, "error": full.Error} {
						var got strings.Builder
						require.NoError(t, mtext(field, func(p string) error { got.WriteString(p); return nil }))
						require.Equal(t, want, got.String(), "%s %s %s (with its metadata)", dir, pt.ID, field)
					}
					if call.Elided {
						streamed++
						require.Equal(t, len(full.Attachments) > 0, call.ElidedFiles, pt.ID)
						require.Empty(t, call.Output)
					}
				}
			}
		}
	}
	require.Greater(t, streamed, 40)
}

// requireJSONEq: two raw JSON values (absent or null alike) are the same
// JSON.
func requireJSONEq(t *testing.T, want, got json.RawMessage, msg string) {
	t.Helper()
	norm := func(r json.RawMessage) string {
		if len(r) == 0 {
			return "null"
		}
		return string(r)
	}
	require.JSONEq(t, norm(want), norm(got), msg)
}
