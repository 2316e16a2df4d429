package cline

// JSON as Cline's JavaScript sees it: strings are sequences of UTF-16 code
// units (a stored 48k cut may leave a lone surrogate), objects keep their
// key order, and JSON.stringify writes compact text with non-ASCII raw and
// only ", \ and controls below U+0020 escaped (and lone surrogates, as
// \udXXX). Cline's message builder cuts strings by UTF-16 length, so the
// cut is made on code units too.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"correx/model"
)

type jsKind int

const (
	jsNull jsKind = iota
	jsBool
	jsNumber
	jsString
	jsArray
	jsObject
)

// jsValue is one parsed JSON value.
type jsValue struct {
	kind  jsKind
	lit   string   // null, true, false, or a number's literal
	str   []uint16 // a string's code units
	items []jsValue
	keys  [][]uint16 // an object's keys, in order, beside items
	// cut is set on a string the send-time cut shortened
	cut *cutInfo
}

// cutInfo is what the send-time cut did to a string: str holds keep units
// of orig, the marker of marker units, and orig's last keep units.
type cutInfo struct {
	orig         []uint16
	keep, marker int
}

// parseJS parses one JSON document.
func parseJS(b []byte) (jsValue, error) {
	p := jsParser{b: b}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return v, err
	}
	p.space()
	if p.i != len(p.b) {
		return v, fmt.Errorf("unexpected %q at offset %d", p.b[p.i], p.i)
	}
	return v, nil
}

type jsParser struct {
	b []byte
	i int
}

const jsMaxDepth = 512

func (p *jsParser) space() {
	for p.i < len(p.b) && strings.IndexByte(" \t\r\n", p.b[p.i]) >= 0 {
		p.i++
	}
}

func (p *jsParser) value(depth int) (jsValue, error) {
	if depth > jsMaxDepth {
		return jsValue{}, errors.New("nested too deeply")
	}
	if p.i >= len(p.b) {
		return jsValue{}, errors.New("unexpected end of JSON")
	}
	switch c := p.b[p.i]; {
	case c == '"':
		s, err := p.string()
		return jsValue{kind: jsString, str: s}, err
	case c == '[':
		p.i++
		v := jsValue{kind: jsArray, items: []jsValue{}}
		p.space()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return v, nil
		}
		for {
			p.space()
			it, err := p.value(depth + 1)
			if err != nil {
				return v, err
			}
			v.items = append(v.items, it)
			p.space()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == ']' {
				p.i++
				return v, nil
			}
			return v, fmt.Errorf("expected , or ] at offset %d", p.i)
		}
	case c == '{':
		p.i++
		v := jsValue{kind: jsObject}
		p.space()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return v, nil
		}
		for {
			p.space()
			if p.i >= len(p.b) || p.b[p.i] != '"' {
				return v, fmt.Errorf("expected a key at offset %d", p.i)
			}
			k, err := p.string()
			if err != nil {
				return v, err
			}
			p.space()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return v, fmt.Errorf("expected : at offset %d", p.i)
			}
			p.i++
			p.space()
			it, err := p.value(depth + 1)
			if err != nil {
				return v, err
			}
			v.keys, v.items = append(v.keys, k), append(v.items, it)
			p.space()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == '}' {
				p.i++
				return v, nil
			}
			return v, fmt.Errorf("expected , or } at offset %d", p.i)
		}
	default:
		start := p.i
		for p.i < len(p.b) && strings.IndexByte(",]} \t\r\n", p.b[p.i]) < 0 {
			p.i++
		}
		lit := string(p.b[start:p.i])
		switch lit {
		case "null":
			return jsValue{kind: jsNull, lit: lit}, nil
		case "true", "false":
			return jsValue{kind: jsBool, lit: lit}, nil
		}
		if _, err := strconv.ParseFloat(lit, 64); err != nil || lit == "" {
			return jsValue{}, fmt.Errorf("invalid literal %q at offset %d", lit, start)
		}
		return jsValue{kind: jsNumber, lit: lit}, nil
	}
}

// string reads a JSON string into UTF-16 code units, lone surrogates kept.
func (p *jsParser) string() ([]uint16, error) {
	p.i++ // the opening quote
	var out []uint16
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return out, nil
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return nil, errors.New("unexpected end of JSON in a string")
			}
			e := p.b[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, uint16(e))
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				if p.i+4 > len(p.b) {
					return nil, errors.New("short \\u escape")
				}
				n, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 16)
				if err != nil {
					return nil, fmt.Errorf("bad \\u escape at offset %d", p.i)
				}
				out = append(out, uint16(n))
				p.i += 4
			default:
				return nil, fmt.Errorf("bad escape \\%c at offset %d", e, p.i-1)
			}
		case c < 0x20:
			return nil, fmt.Errorf("control character in a string at offset %d", p.i)
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			p.i += n
			out = utf16.AppendRune(out, r) // invalid UTF-8 reads as U+FFFD, as in JS
		}
	}
	return nil, errors.New("unterminated string")
}

// stringify is JSON.stringify(v).
func stringify(v jsValue) string {
	var w jsWriter
	w.value(v)
	return w.b.String()
}

// jsWriter writes JSON.stringify's text and records, for each cut string,
// where its head, marker and tail went (byte offsets, inside the quotes).
type jsWriter struct {
	b    strings.Builder
	cuts []cutSpan
}

type cutSpan struct {
	head, marker, tail model.Span
	info               *cutInfo
}

func (w *jsWriter) value(v jsValue) {
	b := &w.b
	switch v.kind {
	case jsString:
		if v.cut == nil {
			writeJSString(b, v.str)
			return
		}
		b.WriteByte('"')
		at := func() int { return b.Len() }
		var c cutSpan
		c.info = v.cut
		k, m := v.cut.keep, v.cut.marker
		c.head.Start = at()
		writeUnits(b, v.str[:k])
		c.head.End, c.marker.Start = at(), at()
		writeUnits(b, v.str[k:k+m])
		c.marker.End, c.tail.Start = at(), at()
		writeUnits(b, v.str[k+m:])
		c.tail.End = at()
		b.WriteByte('"')
		w.cuts = append(w.cuts, c)
	case jsNumber:
		b.WriteString(jsNumberText(v.lit))
	case jsArray:
		b.WriteByte('[')
		for i, it := range v.items {
			if i > 0 {
				b.WriteByte(',')
			}
			w.value(it)
		}
		b.WriteByte(']')
	case jsObject:
		b.WriteByte('{')
		for i, it := range v.items {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSString(b, v.keys[i])
			b.WriteByte(':')
			w.value(it)
		}
		b.WriteByte('}')
	default:
		b.WriteString(v.lit)
	}
}

// writeJSString quotes code units as JSON.stringify does (ES2019
// well-formed: a lone surrogate becomes \udXXX).
func writeJSString(b *strings.Builder, s []uint16) {
	b.WriteByte('"')
	writeUnits(b, s)
	b.WriteByte('"')
}

// writeUnits writes code units escaped as inside a JSON.stringify string.
// Escaping a string in pieces gives the same bytes as escaping it whole
// unless a piece ends between the two halves of a pair; the cut's pieces
// end at its ASCII marker.
func writeUnits(b *strings.Builder, s []uint16) {
	for i := 0; i < len(s); i++ {
		u := s[i]
		switch {
		case u == '"':
			b.WriteString(`\"`)
		case u == '\\':
			b.WriteString(`\\`)
		case u == '\b':
			b.WriteString(`\b`)
		case u == '\f':
			b.WriteString(`\f`)
		case u == '\n':
			b.WriteString(`\n`)
		case u == '\r':
			b.WriteString(`\r`)
		case u == '\t':
			b.WriteString(`\t`)
		case u < 0x20:
			fmt.Fprintf(b, `\u%04x`, u)
		case utf16.IsSurrogate(rune(u)):
			if u < 0xdc00 && i+1 < len(s) && s[i+1] >= 0xdc00 && s[i+1] <= 0xdfff {
				b.WriteRune(utf16.DecodeRune(rune(u), rune(s[i+1])))
				i++
				continue
			}
			fmt.Fprintf(b, `\u%04x`, u)
		default:
			b.WriteRune(rune(u))
		}
	}
}

// jsNumberText is a number literal as JavaScript prints the number.
func jsNumberText(lit string) string {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return lit
	}
	if f == 0 {
		return "0"
	}
	if a := abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // 1e+21, 1.5e-07
	mant, exp, _ := strings.Cut(s, "e")
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + digits
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// utf8Of is a string's code units as Go text; a lone surrogate becomes
// U+FFFD (Go strings hold no lone surrogates).
func utf8Of(s []uint16) string { return string(utf16.Decode(s)) }
