package qwencode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
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
