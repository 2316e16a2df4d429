package jsonskim

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

var texts = []string{
	`{}`, ` { "a" : 1 , "b":[1,{"c":"x\"y\\"}], "d": "\\\\\"" } `, `{"a":{"b":{"c":[[],[{}]]}}}`,
	`{"k":"é\u00e9","n":null,"t":true,"f":-1.5e3}`, `[]`, `[1, "two", {"three": [3]}, null]`,
}

// TestSpansAreEncodingJSONs: on valid JSON every member and element span
// is the value encoding/json finds there.
func TestSpansAreEncodingJSONs(t *testing.T) {
	for _, s := range texts {
		b := []byte(s)
		var obj map[string]json.RawMessage
		if json.Unmarshal(b, &obj) == nil {
			got := map[string]json.RawMessage{}
			require.True(t, Members(b, func(k, v []byte) bool {
				var key string
				require.NoError(t, json.Unmarshal(k, &key))
				got[key] = v
				return true
			}), s)
			require.Equal(t, obj, got, s)
			require.False(t, Elements(b, nil), s)
			continue
		}
		var arr []json.RawMessage
		require.NoError(t, json.Unmarshal(b, &arr), s)
		var got []json.RawMessage
		require.True(t, Elements(b, func(v []byte) bool { got = append(got, v); return true }), s)
		if len(arr) == 0 {
			arr = nil
		}
		require.Equal(t, arr, got, s)
		require.False(t, Members(b, nil), s)
	}
}

// TestNamed: the named members' values; no for a duplicate or a key
// encoding/json would also take.
func TestNamed(t *testing.T) {
	vals, ok := Named([]byte(`{"a":1,"b":"x","c":[2]}`), "c", "z", "a")
	require.True(t, ok)
	require.Equal(t, [][]byte{[]byte(`[2]`), nil, []byte(`1`)}, vals)
	for _, s := range []string{`{"a":1,"a":2}`, `{"A":1}`, `{"\u0061":1}`, `[1]`} {
		_, ok := Named([]byte(s), "a")
		require.False(t, ok, s)
	}
}

// TestSaysNo: what is not one whole object or array, or what f stops.
func TestSaysNo(t *testing.T) {
	for _, s := range []string{``, `{`, `{"a"}`, `{"a":1,}`, `{"a":1} x`, `{"a":"b}`, `[1,]`, `[1 2]`, `"s"`, `{"a":}`} {
		require.False(t, Members([]byte(s), nil), s)
		require.False(t, Elements([]byte(s), nil), s)
	}
	require.False(t, Members([]byte(`{"a":1,"b":2}`), func(k, _ []byte) bool { return string(k) != `"b"` }))
}

// FuzzSkim: never a panic, and on valid JSON the spans are valid JSON.
func FuzzSkim(f *testing.F) {
	for _, s := range texts {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		valid := json.Valid(b)
		check := func(v []byte) bool {
			if valid && !json.Valid(v) {
				t.Fatalf("span %q of %q is not JSON", v, b)
			}
			return true
		}
		Members(b, func(k, v []byte) bool { return check(k) && check(v) })
		Elements(b, check)
	})
}
