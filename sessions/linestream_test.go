package sessions

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/model"
)

// TestStreamOutput: an output's JSON string is copied as it lies only
// when its escapes are formatters.Stringify's; else it is decoded (and
// encoded again for a JSON streamer), and a call not left out is written
// from its text.
func TestStreamOutput(t *testing.T) {
	collect := func(text func(string, func(string) error) error, field string) (string, error) {
		var b strings.Builder
		err := text(field, func(s string) error { b.WriteString(s); return nil })
		return b.String(), err
	}
	call := &model.ToolCall{CallID: "c1"}
	for _, c := range []struct{ str, text, body string }{
		{`"a\nb\u001f\"é"`, "a\nb\x1f\"é", `a\nb\u001f\"é`}, // canonical: copied
		{`"a\/b\u0041\u00e9"`, "a/bAé", `a/bAé`},            // escapes Stringify does not write
		{`"\u2028\ud83d\ude00"`, "\u2028😀", "\u2028😀"},      // JSON.stringify leaves these
		{`"\u001F"`, "\x1f", `\u001f`},                      // upper-case hex
	} {
		got, err := collect(StreamOutput(call, []byte(c.str), false), "output")
		require.NoError(t, err)
		require.Equal(t, c.text, got, c.str)
		got, err = collect(StreamOutput(call, []byte(c.str), true), "output")
		require.NoError(t, err)
		require.Equal(t, c.body, got, c.str)
	}
	_, err := collect(StreamOutput(call, []byte(`"x"`), true), "error")
	require.Error(t, err, "only the output is left in the file")
	_, err = collect(StreamOutput(call, []byte(`"\x"`), false), "output")
	require.Error(t, err, "not a JSON string")
	whole := &model.ToolCall{CallID: "c2", Output: "o\n", Error: "e\t"}
	got, err := collect(StreamOutput(whole, nil, true), "error")
	require.NoError(t, err)
	require.Equal(t, `e\t`, got)
	got, err = collect(StreamOutput(whole, nil, false), "output")
	require.NoError(t, err)
	require.Equal(t, "o\n", got)
}
