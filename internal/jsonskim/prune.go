package jsonskim

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// Prune appends to dst the JSON value b (valid JSON, as Valid checks it)
// without the members encoding/json skips when it decodes b into a value
// of type t: at every depth t's structs reach (through pointers, slices
// and arrays), a member whose key names no field, exactly or as Folded
// says encoding/json may take it, is left out, and a value of any other
// type is kept whole. json.Unmarshal of what Prune gives fills a t as
// b does, checking and skipping only what it keeps: an event's members
// that a reader does not read are most of its bytes. ok false when the
// skim cannot vouch for b (decode b itself). FuzzPrune checks it against
// encoding/json.
func Prune(dst, b []byte, t reflect.Type) ([]byte, bool) { return PruneCut(dst, b, t, nil) }

// PruneCut is Prune with the value at span cut (a span of b a skim gave,
// a member's or an element's value), when Prune meets it, written as ""
// (a string the caller decodes apart, not copied to be skipped).
func PruneCut(dst, b []byte, t reflect.Type, cut []byte) ([]byte, bool) {
	if len(cut) > 0 && len(b) == len(cut) && &b[0] == &cut[0] {
		return append(dst, `""`...), true
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	i := space(b, 0)
	if i == len(b) {
		return dst, false
	}
	switch fs := fieldsOf(t); {
	case fs != nil && b[i] == '{':
		dst = append(dst, '{')
		first := true
		ok := Members(b, func(k, v []byte) bool {
			ft, keep := fs.match(k)
			if !keep {
				return true
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(append(dst, k...), ':')
			var ok bool
			dst, ok = PruneCut(dst, v, ft, cut)
			return ok
		})
		return append(dst, '}'), ok
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && b[i] == '[' && fieldsOf(deref(t.Elem())) != nil:
		dst = append(dst, '[')
		first := true
		ok := Elements(b, func(v []byte) bool {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			var ok bool
			dst, ok = PruneCut(dst, v, t.Elem(), cut)
			return ok
		})
		return append(dst, ']'), ok
	}
	return append(dst, b...), true
}

// FieldNames is the JSON names of the fields encoding/json decodes into
// struct type t, as Prune reads them; ok false for a type Prune cannot
// vouch for (fieldsOf).
func FieldNames(t reflect.Type) (names []string, ok bool) {
	fs := fieldsOf(t)
	if fs == nil {
		return nil, false
	}
	return fs.names, true
}

// fields are the members encoding/json decodes into a struct: its
// fields' JSON names and types.
type fields struct {
	names []string
	types []reflect.Type
}

// match is the type to prune a member of key k (quoted, as written) by:
// its field's when k is exactly its name, an empty interface (kept whole)
// when encoding/json may take it for a field otherwise; keep false when it
// names none.
func (fs *fields) match(k []byte) (t reflect.Type, keep bool) {
	if len(k) >= 2 {
		for i, n := range fs.names {
			if len(k) == len(n)+2 && string(k[1:len(k)-1]) == n {
				return fs.types[i], true
			}
		}
	}
	if Folded(k, fs.names...) {
		return anyType, true
	}
	return nil, false
}

var anyType = reflect.TypeFor[any]()

// fieldsOf is the fields of struct type t, nil when t is not a struct
// Prune can vouch for: one that decodes itself (json.Unmarshaler,
// encoding.TextUnmarshaler) or embeds a field (encoding/json promotes its
// fields, with rules Prune does not follow). Kept by type.
func fieldsOf(t reflect.Type) *fields {
	if f, ok := fieldsCache.Load(t); ok {
		return f.(*fields)
	}
	var fs *fields
	if t.Kind() == reflect.Struct && !decodesItself(t) {
		fs = &fields{}
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				fs = nil
				break
			}
			tag := f.Tag.Get("json")
			if !f.IsExported() || tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if name == "" {
				name = f.Name
			}
			if strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
				fs = nil // a name encoding/json may not take as written
				break
			}
			fs.names, fs.types = append(fs.names, name), append(fs.types, f.Type)
		}
	}
	fieldsCache.Store(t, fs)
	return fs
}

var fieldsCache sync.Map // reflect.Type → *fields

// decodesItself tells whether encoding/json hands a t its JSON whole.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(reflect.TypeFor[json.Unmarshaler]()) || p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
}

// deref is t without its pointers.
func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
