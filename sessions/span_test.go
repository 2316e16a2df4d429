package sessions

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/internal/jsonskim"
)

// TestReadWithoutLeavesWhatTheScanFound: a line read without the strings
// SpansOf and DroppedSpans found on it holds each as "", a Leave puts
// placeholders in the places of the first and the writers copy them from
// the file, the reader drops the others (never left); a line whose
// strings are too few to skip is read whole; a file changed under the
// spans is named, by the read or by the write.
func TestReadWithoutLeavesWhatTheScanFound(t *testing.T) {
	defer func(n int) { LeaveBytes = n }(LeaveBytes)
	LeaveBytes = 8
	long := strings.Repeat("x", 40)
	line := `{"a":"` + long + `","b":[1,"short","` + long + `\n"],"c":"` + long + `","d":"` + long + `"}`
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("{}\n"+line+"\n"), 0o644))
	l := Line{N: 2, Off: 3, Len: len(line)}
	data := []byte(line)
	// the strings of a and b, not c's
	strs := func(b []byte) func(func([]byte)) {
		return func(each func([]byte)) {
			vals, ok := jsonskim.Named(b, "a", "b")
			require.True(t, ok)
			each(vals[0])
			jsonskim.Elements(vals[1], func(e []byte) bool { each(e); return true })
		}
	}
	spans := SpansOf(l, data, strs(data))
	require.Len(t, spans, 2, "a's and b's long strings; b's short one is below LeaveBytes")
	d := func(b []byte) []byte {
		vals, _ := jsonskim.Named(b, "d")
		return vals[0]
	}
	drop := DroppedSpans(l, data, func(each func([]byte)) { each(d(data)) })
	require.Len(t, drop, 1)

	r := LinesAt{Path: p}
	defer r.Close()
	lr, err := r.ReadWithout(l, spans, drop)
	require.NoError(t, err)
	assert.Equal(t, `{"a":"","b":[1,"short",""],"c":"`+long+`","d":""}`, string(lr.Data))
	assert.False(t, lr.Whole(lr.Data), "nothing left yet")

	var bodies []func(context.Context, func(string) error) error
	lv := &Leaver{Spans: &SpanFile{Path: p}, Place: func(body func(context.Context, func(string) error) error) string {
		bodies = append(bodies, body)
		return "P"
	}}
	defer lv.Spans.Close()
	out, left := lv.Leave(lr, lr.Data, func(each func([]byte)) { strs(lr.Data)(each); each(d(lr.Data)) })
	require.True(t, left)
	assert.False(t, lr.Whole(lr.Data), "d is not one to leave")
	assert.False(t, lr.Drop(func() []byte { v, _ := jsonskim.Named(lr.Data, "a"); return v[0] }()), "a is not one to drop")
	assert.True(t, lr.Drop(d(lr.Data)))
	assert.True(t, lr.Whole(lr.Data))
	assert.Equal(t, `{"a":"P","b":[1,"short","P"],"c":"`+long+`","d":""}`, string(out))
	var got []string
	for _, body := range bodies {
		var b strings.Builder
		require.NoError(t, body(context.Background(), func(s string) error { b.WriteString(s); return nil }))
		got = append(got, b.String())
	}
	assert.Equal(t, []string{long, long + `\n`}, got, "each copied from the file as it lies")

	// c's string, read, is left from what was read, at its place in the file
	bodies = nil
	out, _ = lv.Leave(lr, lr.Data, func(each func([]byte)) {
		vals, _ := jsonskim.Named(lr.Data, "c")
		each(vals[0])
	})
	assert.Equal(t, `{"a":"","b":[1,"short",""],"c":"P","d":""}`, string(out))
	var c bytes.Buffer
	require.NoError(t, bodies[0](context.Background(), func(s string) error { c.WriteString(s); return nil }))
	assert.Equal(t, long, c.String())

	// too little to skip: read whole, nothing read without
	LeaveBytes = 1 << 10
	lr, err = r.ReadWithout(l, spans, drop)
	require.NoError(t, err)
	assert.Equal(t, line, string(lr.Data))
	assert.True(t, lr.Whole(lr.Data))
	LeaveBytes = 8

	// the file changed: a quote moved, or a string's bytes
	require.NoError(t, os.WriteFile(p, []byte("{}\n"+strings.Replace(line, `"a":"`, `"a": "`, 1)+"\n"), 0o644))
	require.NoError(t, r.Close())
	_, err = r.ReadWithout(l, spans, drop)
	assert.ErrorContains(t, err, p+":2: the file changed since it was read")
	require.NoError(t, os.WriteFile(p, []byte("{}\n"+strings.Replace(line, "x", "y", 1)+"\n"), 0o644))
	require.NoError(t, r.Close())
	lr, err = r.ReadWithout(l, spans, drop)
	require.NoError(t, err, "the quotes are where they were")
	bodies = nil
	lv.Leave(lr, lr.Data, strs(lr.Data))
	require.NoError(t, lv.Spans.Close())
	err = bodies[0](context.Background(), func(string) error { return nil })
	assert.ErrorContains(t, err, p+": the file changed since it was read")
}

// TestReadWithoutDropsObjectsAndArrays: an object or array DroppedSpans
// found is read as {} or [], which the reader drops; one that is not
// whole is not taken, and brackets that moved are named.
func TestReadWithoutDropsObjectsAndArrays(t *testing.T) {
	defer func(n int) { LeaveBytes = n }(LeaveBytes)
	LeaveBytes = 8
	long := strings.Repeat("x", 4<<10)
	line := `{"e":{"k":["` + long + `",1]},"f":[{"g":"` + long + `"}],"h":2}`
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(line+"\n"), 0o644))
	l := Line{N: 1, Off: 0, Len: len(line)}
	vals := func(b []byte) [][]byte {
		v, ok := jsonskim.Named(b, "e", "f")
		require.True(t, ok)
		return v
	}
	data := []byte(line)
	drop := DroppedSpans(l, data, func(each func([]byte)) {
		for _, v := range vals(data) {
			each(v)
		}
		each(data[1:8]) // no value: not taken
	})
	require.Len(t, drop, 2)

	r := LinesAt{Path: p}
	defer r.Close()
	lr, err := r.ReadWithout(l, nil, drop)
	require.NoError(t, err)
	assert.Equal(t, `{"e":{},"f":[],"h":2}`, string(lr.Data))
	assert.False(t, lr.Whole(lr.Data))
	for _, v := range vals(lr.Data) {
		assert.True(t, lr.Drop(v))
	}
	assert.True(t, lr.Whole(lr.Data))

	// the object's closing brace is now a bracket
	changed := strings.Replace(line, `,1]},"f"`, `,1]],"f"`, 1)
	require.NoError(t, os.WriteFile(p, []byte(changed+"\n"), 0o644))
	require.NoError(t, r.Close())
	_, err = r.ReadWithout(l, nil, drop)
	assert.ErrorContains(t, err, p+":1: the file changed since it was read")
}
