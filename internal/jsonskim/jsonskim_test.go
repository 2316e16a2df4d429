package jsonskim

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

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

// TestStrings: every string value at any depth, in order, keys not.
func TestStrings(t *testing.T) {
	var got []string
	require.True(t, Strings([]byte(` {"a":"x","b":[1,"y\"",{"c":"z"}],"d":null} `), func(s []byte) { got = append(got, string(s)) }))
	require.Equal(t, []string{`"x"`, `"y\""`, `"z"`}, got)
	for _, s := range []string{``, `{"a":"x"`, `["x",]`, `"x`} {
		require.False(t, Strings([]byte(s), func([]byte) {}), s)
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

// FuzzFolded: a key encoding/json takes for a field named name, other
// than name itself, is one Folded says it may take.
func FuzzFolded(f *testing.F) {
	for _, s := range [][2]string{{"a", "A"}, {"k", "\u212a"}, {"s", "\u017f"}, {"ab", "aB"}, {"skip", "\u017fKIP"}, {"x", "y"}, {"id", "ID"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, key string) {
		for _, c := range []byte(name) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
				return
			}
		}
		if name == "" || !utf8.ValidString(key) {
			return
		}
		typ := reflect.StructOf([]reflect.StructField{{Name: "F", Type: reflect.TypeOf(0), Tag: reflect.StructTag(`json:"` + name + `"`)}})
		kq, err := json.Marshal(key)
		require.NoError(t, err)
		v := reflect.New(typ)
		if json.Unmarshal([]byte(`{`+string(kq)+`:1}`), v.Interface()) != nil {
			return
		}
		if v.Elem().Field(0).Int() == 1 && key != name {
			require.True(t, Folded(kq, name), "encoding/json takes %s for %q", kq, name)
		}
	})
}
