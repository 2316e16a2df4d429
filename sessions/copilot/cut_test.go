package copilot

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnmarshalCutIsUnmarshal: every recorded line, and each with its
// result content changed into what the cut must not take (escapes, a
// folded or repeated name, another type), decodes by unmarshalCut (every
// line cut) as by json.Unmarshal; the cut is taken on the completions.
func TestUnmarshalCutIsUnmarshal(t *testing.T) {
	defer func(n int) { cutBytes = n }(cutBytes)
	cutBytes = 0
	files, _ := filepath.Glob("../../testdata/copilot/*/data/session-state/*/events.jsonl")
	require.NotEmpty(t, files)
	cut := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, ln := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			variants := [][]byte{ln, ln[:len(ln)/2]}
			if i := bytes.Index(ln, []byte(`"content":"`)); i >= 0 {
				for _, edit := range [][2]string{{`"content":"`, `"content":"\u00e9\n\"`}, {`"content":"`, `"Content":"`},
					{`"content":"`, `"content":"x","content":"`}, {`"content":"`, `"content":1,"x":"`}, {`"content":"`, `"content":"\x01`}} {
					variants = append(variants, bytes.Replace(ln, []byte(edit[0]), []byte(edit[1]), 1))
				}
			}
			for _, v := range variants {
				var want, got typedEvent[completeData]
				werr := json.Unmarshal(v, &want)
				gerr := unmarshalCut(v, &got, func() *string { return &got.Data.Result.Content })
				require.Equal(t, werr == nil, gerr == nil, "%s: %.80q", f, v)
				if werr == nil {
					require.Equal(t, want, got, "%s: %.80q", f, v)
				}
				if _, _, ok := resultContent(v); ok {
					cut++
				}
			}
		}
	}
	require.Greater(t, cut, 10, "lines cut")
}
