package formatters

import (
	"encoding/json"
	"testing"
)

// FuzzMetaOutputPath: the skimmed outputPath is the one encoding/json
// decodes.
func FuzzMetaOutputPath(f *testing.F) {
	for _, s := range []string{`{"outputPath":"/a/b","output":"x\"y"}`, `{"OutputPath":"/a"}`, `{"outputPath":1}`,
		`{"outputPath":"a","outputPath":"b"}`, `{"outputPath":"a\u00e9"}`, `[]`, `{`, `{"x":{"outputPath":"no"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m struct {
			OutputPath string `json:"outputPath"`
		}
		_ = json.Unmarshal(b, &m)
		if got := metaOutputPath(b); got != m.OutputPath {
			t.Fatalf("%q: %q, want %q", b, got, m.OutputPath)
		}
	})
}
