package opencode

import (
	"bytes"
	"errors"
	"unsafe"

	"correx/internal/jsonskim"
)

// stringCutter copies a JSON text given to it a chunk at a time with each
// string's body cut to its first keep bytes (never inside an escape; an
// escaped string keeps one), and checks each string whole as
// partScanner.str does. With keep at least cutKeep, partFlags of what it
// copies is partFlags of the text (every name and value partFlags compares
// is shorter), so a part row of any size is scanned for its flags without
// being held: its output is most of it.
type stringCutter struct {
	keep int
	out  []byte
	in   bool // inside a string's body
	n    int  // bytes of the body so far
	cut  bool // the body's bytes are no longer copied
	esc  int  // -1: after a backslash; k > 0: k hex digits of a \u to come
	// escaped: the body has an escape; copied: one was copied
	escaped, copied bool
	bad             bool // a string partScanner.str rejects

	off  int64     // bytes fed so far
	at   int       // where the string being read starts in out
	from int64     // and in the text
	long []cutSpan // where each string cut short lies, in order
}

// cutSpan is a string stringCutter cut short: out[at:end] as cut, the
// text's bytes [from, to) whole, quotes included.
type cutSpan struct {
	at, end  int
	from, to int64
}

// cutKeep is the least keep that leaves partFlags' answer alone: longer
// than the longest name (pathKeys) or value (check) it compares.
const cutKeep = 16

// read feeds c the part row rowid a chunk at a time (size as
// blobReader.chunks takes it); it stops at a string c calls bad.
func (c *stringCutter) read(b *blobReader, rowid int64, size func(int) error) error {
	return b.chunks(rowid, 0, -1, size, func(chunk []byte) error {
		if c.feed(chunk); c.bad {
			return errCutBad
		}
		return nil
	})
}

// errCutBad stops a row's chunks at a string partFlags would reject.
var errCutBad = errors.New("a string the part scanner rejects")

func (c *stringCutter) feed(chunk []byte) {
	defer func() { c.off += int64(len(chunk)) }()
	s := unsafe.String(unsafe.SliceData(chunk), len(chunk))
	for i := 0; i < len(s) && !c.bad; {
		if !c.in {
			j := bytes.IndexByte(chunk[i:], '"')
			if j < 0 {
				c.out = append(c.out, chunk[i:]...)
				return
			}
			c.out = append(c.out, chunk[i:i+j+1]...)
			c.at, c.from = len(c.out)-1, c.off+int64(i+j)
			i += j + 1
			c.in, c.n, c.cut, c.escaped, c.copied = true, 0, false, false, false
			continue
		}
		if c.esc == 0 {
			if run := jsonskim.PlainRun(s, i); run > 0 {
				if !c.cut {
					k := max(min(run, c.keep-c.n), 0)
					c.out = append(c.out, chunk[i:i+k]...)
					c.cut = k < run
				}
				i += run
				c.n += run
				continue
			}
		}
		b := chunk[i]
		switch {
		case c.esc == -1:
			switch b {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.esc = 0
			case 'u':
				c.esc = 4
			default:
				c.bad = true
			}
		case c.esc > 0:
			c.bad = !isHex(b)
			c.esc--
		case b == '"':
			if c.escaped && !c.copied {
				c.out = append(c.out, `\/`...) // partScanner bails on an escaped name
			}
			c.out = append(c.out, '"')
			if c.cut {
				c.long = append(c.long, cutSpan{at: c.at, end: len(c.out), from: c.from, to: c.off + int64(i) + 1})
			}
			c.in = false
			i++
			continue
		case b == '\\':
			c.cut = c.cut || c.n >= c.keep // an escape is copied whole or not at all
			c.esc, c.escaped, c.copied = -1, true, c.copied || !c.cut
		default: // PlainRun stops at a control character, here
			c.bad = true
		}
		if !c.cut {
			c.out = append(c.out, b)
		}
		c.n++
		i++
	}
}
