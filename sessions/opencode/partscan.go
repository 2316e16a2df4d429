package opencode

import (
	"database/sql/driver"
	"strings"

	sqlite "modernc.org/sqlite"

	"correx/internal/jsonskim"
)

// A small JSON scanner for opencode part rows, run inside SQLite as two
// application-defined functions so that large rows are never parsed by
// SQLite's JSON functions (whose parse trees, kept in a per-statement cache,
// cost several times a row's size) nor copied into Go: the functions see the
// row as a view into SQLite's memory (VolatileArgs) and walk it byte by byte,
// stepping over big string values.
//
//	correx_part_flags(data): bit 0 the part's $.type is "tool"; bits 1 and 2,
//	    for a tool part, $.state.metadata.truncated is true and $.state.status
//	    is "error" (listSQL's counts).
//	correx_part_elide(data): data without the members of elidedPaths,
//	    minified: what json_remove gives, after a first byte A when
//	    $.state.attachments is a non-empty array, else E (outlinePartsSQL).
//
// Both give NULL whenever the scanner cannot vouch for matching SQLite
// exactly: malformed JSON (SQLite's json_valid then decides, and the row is
// reported as before), a key or compared value of the path written with
// escapes, a duplicate key on the path, nesting deeper than scanMaxDepth, or
// a value that is not TEXT. The SQL then falls back to the JSON functions,
// so results are those of SQLite's JSON functions in every case.

const (
	partFlagTool      = 1
	partFlagTruncated = 2
	partFlagError     = 4

	// scanMaxDepth is well under SQLite's JSON nesting limit (1000).
	scanMaxDepth = 500
)

// partScanOff makes both functions give NULL (the JSON functions then
// decide everything); tests compare the two paths with it.
var partScanOff bool

func init() {
	sqlite.MustRegisterFunction("correx_part_flags", &sqlite.FunctionImpl{
		NArgs: 1, Deterministic: true, VolatileArgs: true,
		Scalar: func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			s, ok := args[0].(string)
			if !ok || partScanOff {
				return nil, nil
			}
			f, ok := partFlags(s)
			if !ok {
				return nil, nil
			}
			return int64(f), nil
		},
	})
	sqlite.MustRegisterFunction("correx_part_elide", &sqlite.FunctionImpl{
		NArgs: 1, Deterministic: true, VolatileArgs: true,
		Scalar: func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			s, ok := args[0].(string)
			if !ok || partScanOff {
				return nil, nil
			}
			out, ok := partElide(s, nil)
			if !ok {
				return nil, nil
			}
			return string(out), nil
		},
	})
}

// partFlags gives correx_part_flags of s; ok is false when the scanner
// cannot decide.
func partFlags(s string) (flags int, ok bool) {
	p := partScanner{s: s}
	if !p.document() {
		return 0, false
	}
	if !p.tool {
		return 0, true
	}
	flags = partFlagTool
	if p.truncated {
		flags |= partFlagTruncated
	}
	if p.errored {
		flags |= partFlagError
	}
	return flags, true
}

// partElide appends to dst correx_part_elide(s): the byte A or E, then s
// minified without the outline's elided members; ok is false when the
// scanner cannot decide.
func partElide(s string, dst []byte) (out []byte, ok bool) {
	p, ok := scanElided(s, dst, false)
	return p.out, ok
}

// scanElided is partElide, with the scanner and what it found; textOnly
// leaves out the output and error only.
func scanElided(s string, dst []byte, textOnly bool) (p partScanner, ok bool) {
	return elided(partScanner{s: s, out: dst, textOnly: textOnly})
}

// elided is scanElided with p's s, out (dst), textOnly and noteDropped.
func elided(p partScanner) (partScanner, bool) {
	dst := p.out
	p.out, p.emit, p.elide = append(dst, 'E'), true, true
	if !p.document() {
		return partScanner{out: dst}, false
	}
	if p.files {
		p.out[len(dst)] = 'A'
	}
	return p, true
}

// Path levels: the objects whose members the scanner looks at.
const (
	lvlOther = iota
	lvlTop
	lvlState
	lvlMeta
)

type partScanner struct {
	s     string
	i     int
	out   []byte
	emit  bool // copy what is scanned to out
	elide bool // leave the elided members out
	// textOnly: of the elided members, leave out only the output and error
	textOnly bool

	tool, truncated, errored bool
	files                    bool // $.state.attachments is a non-empty array
	// where $.state.output and $.state.error are in s, when met
	output, errText span
	// noteDropped: dropped holds the values of the members left out, in
	// order
	noteDropped bool
	dropped     []span
}

// span is a value's place in the scanned text: s[at:end].
type span struct{ at, end int }

func (p *partScanner) document() bool {
	p.ws()
	if !p.value(lvlTop, 0) {
		return false
	}
	p.ws()
	return p.i == len(p.s)
}

func (p *partScanner) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *partScanner) put(b byte) {
	if p.emit {
		p.out = append(p.out, b)
	}
}

func (p *partScanner) value(lvl, depth int) bool {
	if p.i >= len(p.s) {
		return false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		if depth >= scanMaxDepth {
			return false
		}
		return p.object(lvl, depth+1)
	case c == '[':
		if depth >= scanMaxDepth {
			return false
		}
		return p.array(depth + 1)
	case c == '"':
		_, _, ok := p.str()
		return ok
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return false
}

func (p *partScanner) lit(w string) bool {
	if len(p.s)-p.i < len(w) || p.s[p.i:p.i+len(w)] != w {
		return false
	}
	p.i += len(w)
	if p.emit {
		p.out = append(p.out, w...)
	}
	return true
}

func (p *partScanner) number() bool {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.s) && p.s[p.i] == '0':
		p.i++
	case p.i < len(p.s) && p.s[p.i] >= '1' && p.s[p.i] <= '9':
		p.digits()
	default:
		return false
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return false
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return false
		}
	}
	if p.emit {
		p.out = append(p.out, p.s[start:p.i]...)
	}
	return true
}

func (p *partScanner) digits() int {
	n := 0
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

// str scans a string at p.i; raw is its text between the quotes, escaped
// tells that it holds an escape.
func (p *partScanner) str() (raw string, escaped, ok bool) {
	start := p.i
	p.i++
	for p.i < len(p.s) {
		p.i += jsonskim.PlainRun(p.s, p.i)
		if p.i == len(p.s) {
			break
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			if p.emit {
				p.out = append(p.out, p.s[start:p.i]...)
			}
			return p.s[start+1 : p.i-1], escaped, true
		case c == '\\':
			escaped = true
			if p.i+1 >= len(p.s) {
				return "", false, false
			}
			switch p.s[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if len(p.s)-p.i < 6 {
					return "", false, false
				}
				for k := p.i + 2; k < p.i+6; k++ {
					if !isHex(p.s[k]) {
						return "", false, false
					}
				}
				p.i += 6
			default:
				return "", false, false
			}
		case c < 0x20:
			return "", false, false
		default:
			p.i++
		}
	}
	return "", false, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func (p *partScanner) array(depth int) bool {
	p.i++
	p.put('[')
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		p.put(']')
		return true
	}
	for {
		p.ws()
		if !p.value(lvlOther, depth) {
			return false
		}
		p.ws()
		if p.i >= len(p.s) {
			return false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.put(',')
		case ']':
			p.i++
			p.put(']')
			return true
		default:
			return false
		}
	}
}

// object scans an object whose path level is lvl.
func (p *partScanner) object(lvl, depth int) bool {
	p.i++
	p.put('{')
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		p.put('}')
		return true
	}
	var seen uint // keys of the path met in this object
	kept := 0
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return false
		}
		emit := p.emit
		keyAt := p.i
		p.emit = false
		key, escaped, ok := p.str()
		p.emit = emit
		if !ok {
			return false
		}
		child, bit, drop := lvlOther, uint(0), false
		if lvl != lvlOther {
			if escaped {
				return false // SQLite's label matching on escapes is not ours to copy
			}
			child, bit, drop = pathKey(lvl, key)
			if bit != 0 {
				if seen&bit != 0 {
					return false // a duplicate key on the path
				}
				seen |= bit
			}
			drop = drop && p.elide && (!p.textOnly || lvl == lvlState && (key == "output" || key == "error"))
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return false
		}
		p.i++
		p.ws()
		if drop {
			p.emit = false
		} else if emit {
			if kept > 0 {
				p.out = append(p.out, ',')
			}
			p.out = append(p.out, p.s[keyAt:keyAt+len(key)+2]...)
			p.out = append(p.out, ':')
			kept++
		}
		valAt := p.i
		if !p.value(child, depth) {
			return false
		}
		if drop && p.noteDropped {
			p.dropped = append(p.dropped, span{valAt, p.i})
		}
		p.emit = emit
		if !p.check(lvl, key, p.s[valAt:p.i]) {
			return false
		}
		if lvl == lvlState && key == "output" {
			p.output = span{valAt, p.i}
		} else if lvl == lvlState && key == "error" {
			p.errText = span{valAt, p.i}
		}
		p.ws()
		if p.i >= len(p.s) {
			return false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			p.put('}')
			return true
		default:
			return false
		}
	}
}

// pathKeys are the members the scanner looks at, by the level of the
// object they are in: the level of their value, and whether the outline
// leaves them out (the output, error and attachments, and the metadata
// that opencode fills with outputs and file contents: bash's live output,
// read's preview and display, the diffs and diagnostics of edit, write and
// apply_patch). A member's bit in the duplicate check is its index.
var pathKeys = []struct {
	lvl   int
	key   string
	child int
	drop  bool
}{
	{lvlTop, "type", lvlOther, false},
	{lvlTop, "state", lvlState, false},
	{lvlState, "status", lvlOther, false},
	{lvlState, "metadata", lvlMeta, false},
	{lvlState, "output", lvlOther, true},
	{lvlState, "error", lvlOther, true},
	{lvlState, "attachments", lvlOther, true},
	{lvlMeta, "truncated", lvlOther, false},
	{lvlMeta, "output", lvlOther, true},
	{lvlMeta, "display", lvlOther, true},
	{lvlMeta, "preview", lvlOther, true},
	{lvlMeta, "diff", lvlOther, true},
	{lvlMeta, "filediff", lvlOther, true},
	{lvlMeta, "files", lvlOther, true},
	{lvlMeta, "diagnostics", lvlOther, true},
}

// pathKey tells, for key in an object of level lvl, the level of its value,
// its bit in the duplicate check (0: not on a path), and whether the
// outline elides it.
func pathKey(lvl int, key string) (child int, bit uint, drop bool) {
	for i, k := range pathKeys {
		if k.lvl == lvl && k.key == key {
			return k.child, 1 << i, k.drop
		}
	}
	return lvlOther, 0, false
}

// elidedPaths are the JSON paths of the members pathKeys drops, as
// json_remove takes them.
var elidedPaths = func() string {
	prefix := map[int]string{lvlState: "$.state.", lvlMeta: "$.state.metadata."}
	var paths []string
	for _, k := range pathKeys {
		if k.drop {
			paths = append(paths, "'"+prefix[k.lvl]+k.key+"'")
		}
	}
	return strings.Join(paths, ", ")
}()

// check records the flags a member's value sets; false when a compared
// string is written with escapes.
func (p *partScanner) check(lvl int, key, val string) bool {
	var want string
	var flag *bool
	switch {
	case lvl == lvlTop && key == "type":
		want, flag = "tool", &p.tool
	case lvl == lvlState && key == "status":
		want, flag = "error", &p.errored
	case lvl == lvlMeta && key == "truncated":
		p.truncated = val == "true"
		return true
	case lvl == lvlState && key == "attachments":
		p.files = nonEmptyArray(val)
		return true
	default:
		return true
	}
	if len(val) > 0 && val[0] == '"' {
		for i := 0; i < len(val); i++ {
			if val[i] == '\\' {
				return false
			}
		}
		*flag = len(val) == len(want)+2 && val[1:len(val)-1] == want
	}
	return true
}

// nonEmptyArray reports whether the JSON value val is an array with an
// element (json_array_length(val) > 0).
func nonEmptyArray(val string) bool {
	if len(val) == 0 || val[0] != '[' {
		return false
	}
	for _, c := range val[1:] {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return c != ']'
		}
	}
	return false
}
