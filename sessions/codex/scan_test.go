package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"correx/formatters"
)

// scanCorpus is every line of the Codex fixtures, with damaged copies of
// some, and tricky strings.
func scanCorpus(t *testing.T) [][]byte {
	var corpus [][]byte
	for _, src := range codexFixtures(t) {
		files, _ := filepath.Glob(filepath.Join(src, "sessions", "*", "*", "*", "rollout-*.jsonl"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, l := range bytes.Split(b, []byte("\n")) {
				corpus = append(corpus, l)
				if i%5 == 0 && len(l) > 10 {
					for _, cut := range []int{1, len(l) / 3, len(l) / 2, len(l) - 1} {
						corpus = append(corpus, l[:cut], append(append([]byte(nil), l[:cut]...), l[cut+1:]...))
					}
				}
			}
		}
	}
	for _, s := range []string{
		`"plain"`, `"a\nb\tc\"d\\e\/f\bg\fh"`, `"\u001b\u0000\u001f"`, `"\u001B"`, `"\u0008"`, `"\u0020"`, `"\u007f"`, `"\u00e9"`, `"\u0041"`, `"\u2028"`, "\"\u2028\"",
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`, "\"\xff\xfe\"", "\"\ufffd\"", `"\x"`, `"\u12"`, "\"a\x01b\"",
		`{"a":1,"b":[1,-2.5e+3,true,false,null,{}],"c":{"d":[]}}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":1e}`, `{"a" :1 , "b":2 }`,
		`{"a":1,}`, `[1,]`, `{"a"}`, `{,}`, ` {"a":"b"} `, `{"a":"b"} x`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		`{"type":"x","TYPE":"y"}`, `{"t\u0079pe":"x"}`, `{"payload":null}`, `{"type":"function_call_output","call_id":"c","output":"x","internal_chat_message_metadata_passthrough":{"a":1}}`,
		`{"internal_chat_message_metadata_passthrough":1,"type":"function_call_output","a<b":2,"output":"y"}`, `{"type": "message", "output":"z"}`, `nul`, `tru`, `{"a":truex}`,
	} {
		corpus = append(corpus, []byte(s))
	}
	return corpus
}

// TestScanIsEncodingJSON: the scanner finds valid exactly what
// encoding/json finds valid, and reads lines, items, events and strings as
// json.Unmarshal does; a string it calls canonical is how Stringify
// writes its text.
func TestScanIsEncodingJSON(t *testing.T) {
	for _, line := range scanCorpus(t) {
		s := &jsonScan{b: line}
		i := s.skipSpace(0)
		end, ok := s.value(i)
		ok = ok && s.skipSpace(end) == len(line)
		if ok != json.Valid(line) {
			t.Errorf("valid %v, encoding/json says %v: %.200q", ok, !ok, line)
		}
		var env envelope
		errJSON := json.Unmarshal(line, &env)
		got, err := readEnvelope(line)
		if (err == nil) != (errJSON == nil) || err == nil && (got.Type != env.Type || got.Timestamp != env.Timestamp || !bytes.Equal(got.Payload, env.Payload)) {
			t.Errorf("envelope %+v %v, encoding/json %+v %v: %.200q", got, err, env, errJSON, line)
		}
		for _, payload := range [][]byte{line, env.Payload} {
			if !json.Valid(payload) {
				continue // readItem and readEvent read an envelope's payload
			}
			var it codexItem
			errJSON := json.Unmarshal(payload, &it)
			got, err := readItem(payload)
			if err == nil && errJSON == nil {
				for _, elided := range []bool{false, got.outputs == 1} {
					if a, b := storedItem(payload, got, elided), storedItem(payload, codexItem{}, elided); !bytes.Equal(a, b) {
						t.Errorf("stored item %s, the general path's %s", a, b)
					}
				}
			}
			got.compact, got.rolloutOnly, got.outputs, got.members = false, false, 0, nil
			if (err == nil) != (errJSON == nil) || err == nil && !equalJSON(got, it) {
				t.Errorf("item %+v %v, encoding/json %+v %v: %.200q", got, err, it, errJSON, payload)
			}
			var ev event
			_ = json.Unmarshal(payload, &ev)
			if readEvent(payload) != ev {
				t.Errorf("event %+v, encoding/json %+v: %.200q", readEvent(payload), ev, payload)
			}
		}
		var it codexItem
		_ = json.Unmarshal(env.Payload, &it)
		for _, str := range [][]byte{line, it.Output} {
			if len(str) < 2 || str[0] != '"' || !json.Valid(str) {
				continue
			}
			var want string
			_ = json.Unmarshal(str, &want)
			text, canonical := unquote(str)
			b, _ := formatters.Stringify(want)
			if text != want || canonical != bytes.Equal(b, str) {
				t.Errorf("unquote %q canonical %v, encoding/json %q (Stringify %s): %s", text, canonical, want, b, str)
			}
		}
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
