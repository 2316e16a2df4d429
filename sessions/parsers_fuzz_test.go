package sessions

// Fuzz targets for every reader of agent records (scripts/fuzz.sh runs
// them): each is seeded from the recorded fixtures and checks properties
// that hold whatever the input: no panic, a result bounded by the input,
// tool calls whose input and metadata are JSON and whose model-visible
// result is consistent (props.CheckVisible), and, where there is one,
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
	"correx/internal/props"
	"correx/model"
)

// seedMax is the largest seed cut from a fixture: big enough for a call
// and its result, small enough for the fuzzer to mutate quickly.
const seedMax = 32 << 10

// checkSession checks what a reader gave for n bytes of input.
func checkSession(t *testing.T, s *model.Session, n int) {
	t.Helper()
	if len(s.Messages) > n+1 {
		t.Fatalf("%d messages from %d bytes", len(s.Messages), n)
	}
	stored := 0
	for _, m := range s.Messages {
		for _, p := range m.Parts {
			stored += len(p.Text)
			c := p.Tool
			if c == nil {
				continue
			}
			stored += len(c.Output) + len(c.Error)
			for _, raw := range []json.RawMessage{c.Input, c.Metadata, c.Structured} {
				if len(raw) > 0 && !json.Valid(raw) {
					t.Fatalf("call %s: stored JSON %q is not JSON", c.CallID, raw)
				}
			}
			props.CheckVisible(t, c, formatters.Visible(c, nil))
		}
	}
	if stored > 4*n+1024 {
		t.Fatalf("%d bytes of text from %d bytes of input", stored, n)
	}
}

// checkRead checks what a reader gave for the n bytes of the file at path:
// an error that names the file, or a session with checkSession's
// properties.
func checkRead(t *testing.T, path string, n int, s *model.Session, err error) {
	t.Helper()
	if err != nil {
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("error does not name the file: %v", err)
		}
		return
	}
	checkSession(t, s, n)
}

// fuzzDir is a directory for a fuzz target's files, one per process
// (the fuzzer's workers are processes, each calling the target in turn):
// a new directory per call would cost more than most calls.
func fuzzDir(f *testing.F) string { return f.TempDir() }

// fuzzFile writes data to the file name under dir and returns its path.
func fuzzFile(t *testing.T, dir, name string, data []byte) string {
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

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
				if len(p) <= seedMax {
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
		checkSession(t, &model.Session{Messages: []model.Message{{Parts: []model.Part{p}}}}, len(data))
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
// (stream.go) is what encoding/json decodes it to, whatever the pieces.
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
	})
}

// FuzzExport: an `opencode export` file.
func FuzzExport(f *testing.F) {
	for _, file := range props.Files(f, "opencode", func(p string) bool { return strings.Contains(p, "/exports/") && strings.HasSuffix(p, ".json") }) {
		if b := props.Read(f, file); len(b) <= seedMax {
			f.Add(b)
		}
	}
	for _, p := range exportParts(f) { // one message of one part
		f.Add([]byte(`{"info":{"id":"ses_f","title":"t"},"messages":[{"info":{"id":"msg_f","role":"assistant"},"parts":[` + string(p) + `]}]}`))
	}
	dir := fuzzDir(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := fuzzFile(t, dir, "ses_f.json", data)
		s, err := readExport(path)
		checkRead(t, path, len(data), s, err)
	})
}

// FuzzLegacy: opencode's legacy JSON storage, one session of one message
// of one part; List's counts are Load's.
func FuzzLegacy(f *testing.F) {
	root := filepath.Join("..", "testdata", "opencode", "legacy", "data", "storage")
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
		if p := props.Read(f, part); len(p) <= seedMax {
			f.Add(props.Read(f, sess[0]), props.Read(f, msgs[0]), p)
		}
	}
	if len(parts) == 0 {
		f.Fatal("no legacy part files to seed from")
	}
	safe := func(id string) bool {
		return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, "/\\*?[\x00") && len(id) < 200
	}
	dir := fuzzDir(f)
	f.Fuzz(func(t *testing.T, session, message, part []byte) {
		if err := os.RemoveAll(filepath.Join(dir, "storage")); err != nil {
			t.Fatal(err)
		}
		var named struct{ ID string }
		if json.Unmarshal(session, &named) != nil || !safe(named.ID) {
			named.ID = "ses_f"
		}
		fuzzFile(t, dir, "storage/session/proj/"+named.ID+".json", session)
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
		checkSession(t, s, len(session)+len(message)+len(part))
		l := infos[0]
		if l.ToolCalls != s.Info.ToolCalls || l.Errors != s.Info.Errors || l.Truncated != s.Info.Truncated {
			t.Fatalf("List counts %d calls, %d errors, %d truncated; Load %d, %d, %d",
				l.ToolCalls, l.Errors, l.Truncated, s.Info.ToolCalls, s.Info.Errors, s.Info.Truncated)
		}
	})
}

// jsonlSeeds returns runs of lines of agent's JSON Lines fixtures; with
// head, each after its file's first line (Codex's session_meta, Gemini
// CLI's session record), which the reader needs.
func jsonlSeeds(f *testing.F, agent string, head bool) [][]byte {
	var out [][]byte
	for _, file := range props.Files(f, agent, func(p string) bool { return strings.HasSuffix(p, ".jsonl") }) {
		data := props.Read(f, file)
		first := []byte{}
		if i := bytes.IndexByte(data, '\n'); head && i >= 0 {
			first, data = data[:i+1], data[i+1:]
		}
		for _, w := range props.Windows(data, 4, seedMax) {
			out = append(out, append(append([]byte{}, first...), w...))
		}
	}
	return out
}

// FuzzClaudeTranscript: a Claude Code transcript.
func FuzzClaudeTranscript(f *testing.F) {
	for _, s := range jsonlSeeds(f, "claude-code", false) {
		f.Add(s)
	}
	dir := fuzzDir(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := fuzzFile(t, dir, "projects/-home-user-proj/32e57bf8-f980-492f-9700-2d786061b4d4.jsonl", data)
		ss, err := readClaudeTranscript(path, filepath.Join(dir, "projects"))
		if err != nil {
			t.Fatal(err)
		}
		if len(ss) > len(data)+1 {
			t.Fatalf("%d sessions from %d bytes", len(ss), len(data))
		}
		for _, s := range ss {
			checkSession(t, s, len(data))
		}
	})
}

// FuzzReadJSONL: readJSONL gives every non-blank line, trimmed, with its
// number, as splitting the file at newlines does.
func FuzzReadJSONL(f *testing.F) {
	for _, agent := range []string{"claude-code", "codex", "gemini-cli"} {
		for _, s := range jsonlSeeds(f, agent, false) {
			f.Add(s)
		}
	}
	f.Add([]byte("\n\n  \r\n{}\r\n \t{\"a\":1}  \n{\"partial\""))
	type line struct {
		n    int
		text string
		last bool
	}
	dir := fuzzDir(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := fuzzFile(t, dir, "f.jsonl", data)
		var got, want []line
		warnf := func(n int, format string, args ...any) { t.Fatalf("line %d: "+format, append([]any{n}, args...)...) }
		if err := readJSONL(path, func(n int, l []byte, last bool) { got = append(got, line{n, string(l), last}) }, warnf); err != nil {
			t.Fatal(err)
		}
		split := bytes.Split(data, []byte("\n"))
		for i, l := range split {
			if l = bytes.TrimSpace(l); len(l) > 0 {
				want = append(want, line{i + 1, string(l), i == len(split)-1})
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("lines\n%v\nwant\n%v", got, want)
		}
	})
}
