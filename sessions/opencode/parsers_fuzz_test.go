package opencode

// Fuzz targets for opencode's readers (scripts/fuzz.sh runs them): each
// is seeded from the recorded fixtures and checks the properties of
// props.CheckSession whatever the input, and, where there is one,
// agreement with a reference (SQLite's JSON functions, encoding/json, a
// decode round trip, List against Load).

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"correx/formatters"
	"correx/internal/jsonskim"
	"correx/internal/props"
	"correx/model"
)

// exportParts are the part objects of every recorded export, compact.
func exportParts(f *testing.F) [][]byte {
	var out [][]byte
	for _, file := range props.Files(f, "opencode", func(p string) bool { return strings.Contains(p, "/exports/") && strings.HasSuffix(p, ".json") }) {
		var doc exportDoc
		if json.Unmarshal(props.Read(f, file), &doc) != nil {
			continue
		}
		for _, m := range doc.Messages {
			for _, p := range m.Parts {
				if len(p) <= props.SeedMax {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// FuzzPartDecode: opencode's part objects (a db row's data, an export's or
// a legacy file's part) through decoder.part. It fails only on what is not
// JSON, and decoding what it decoded, encoded again, gives the same part.
func FuzzPartDecode(f *testing.F) {
	for _, c := range partScanCases {
		f.Add([]byte(c))
	}
	for _, p := range exportParts(f) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d decoder
		p, ok := d.part("prt_fuzz", data, "fuzz")
		if ok != json.Valid(data) {
			t.Fatalf("decoded %v, JSON valid %v: %s", ok, json.Valid(data), d.warnings)
		}
		if !ok {
			return
		}
		var sp storedPart
		_, _ = unmarshal(data, &sp)
		var again bytes.Buffer
		enc := json.NewEncoder(&again)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&sp); err != nil {
			t.Fatal(err)
		}
		p2, ok := d.part("prt_fuzz", again.Bytes(), "fuzz again")
		if !ok || !reflect.DeepEqual(p, p2) {
			t.Fatalf("round trip changed the part:\n%+v\n%+v\nfrom %s", p, p2, again.Bytes())
		}
		props.CheckSession(t, &model.Session{Messages: []model.Message{{Parts: []model.Part{p}}}}, len(data))
	})
}

// FuzzPartScan: the in-SQLite scanner (partscan.go) decides a part row as
// SQLite's JSON functions do, or leaves it to them.
func FuzzPartScan(f *testing.F) {
	for _, c := range partScanCases {
		f.Add(c)
	}
	for _, p := range exportParts(f) {
		f.Add(string(p))
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	f.Fuzz(func(t *testing.T, row string) { partScanAgrees(t, db, row) })
}

// FuzzUnquotePieces: a JSON string literal decoded a piece at a time
// (stream.go) is what encoding/json decodes it to, whatever the pieces;
// given as the body of its JSON string (LoadStreamedJSON), it is what
// formatters.Stringify writes for that text.
func FuzzUnquotePieces(f *testing.F) {
	for _, c := range []string{`"plain"`, `"a\"b\\c\u00e9\n"`, `"\ud83d\ude00 \ud83d x \udc00"`, "\"\xff\xfe bad\"", `"\u12"`} {
		f.Add(c, uint8(3))
	}
	for _, p := range exportParts(f) {
		var sp struct {
			State struct {
				Output json.RawMessage `json:"output"`
			} `json:"state"`
		}
		if json.Unmarshal(p, &sp) == nil && len(sp.State.Output) > 0 && sp.State.Output[0] == '"' {
			f.Add(string(sp.State.Output), uint8(len(p)))
		}
	}
	for _, c := range []string{`"\u0008\b\u001B\u001b\u2028\u007f\/"`, "\"raw \u2028 sep\""} {
		f.Add(c, uint8(1))
	}
	f.Fuzz(func(t *testing.T, lit string, piece uint8) {
		var want string
		// one literal, as the scanner gives it: quotes at both ends
		if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' || json.Unmarshal([]byte(lit), &want) != nil {
			return
		}
		defer func(n int) { pieceBytes = n }(pieceBytes)
		pieceBytes = 1 + int(piece)%32
		var got strings.Builder
		if err := unquotePieces(lit, func(s string) error { got.WriteString(s); return nil }); err != nil {
			t.Fatalf("%q: %v", lit, err)
		}
		if got.String() != want {
			t.Fatalf("%q in pieces of %d: %q, encoding/json %q", lit, pieceBytes, got.String(), want)
		}
		// as the body of its JSON string: stored pieces copied where they
		// are canonical, the rest encoded again, makes what Stringify makes
		enc, err := formatters.Stringify(want)
		if err != nil {
			t.Fatal(err)
		}
		var body strings.Builder
		if err := feedPieces(lit, &unquoter{write: func(s string) error { body.WriteString(s); return nil }, escaped: true}); err != nil {
			t.Fatalf("%q: %v", lit, err)
		}
		if body.String() != string(enc[1:len(enc)-1]) {
			t.Fatalf("%q in pieces of %d, escaped: %q, Stringify %q", lit, pieceBytes, body.String(), enc)
		}
		// and a body Stringify writes is canonical, so copied whole
		if b := string(enc[1 : len(enc)-1]); !jsonskim.Canonical(b) {
			t.Fatalf("Stringify's %q is not canonical", b)
		}
	})
}

// FuzzExport: an `opencode export` file.
func FuzzExport(f *testing.F) {
	for _, file := range props.Files(f, "opencode", func(p string) bool { return strings.Contains(p, "/exports/") && strings.HasSuffix(p, ".json") }) {
		if b := props.Read(f, file); len(b) <= props.SeedMax {
			f.Add(b)
		}
	}
	for _, p := range exportParts(f) { // one message of one part
		f.Add([]byte(`{"info":{"id":"ses_f","title":"t"},"messages":[{"info":{"id":"msg_f","role":"assistant"},"parts":[` + string(p) + `]}]}`))
	}
	dir := f.TempDir() // one per process: the fuzzer's workers call the target in turn
	f.Fuzz(func(t *testing.T, data []byte) {
		path := props.FuzzFile(t, dir, "ses_f.json", data)
		s, err := readExport(path)
		props.CheckRead(t, path, len(data), s, err)
	})
}

// FuzzLegacy: opencode's legacy JSON storage, one session of one message
// of one part; List's counts are Load's.
func FuzzLegacy(f *testing.F) {
	root := filepath.Join("..", "..", "testdata", "opencode", "legacy", "data", "storage")
	parts, _ := filepath.Glob(filepath.Join(root, "part", "*", "*.json"))
	for _, part := range parts {
		msgID := filepath.Base(filepath.Dir(part))
		msgs, _ := filepath.Glob(filepath.Join(root, "message", "*", msgID+".json"))
		if len(msgs) == 0 {
			continue
		}
		sesID := filepath.Base(filepath.Dir(msgs[0]))
		sess, _ := filepath.Glob(filepath.Join(root, "session", "*", sesID+".json"))
		if len(sess) == 0 {
			continue
		}
		if p := props.Read(f, part); len(p) <= props.SeedMax {
			f.Add(props.Read(f, sess[0]), props.Read(f, msgs[0]), p)
		}
	}
	if len(parts) == 0 {
		f.Fatal("no legacy part files to seed from")
	}
	safe := func(id string) bool {
		return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, "/\\*?[\x00") && len(id) < 200
	}
	dir := f.TempDir() // one per process: the fuzzer's workers call the target in turn
	f.Fuzz(func(t *testing.T, session, message, part []byte) {
		if err := os.RemoveAll(filepath.Join(dir, "storage")); err != nil {
			t.Fatal(err)
		}
		var named struct{ ID string }
		if json.Unmarshal(session, &named) != nil || !safe(named.ID) {
			named.ID = "ses_f"
		}
		props.FuzzFile(t, dir, "storage/session/proj/"+named.ID+".json", session)
		st, err := openLegacy(filepath.Join(dir, "storage"))
		if err != nil {
			t.Fatal(err)
		}
		infos, err := st.List(ctx)
		if err != nil || len(infos) != 1 {
			return // a bad session file: skipped with a warning
		}
		id := infos[0].ID
		if !safe(id) {
			t.Fatalf("listed a session as %q", id)
		}
		for name, data := range map[string][]byte{"message/" + id + "/msg_f.json": message, "part/msg_f/prt_f.json": part} {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, "storage", name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "storage", name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if infos, err = st.List(ctx); err != nil || len(infos) != 1 {
			t.Fatalf("listed %v, %v", infos, err)
		}
		s, err := st.Load(ctx, id)
		if err != nil {
			t.Fatalf("load %q: %v", id, err)
		}
		props.CheckSession(t, s, len(session)+len(message)+len(part))
		l := infos[0]
		if l.ToolCalls != s.Info.ToolCalls || l.Errors != s.Info.Errors || l.Truncated != s.Info.Truncated {
			t.Fatalf("List counts %d calls, %d errors, %d truncated; Load %d, %d, %d",
				l.ToolCalls, l.Errors, l.Truncated, s.Info.ToolCalls, s.Info.Errors, s.Info.Truncated)
		}
	})
}

// FuzzStringCutter: a part row fed a few bytes at a time to a
// stringCutter, each string cut short, has the flags of the row whole
// (both partFlags'), and a row the cutter calls bad is one partFlags
// cannot decide.
func FuzzStringCutter(f *testing.F) {
	for _, c := range partScanCases {
		f.Add(c, uint8(3), uint8(2))
	}
	for _, p := range exportParts(f) {
		f.Add(string(p), uint8(7), uint8(5))
	}
	long := strings.Repeat("x", 40)
	for _, c := range []string{`{"type":"tool","state":{"` + long + `\n":1,"status":"error"}}`, `{"type":"tool","state":{"status":"error","output":"` + long + `\u00e9` + long + `"}}`,
		`{"type":"tool","state":{"` + long + `":"` + long + `\q"}}`, "{\"type\":\"tool\",\"state\":{\"output\":\"" + long + "\x01\"}}"} {
		f.Add(c, uint8(0), uint8(4))
	}
	f.Fuzz(func(t *testing.T, row string, keep, piece uint8) {
		c := stringCutter{keep: cutKeep + int(keep%9)}
		for b := []byte(row); len(b) > 0 && !c.bad; {
			n := min(len(b), int(piece%9)+1)
			c.feed(b[:n])
			b = b[n:]
		}
		want, wantOK := partFlags(row)
		if c.bad {
			if wantOK {
				t.Fatalf("cut as bad, scanned whole as %d: %q", want, row)
			}
			return
		}
		got, ok := partFlags(string(c.out))
		if got != want || ok != wantOK {
			t.Fatalf("cut %q: %d %v, whole %d %v: %q", c.out, got, ok, want, wantOK, row)
		}
	})
}
