package formatters

import (
	"bytes"
	"encoding/json"
	"testing"

	"correx/model"
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

// FuzzAgentFlagged: a metadata's truncated and persistedOutputPath, as
// AgentFlagged skims them, are what encoding/json decodes of a metadata
// that names either exactly.
func FuzzAgentFlagged(f *testing.F) {
	for _, s := range []string{`{"truncated":true,"stdout":"x\"y"}`, `{"truncated":false}`, `{"Truncated":true}`, `{"truncated":"yes"}`,
		`{"truncated":true,"truncated":false}`, `{"persistedOutputPath":"/p","truncated":false}`, `{"persistedOutputPath":1,"truncated":true}`,
		`{"truncated":null}`, `[]`, `{`, `{"x":{"truncated":true}}`, `{"trunc\u0061ted":true}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m struct {
			Truncated           *bool  `json:"truncated"`
			PersistedOutputPath string `json:"persistedOutputPath"`
		}
		if bytes.Contains(b, []byte(`"truncated"`)) || bytes.Contains(b, []byte(`"persistedOutputPath"`)) {
			_ = json.Unmarshal(b, &m)
		}
		want := m.Truncated
		if m.PersistedOutputPath != "" {
			yes := true
			want = &yes
		}
		got := AgentFlagged(&model.ToolCall{Metadata: b})
		if (got == nil) != (want == nil) || got != nil && *got != *want {
			t.Fatalf("%q: %v, want %v", b, fmtBool(got), fmtBool(want))
		}
	})
}

func fmtBool(b *bool) string {
	if b == nil {
		return "nil"
	}
	return map[bool]string{true: "true", false: "false"}[*b]
}
