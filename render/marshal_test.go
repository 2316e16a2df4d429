package render

import (
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
