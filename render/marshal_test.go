package render

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Marshal writes strings as JSON.stringify does: no HTML escapes, U+2028
// and U+2029 raw, everything else escaped as usual.
func TestMarshalLikeJSONStringify(t *testing.T) {
	b, err := Marshal(Obj{{"a", "<b>&\u2028\u2029\\u2028\x1b\"\n"}, {"n", []Value{Obj{{"x", "\u2029"}}}}})
	require.NoError(t, err)
	assert.Equal(t, "{\"a\":\"<b>&\u2028\u2029\\\\u2028\\u001b\\\"\\n\",\"n\":[{\"x\":\"\u2029\"}]}", string(b))
}

// WriteIndent (MarshalIndent) gives json.Indent's bytes over Marshal.
func TestWriteIndentLikeJSONIndent(t *testing.T) {
	values := []Value{
		nil,
		"x\u2028y",
		3.5,
		Obj{},
		Obj(nil),
		[]Value{},
		[]Value(nil),
		Obj{{"a", Obj{}}, {"b", []Value{}}, {"c", []Value(nil)}, {"d", nil}},
		Obj{{"raw", json.RawMessage(` { "k" : [ 1 , { } , [ ] , {"z": "a\u2028 b"} ] } `)}, {"s", "<&>\n\t\"\\\\u2028"}},
		[]Value{Obj{{"x", []Value{Obj{{"y", json.RawMessage(`[]`)}}, true, 1}}}, "last"},
		[]Obj{{{"typed", "slice"}}, {}},
		Obj{{"m", map[string]any{"b": 1, "a": []int{}}}, {"n", json.RawMessage(`"str"`)}, {"e", json.RawMessage(`{}`)}},
	}
	for _, v := range values {
		raw, err := Marshal(v)
		require.NoError(t, err)
		var want bytes.Buffer
		require.NoError(t, json.Indent(&want, raw, "", "  "))
		got, err := MarshalIndent(v)
		require.NoError(t, err)
		assert.Equal(t, want.String(), string(got), "%s", raw)
	}
}
