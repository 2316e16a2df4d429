package cline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"correx/formatters"
	"correx/model"
	"correx/sessions"
)

// The send-time cut on constructed results: the expected lengths, marker
// positions and JSON.stringify digests are what @cline/core 0.0.86's own
// H8 and GF (cline 3.0.65, copied verbatim into node) give for
// JSON.stringify([{query:"q", result: H8(s, 8000, GF), success:true}]):
// counted in UTF-16 units, an astral character cut in two leaves a lone
// surrogate that JSON.stringify writes as \udXXX.
func TestSendCutAsClineDoes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		s         string
		markerAt  int    // UTF-16 offset of the marker in the cut string
		around    string // JSON of the cut string from markerAt-2, 42 units
		jsonLen   int    // UTF-16 units, as JavaScript counts them
		jsonSHA   string
		lineCount int
	}{
		{"ascii 8001", strings.Repeat("a", 8001), 3985, `"aa\n\n...[truncated 31 chars]...\n\naaaaaaaaaa"`, 8046, "516b5ca044825205c5b33c444afac8ca79354131def072ed4332529af31fe470", 1},
		{"astral", "x" + strings.Repeat("🎉", 5000), 3984, `"\udf89\ud83c\n\n...[truncated 2033 chars]...\n\n🎉🎉🎉🎉"`, 8051, "b88f2545bb7258e6cb58a05c770fc517a2b2e74e94e5d8e154898d1f04bf8504", 1},
		{"count with more digits than its guess", strings.Repeat("b", 8009), 3985, `"bb\n\n...[truncated 39 chars]...\n\nbbbbbbbbbb"`, 8046, "b7a5910829e21e67d8893217f215f2b8b963bf2be06b65bb12b6a44a14c41678", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			units := utf16.Encode([]rune(tc.s))
			out, keep, marker := sendCut(units, maxToolResultChars)
			if len(out) != 8000 || keep != tc.markerAt || marker == 0 {
				t.Fatalf("cut to %d units, keep %d (marker %d), want 8000 keeping %d", len(out), keep, marker, tc.markerAt)
			}
			if got := stringify(jsValue{kind: jsString, str: out[keep-2 : keep+40]}); got != tc.around {
				t.Errorf("around the marker: %s, want %s", got, tc.around)
			}
			stored := `[{"query":"q","result":` + string(mustJSON(tc.s)) + `,"success":true}]`
			v, err := parseJS([]byte(stored))
			if err != nil {
				t.Fatal(err)
			}
			sent := resultText(sentContent(v, maxToolResultChars))
			sum := sha256.Sum256([]byte(sent))
			if n := len(utf16.Encode([]rune(sent))); n != tc.jsonLen || hex.EncodeToString(sum[:]) != tc.jsonSHA {
				t.Errorf("JSON.stringify of the cut result: %d units, sha256 %x; Cline's: %d, %s", n, sum, tc.jsonLen, tc.jsonSHA)
			}
			// the facts, as `correx show` gives them: the pieces cover the
			// text, and the full output is the stored result
			call := &model.ToolCall{CallID: "c", Tool: "run_commands", Status: model.StatusCompleted, Output: resultText(v), Sent: &model.ToolResultValue{Type: model.ResultText, Text: sent}}
			tr := formatters.Visible(call, nil).Truncation
			if tr == nil || tr.Kind != KindSent || len(tr.Markers) != 1 || len(tr.Seen) != 2 || tr.SeenBytes == 0 {
				t.Fatalf("truncation %+v", tr)
			}
			if tr.FullBytes == nil || *tr.FullBytes != len(tc.s) || *tr.FullLines != tc.lineCount {
				t.Errorf("full %v bytes %v lines, want %d and %d", tr.FullBytes, tr.FullLines, len(tc.s), tc.lineCount)
			}
			covered := 0
			for _, s := range append(append([]model.Span{}, tr.Markers...), spans(tr)...) {
				covered += s.End - s.Start
			}
			if covered != len(sent) {
				t.Errorf("markers, seen and added cover %d of %d bytes", covered, len(sent))
			}
			for _, r := range tr.Seen {
				var piece string
				if err := json.Unmarshal([]byte(`"`+sent[r.Text.Start:r.Text.End]+`"`), &piece); err != nil || !r.JSONString {
					t.Errorf("seen range %+v is not a JSON string piece: %v", r, err)
				}
			}
		})
	}
}

func spans(tr *model.Truncation) []model.Span {
	var out []model.Span
	for _, r := range tr.Seen {
		out = append(out, r.Text)
	}
	for _, a := range tr.Added {
		out = append(out, a.Span)
	}
	return out
}

func mustJSON(s string) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

// A string result (apply_patch's JSON string) is cut whole; a result under
// the limit is sent as stored and is no truncation.
func TestSendCutStringAndShort(t *testing.T) {
	long := `{"query":"apply_patch","result":"` + strings.Repeat("z", 9000) + `","success":true}`
	v := jsValue{kind: jsString, str: utf16.Encode([]rune(long))}
	sent := resultText(sentContent(v, maxToolResultChars))
	if len(sent) != 8000 || !strings.Contains(sent, "\n\n...[truncated 1082 chars]...\n\n") {
		t.Errorf("string result cut to %d bytes: %q…", len(sent), sent[3970:4030])
	}
	if tr := sentCutFacts(long, sent); tr == nil || tr.Seen[0].JSONString || *tr.FullBytes != len(long) {
		t.Errorf("string cut facts %+v", tr)
	}
	short := `[{"query":"q","result":"ok","success":true}]`
	call := &model.ToolCall{CallID: "c", Tool: "read_files", Status: model.StatusCompleted, Output: short, Sent: &model.ToolResultValue{Type: model.ResultText, Text: short}}
	if tr := formatters.Visible(call, nil).Truncation; tr != nil {
		t.Errorf("an uncut result is a truncation: %+v", tr)
	}
}

// run_commands' stored cut, when the text shows its note (a raised
// CLINE_MESSAGE_BUILDER_MAX_TOOL_RESULT_CHARS): its marker, full size
// unknown.
func TestStoredCutNote(t *testing.T) {
	text := `[{"query":"seq 1 10000","result":"1\n2\n[... output truncated: 48894 chars total. Refine the command (grep, head, tail) to view the elided middle ...]\n9999\n10000\n","success":true}]`
	v := formatters.Visible(&model.ToolCall{CallID: "c", Tool: "run_commands", Status: model.StatusCompleted, Output: text, Sent: &model.ToolResultValue{Type: model.ResultText, Text: text}}, nil)
	tr := v.Truncation
	if tr == nil || tr.Kind != KindOutput || len(tr.Markers) != 1 || tr.FullBytes != nil || tr.FullUnknown == "" {
		t.Fatalf("truncation %+v", tr)
	}
	if got := text[tr.Markers[0].Start:tr.Markers[0].End]; !strings.HasPrefix(got, `\n[... output truncated: 48894 chars total.`) {
		t.Errorf("marker %q", got)
	}
	// the Pipeline says which cut the stored stage already holds
	if formatters.CutWhenSent(KindOutput) || !formatters.CutWhenSent(KindSent) {
		t.Error("the send-time cut must be registered as made when sent, the stored cut not")
	}
}

func TestNormalizeUserInput(t *testing.T) {
	for in, want := range map[string]string{
		`<user_input mode="act">Run it.</user_input>`:                "Run it.",
		"  <user_input mode=\"plan\">\n two\nlines \n</user_input> ": "two\nlines",
		`<user_input mode="act">unclosed`:                            "unclosed",
		"plain text":                                                 "plain text",
		`<user_command slash="x">go</user_command>`:                  "go",
	} {
		if got := normalizeUserInput(in); got != want {
			t.Errorf("normalizeUserInput(%q) = %q, want %q", in, got, want)
		}
	}
}

// fixtureSession copies the recorded session's files into a fresh Cline
// data root under dir and returns the session's id.
func fixtureSession(t *testing.T, root string) string {
	t.Helper()
	src, _ := filepath.Glob("../../testdata/cline/cline/data/data/sessions/*")
	if len(src) == 0 {
		t.Fatal("no recorded Cline fixture")
	}
	id := filepath.Base(src[0])
	dst := filepath.Join(root, "data", "sessions", id)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{id + ".json", id + messagesSuffix} {
		b, err := os.ReadFile(filepath.Join(src[0], name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// Discovery: $CLINE_SESSION_DATA_DIR, $CLINE_DATA_DIR, $CLINE_DIR and
// ~/.cline; and every path Open takes (the root, data/, data/sessions/,
// one session dir, one messages.json) lists the session.
func TestDiscoveryAndOpen(t *testing.T) {
	root := t.TempDir()
	id := fixtureSession(t, root)
	sessDir := filepath.Join(root, "data", "sessions")
	for _, env := range []struct{ key, val string }{
		{"CLINE_SESSION_DATA_DIR", sessDir},
		{"CLINE_DATA_DIR", filepath.Join(root, "data")},
		{"CLINE_DIR", root},
		{"HOME", filepath.Dir(root)},
	} {
		t.Run(env.key, func(t *testing.T) {
			for _, k := range []string{"CLINE_SESSION_DATA_DIR", "CLINE_DATA_DIR", "CLINE_DIR"} {
				t.Setenv(k, "")
			}
			home := t.TempDir()
			t.Setenv("HOME", home)
			if env.key == "HOME" {
				if err := os.Rename(root, filepath.Join(home, ".cline")); err != nil {
					t.Fatal(err)
				}
				defer os.Rename(filepath.Join(home, ".cline"), root)
				sessDir := filepath.Join(home, ".cline", "data", "sessions")
				if got := locations(); len(got) != 1 || got[0] != sessDir {
					t.Errorf("locations with ~/.cline: %q", got)
				}
				return
			}
			t.Setenv(env.key, env.val)
			if got := locations(); len(got) != 1 || got[0] != sessDir {
				t.Errorf("locations with %s: %q, want %s", env.key, got, sessDir)
			}
		})
	}
	for _, p := range []string{root, filepath.Join(root, "data"), sessDir, filepath.Join(sessDir, id), filepath.Join(sessDir, id, id+messagesSuffix)} {
		st, err := sessions.Open(p)
		if err != nil {
			t.Fatalf("open %s: %v", p, err)
		}
		list, err := st.List(context.Background())
		st.Close()
		if err != nil || len(list) != 1 || list[0].ID != id || list[0].Agent != Agent {
			t.Errorf("open %s: %+v, %v", p, list, err)
		}
	}
	if _, ok, _ := open(filepath.Join(root, "data"), false); ok {
		t.Error("a file not named <id>.messages.json was claimed")
	}
}

// A damaged messages.json is skipped with one warning naming it; the other
// sessions still list, and loading it names the file and the problem.
func TestDamagedMessagesJSON(t *testing.T) {
	root := t.TempDir()
	fixtureSession(t, root)
	bad := filepath.Join(root, "data", "sessions", "1700000000000_bad00", "1700000000000_bad00"+messagesSuffix)
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"version":1,"messages":[{"id":"x"`), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := sessions.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(context.Background())
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %d sessions, %v", len(list), err)
	}
	ws := sessions.Warnings(st)
	if len(ws) != 1 || !strings.Contains(ws[0], bad) || !strings.Contains(ws[0], "not Cline's messages.json") {
		t.Errorf("warnings %q, want one naming %s", ws, bad)
	}
	if _, err := st.Load(context.Background(), "1700000000000_bad00"); err == nil {
		t.Error("loading the damaged session gave no error")
	}
}
