package opencode

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/sessions"
)

// partScanCases are part rows for the scanner: what it must decide as
// SQLite's JSON functions do, and what it must leave to them.
var partScanCases = []string{
	`{"type":"tool","state":{"status":"completed","output":"big","metadata":{"output":"x","truncated":true},"title":"t"}}`,
	`{"type":"tool","state":{"status":"error","error":"boom","input":{"output":"keep","state":{"output":"keep"}}}}`,
	` { "type" : "tool" , "state" : { "status" : "completed" , "output" : "a\"b\\c\u00e9\n" , "attachments" : [ 1 , 2 ] , "metadata" : { "truncated" : false , "output" : "o" } } } `,
	`{"type":"text","text":"\"type\":\"tool\",\"state\":{\"output\":1}","state":{"output":"y"}}`,
	`{"state":{"output":"first","status":"error"},"type":"tool"}`,
	`{"type":"tool","state":{"metadata":{"truncated":"true"},"status":"errors"}}`,
	`{"type":"tool","state":{"output":{"nested":{"output":[1,{"error":2}]}},"error":null}}`,
	`{"type":"tool","state":[{"output":1}]}`,
	`{"type":"tool","state":{"status":"completed","output":"","metadata":{}},"n":[-0,1.5e+3,2E-2,0.25,-12]}`,
	`{"type":"tool","state":{}}`,
	`{"type":"tool","state":{"output":1e999,"n":[1e999,-0.0E-0,123456789012345678901234567890,-1E+2]},"é":"\u00e9\ud83d\ude00"}`,
	`{"type":"tool"}`,
	`[{"type":"tool"}]`,
	`"tool"`,
	`{"type":"tool","state":{"output":"x"}}` + "\n",
	`{"type":"tool","state":{"status":"completed","output":"o","attachments":[ ],"metadata":{"preview":"p","display":{"text":"t","path":"/a"},"loaded":[],"truncated":false}}}`,
	`{"type":"tool","state":{"attachments":{"url":"x"},"metadata":{"diff":"d","filediff":{"before":"b","after":"a"},"files":[{"before":"b"}],"diagnostics":{"/a":[]},"exit":0}}}`,
	`{"type":"tool","state":{"attachments":[{"url":"data:x"}],"metadata":{"sessionId":"ses_1","outputPath":"/tmp/o","display":"x"}}}`,
	`{"type":"tool","state":{"attachments":"[1]"}}`,
	`{"type":"tool","state":{"attachments":[null]}}`,
	`{"type":"tool","state":{"metadata":{"display":1,"display":2}}}`,
	// left to SQLite: escapes on the path, duplicates, malformed
	`{"typ\u0065":"tool","state":{"output":"x"}}`,
	`{"type":"t\u006fol","state":{"output":"x"}}`,
	`{"type":"tool","state":{"status":"\u0065rror","output":"x"}}`,
	`{"type":"tool","state":{"output":"x","output":"y"}}`,
	`{"type":"tool","type":"text","state":{}}`,
	`{"type":"tool","state":{"output":"x"}`,
	`{"type":"tool","state":{"output":"x"}}}`,
	`{"type":"tool","state":{"output":'x'}}`,
	`{"type":"tool","state":{"output":"x",}}`,
	`{"type":"tool","state":{"output":"a` + "\t" + `b"}}`,
	`{"type":"tool","n":01}`,
	`{"type":"tool","n":1.}`,
	`{"type":"tool","n":.5}`,
	`{"type":"tool","s":"\x"}`,
	`{"type":"tool","s":"\u12"}`,
	`{type:"tool"}`,
	`{"type":"tool","state":{"output":"x"}} x`,
	``,
	`nul`,
	strings.Repeat("[", 600) + strings.Repeat("]", 600),
}

func TestPartScanMatchesSQLite(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	decided := 0
	for _, c := range partScanCases {
		if partScanAgrees(t, db, c) {
			decided++
		}
	}
	if decided < 14 {
		t.Errorf("scanner decided %d cases, want at least 14", decided)
	}
}

// partScanAgrees checks that the scanner decides row c as SQLite's JSON
// functions do, or leaves it to them; decided says which.
func partScanAgrees(t testing.TB, db *sql.DB, c string) (decided bool) {
	t.Helper()
	var valid bool
	var removed sql.NullString
	var flags int
	err := db.QueryRow(`SELECT json_valid(?1), CASE WHEN json_valid(?1) THEN CASE WHEN json_array_length(?1, '$.state.attachments') > 0 THEN 'A' ELSE 'E' END || json_remove(?1, `+elidedPaths+`) END, `+
		strings.ReplaceAll(partFlagsJSON, "(data", "(?1"), c).Scan(&valid, &removed, &flags)
	if err != nil {
		t.Fatalf("%q: %v", c, err)
	}
	f, fok := partFlags(c)
	e, eok := partElide(c, nil)
	if fok != eok {
		t.Errorf("%q: flags ok %v, elide ok %v", c, fok, eok)
	}
	if !fok {
		return false
	}
	if !valid {
		t.Errorf("%q: scanner decided on JSON SQLite finds malformed", c)
		return true
	}
	if f != flags {
		t.Errorf("%q: flags %b, SQLite %b", c, f, flags)
	}
	if string(e) != removed.String {
		t.Errorf("%q: elided\n%s\nSQLite\n%s", c, e, removed.String)
	}
	return true
}

// TestPartScanSQL checks the functions as the queries call them: NULL on
// what they leave to SQLite, and the JSON functions' answer then.
func TestPartScanSQL(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range partScanCases {
		var f sql.NullInt64
		var e sql.NullString
		if err := db.QueryRow(`SELECT correx_part_flags(?1), correx_part_elide(?1)`, c).Scan(&f, &e); err != nil {
			t.Fatal(err)
		}
		_, ok := partFlags(c)
		if f.Valid != ok || e.Valid != ok {
			t.Errorf("%q: flags %v elide %v, scanner ok %v", c, f, e, ok)
		}
	}
	var f sql.NullInt64
	if err := db.QueryRow(`SELECT correx_part_flags(CAST(? AS BLOB))`, partScanCases[0]).Scan(&f); err != nil || f.Valid {
		t.Errorf("blob: %v %v, want NULL", f, err)
	}
}

func TestPartScanAllocs(t *testing.T) {
	big := `{"type":"tool","state":{"status":"completed","output":"` + strings.Repeat(`line \"x\"\n`, 1<<16) + `","metadata":{"truncated":true}}}`
	if n := testing.AllocsPerRun(10, func() { partFlags(big) }); n != 0 {
		t.Errorf("partFlags allocates %v times", n)
	}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(10, func() { partElide(big, buf[:0]) }); n != 0 {
		t.Errorf("partElide allocates %v times", n)
	}
}

// TestPartScanInStore runs List and the outline over rows of every kind,
// malformed ones included, with the scanner used for all of them, and
// checks them against the JSON functions alone (partScanOff) and against
// Load.
func TestPartScanInStore(t *testing.T) {
	path := partStore(t, "prt_scan", partScanCases...)

	read := func() ([3]int, []*sessions.OutlinePage) {
		s, err := sessions.Open(path)
		require.NoError(t, err)
		defer s.Close()
		infos, err := s.List(ctx)
		require.NoError(t, err)
		require.Len(t, infos, 1)
		var pages []*sessions.OutlinePage
		for from := 0; ; {
			p, err := sessions.LazyFor(s, "ses_2").LoadOutline(ctx, "ses_2", from, 2)
			require.NoError(t, err)
			pages = append(pages, p)
			if !p.More {
				break
			}
			from += len(p.Session.Messages)
		}
		return [3]int{infos[0].ToolCalls, infos[0].Truncated, infos[0].Errors}, pages
	}
	defer func(s, e int, b int64) { scanBytes, elideBytes, blobBytes, partScanOff = s, e, b, false }(scanBytes, elideBytes, blobBytes)
	scanBytes, elideBytes = 0, 0
	partScanOff = true
	wantCounts, wantPages := read()
	partScanOff = false
	gotCounts, gotPages := read()
	assert.Equal(t, wantCounts, gotCounts)
	assert.Equal(t, wantPages, gotPages)
	blobBytes = 0 // every row read with blob I/O, then scanned in Go
	blobCounts, blobPages := read()
	assert.Equal(t, wantCounts, blobCounts)
	assert.Equal(t, wantPages, blobPages)
	elided := 0
	for _, p := range gotPages {
		for _, r := range p.Session.ToolCalls() {
			if r.Call.Elided {
				elided++
			}
		}
	}
	assert.Greater(t, elided, 10)

	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()
	require.NotNil(t, s.(*sqliteStore).c().blobs, "the blob reader did not open")
	full, err := s.Load(ctx, "ses_2")
	require.NoError(t, err)
	got, _ := outlineAll(t, sessions.LazyFor(s, "ses_2"), "ses_2", 3)
	assert.Equal(t, full.Messages, got.Messages)
}

// TestCutKeepCoversWhatIsCompared: stringCutter leaves whole every name
// and value partFlags compares.
func TestCutKeepCoversWhatIsCompared(t *testing.T) {
	for _, k := range pathKeys {
		require.Less(t, len(k.key), cutKeep, k.key)
	}
	for _, v := range []string{"tool", "error", "true"} {
		require.Less(t, len(v), cutKeep, v)
	}
}
