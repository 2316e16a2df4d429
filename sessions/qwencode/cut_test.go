package qwencode

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/model"
	"correx/sessions"
)

// TestDecodeLineIsUnmarshal: decodeLine gives what json.Unmarshal gives
// (the value, or an error) on every recorded line, and on each cut short
// or with a bad byte put in its toolCallResult.
func TestDecodeLineIsUnmarshal(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/qwen-code/*/data/projects/*/*/*.jsonl")
	files2, _ := filepath.Glob("../../testdata/qwen-code/*/data/projects/*/*/*/*.jsonl")
	checked := 0
	for _, f := range append(files, files2...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, ln := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			variants := [][]byte{ln, ln[:len(ln)/2], ln[:len(ln)-1], append(append([]byte{}, ln...), '}')}
			if i := bytes.Index(ln, []byte(`"resultDisplay":`)); i >= 0 {
				for _, bad := range []string{`"\x01`, `"\q`, `"\u12`, `tru`, `[1,]`, `{"a" 1}`} {
					v := append(append(append([]byte{}, ln[:i+16]...), bad...), ln[i+16:]...)
					variants = append(variants, v)
				}
			}
			for _, v := range variants {
				var want, got line
				werr := json.Unmarshal(v, &want)
				gerr := decodeLine(v, &got)
				if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
					t.Errorf("%s: %.60q…: Unmarshal %v, decodeLine %v", f, v, werr, gerr)
				} else if werr == nil && !reflect.DeepEqual(want, got) {
					t.Errorf("%s: %.60q…: decoded differently", f, v)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no recorded line")
	}
}

// TestCutTextIsTheLineDecoded: on every recorded line, each function
// response's result read from the line cut down (cutText, every line cut)
// is the result read from the whole line, and the cut is taken on the
// lines of results.
func TestCutTextIsTheLineDecoded(t *testing.T) {
	defer func(n int) { cutBytes = n }(cutBytes)
	cutBytes = 0
	files, _ := filepath.Glob("../../testdata/qwen-code/*/data/projects/*/*/*.jsonl")
	files2, _ := filepath.Glob("../../testdata/qwen-code/*/data/projects/*/*/*/*.jsonl")
	cuts := 0
	for _, f := range append(files, files2...) {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, ln := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var l line
			if json.Unmarshal(ln, &l) != nil {
				continue
			}
			parts, _ := partsOf(l.Message)
			for _, p := range parts {
				if p.FunctionResponse == nil {
					continue
				}
				id := p.FunctionResponse.ID
				want, ok := resultIn(model.ToolCall{}, ln, id, nil)
				require.True(t, ok, "%s: %s", f, id)
				small, cut := cutText(ln, id)
				if cut == nil {
					continue
				}
				got, ok := resultIn(model.ToolCall{}, small, id, cut)
				require.True(t, ok, "%s: %s", f, id)
				require.Equal(t, want, got, "%s: %s", f, id)
				require.Less(t, len(small), len(ln))
				cuts++
			}
		}
	}
	require.Greater(t, cuts, 20, "results read from a line cut down")
}

// TestOutputReadsResultsWithoutDisplays: on every recorded session, every
// call's output read again from its line (its toolCallResult's strings
// left unread, its text cut out of what is decoded) is the call of the
// session read whole.
func TestOutputReadsResultsWithoutDisplays(t *testing.T) {
	defer func(n, m, e int) { cutBytes, sessions.LeaveBytes, elideBytes = n, m, e }(cutBytes, sessions.LeaveBytes, elideBytes)
	cutBytes, sessions.LeaveBytes, elideBytes = 0, 2, 0
	files, _ := filepath.Glob("../../testdata/qwen-code/*/data/projects/*/*/*.jsonl")
	outputs, unread := 0, 0
	for _, f := range files {
		whole, err := read(f)
		require.NoError(t, err)
		want := map[string]*model.ToolCall{}
		for _, r := range whole.ToolCalls() {
			want[whole.Messages[r.Message].Parts[r.Part].ID] = r.Call
		}
		r := newReader(f, func(int, string, ...any) {}, true)
		x := sessions.NewLineIndex(f)
		_, err = x.Scan(context.Background(), nil, func(l sessions.Line, b []byte, last bool) bool {
			r.Line(l, b, last)
			return true
		}, func(int, string, ...any) {})
		require.NoError(t, err)
		outline, err := r.Session()
		require.NoError(t, err)
		for _, ref := range outline.ToolCalls() {
			if !ref.Call.Elided {
				continue
			}
			id := outline.Messages[ref.Message].Parts[ref.Part].ID
			got, err := r.Output(id, x.Read)
			require.NoError(t, err, "%s: %s", f, id)
			w := *want[id]
			w.ChildSessionID = got.ChildSessionID // linked by the store, not read from the line
			require.Equal(t, &w, got, "%s: %s", f, id)
			outputs++
		}
		for _, d := range r.drops {
			unread += len(d)
		}
	}
	require.Greater(t, outputs, 10, "outputs read again")
	require.Greater(t, unread, 10, "strings left unread")
}

// FuzzMessageParts: messageParts gives what json.Unmarshal gives (the
// parts and role, and whether it fails), seeded with every recorded
// line's message.
func FuzzMessageParts(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/qwen-code/*/data/projects/*/*/*.jsonl")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, ln := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var l struct {
				Message json.RawMessage `json:"message"`
			}
			if json.Unmarshal(ln, &l) == nil && l.Message != nil {
				f.Add([]byte(l.Message))
			}
		}
	}
	for _, s := range []string{`{"parts":null}`, `{"parts":[null,{"text":null,"thought":1}]}`, `{"Parts":[]}`, `{"role":"model","role":"user"}`,
		`{"role":2,"parts":[{"text":"a"}]}`, `{"parts":[{"functionCall":{"id":"c","args":null}},{"functionResponse":{"response":{"output":"x"},"parts":[{"inlineData":{"data":"AA=="}}]}}]}`,
		`{"parts":[{"functionCall":[]}]}`, `[1]`, `{"parts":[{"text":"\u00e9\ud83d"}]} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want struct {
			Role  string `json:"role"`
			Parts []part `json:"parts"`
		}
		werr := json.Unmarshal(raw, &want)
		var role string
		got, err := messageParts(raw, &role)
		if (err == nil) != (werr == nil) || role != want.Role || !reflect.DeepEqual(got, want.Parts) {
			t.Fatalf("%q: %q %+v (%v), want %q %+v (%v)", raw, role, got, err, want.Role, want.Parts, werr)
		}
		var only struct {
			Parts []part `json:"parts"`
		}
		werr = json.Unmarshal(raw, &only)
		got, err = messageParts(raw, nil)
		if (err == nil) != (werr == nil) || !reflect.DeepEqual(got, only.Parts) {
			t.Fatalf("%q without role: %+v (%v), want %+v (%v)", raw, got, err, only.Parts, werr)
		}
	})
}

// FuzzSentString: sentString finds what decoding the response into a map
// finds.
func FuzzSentString(f *testing.F) {
	for _, s := range []string{`{"output":"a"}`, `{"error":"e","output":1}`, `{"output":null}`, `{"Output":"x","output":"y"}`,
		`{"output":"a","output":"b"}`, `"s"`, `null`, `[1]`, `{"error":"\u00e9"}`, `{"output":{"x":1},"error":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, resp []byte) {
		wantKey, want := "", ""
		var m map[string]json.RawMessage
		if json.Unmarshal(resp, &m) == nil {
			for _, k := range []string{"output", "error"} {
				var s string
				if json.Unmarshal(m[k], &s) == nil && m[k] != nil {
					wantKey, want = k, s
					break
				}
			}
		}
		if k, s := sentString(resp); k != wantKey || s != want {
			t.Fatalf("%q: %q %q, want %q %q", resp, k, s, wantKey, want)
		}
	})
}

// FuzzElidedCall: elidedCall reads an entry as decoding it does.
func FuzzElidedCall(f *testing.F) {
	for _, s := range []string{string(elidedStored("call_1")), string(elidedStored(`a"\é`)), `{"role":"user","qwen_elided":"a","qwen_elided":"b"}`,
		`{"role":"user","qwen_elided":null}`, `{"role":"user","qwen_elided":"a"}}`, `{"role":"model","parts":[]}`, `{"qwen_elided":"x"} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want := ""
		if bytes.Contains(raw, []byte(`"qwen_elided"`)) {
			var v struct {
				Elided string `json:"qwen_elided"`
			}
			_ = json.Unmarshal(raw, &v)
			want = v.Elided
		}
		if got := elidedCall(raw); got != want {
			t.Fatalf("%q: %q, want %q", raw, got, want)
		}
	})
}
