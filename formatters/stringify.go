package formatters

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Stringify encodes v as compact JSON the way JavaScript's JSON.stringify
// writes it: no HTML escaping, U+2028 and U+2029 raw. Values that implement
// json.Marshaler (json.RawMessage, ordered objects) keep their key order.
func Stringify(v any) ([]byte, error) { return AppendStringify(nil, v) }

// AppendStringify is Stringify into dst's free capacity (dst's bytes are
// not kept), for a caller that encodes many values with one buffer.
func AppendStringify(dst []byte, v any) ([]byte, error) {
	b := bytes.NewBuffer(dst[:0])
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return unescapeLineSeparators(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// unescapeLineSeparators undoes encoding/json's \u2028 and \u2029 escapes,
// which JSON.stringify does not write; an escaped backslash before them
// (an even run of backslashes) leaves them alone.
func unescapeLineSeparators(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u202`)) {
		return b
	}
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+5 < len(b) && string(b[i+1:i+5]) == "u202" && (b[i+5] == '8' || b[i+5] == '9') {
			r := '\u2028'
			if b[i+5] == '9' {
				r = '\u2029'
			}
			out = utf8.AppendRune(out, r)
			i += 5
			continue
		}
		out = append(out, b[i])
		if b[i] == '\\' && i+1 < len(b) { // keep an escape pair whole
			i++
			out = append(out, b[i])
		}
	}
	return out
}

// field is one key of an ordered JSON object.
type field struct {
	key string
	val any
}

// object is a JSON object that keeps its keys in order; nil values are
// left out, as JSON.stringify leaves out undefined.
type object []field

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, f := range o {
		if f.val == nil {
			continue
		}
		if raw, ok := f.val.(json.RawMessage); ok && len(raw) == 0 {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		k, _ := Stringify(f.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := Stringify(f.val)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// stringify is Stringify for values that cannot fail to encode.
func stringify(v any) string {
	b, err := Stringify(v)
	if err != nil {
		return ""
	}
	return string(b)
}
