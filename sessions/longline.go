package sessions

// Long lines read without their long strings: a line of tens of megabytes
// is most often one or two strings its reader never decodes (Gemini CLI's
// resultDisplay, a shell call's whole output). A scan finds them as it
// reads the line through to its newline, and reads the rest (LongLiner),
// so that such a line is never held whole, whatever its size.

import (
	"bufio"
	"bytes"
	"os"
	"sync/atomic"
	"unsafe"

	"correx/internal/jsonskim"
)

// LongLiner is implemented by a LineReader that can read a line over
// LongLineBytes without its strings of LongStringBytes or more.
type LongLiner interface {
	// LongLine reads lr.Line as lr holds it: read without those strings
	// (Partial; each an empty string in lr.Data, to Drop, and a valid
	// JSON string in the file, as encoding/json checks one), last true
	// for a final line without its newline. It returns false, having
	// changed nothing, when it needs one of them: the line is then read
	// whole and given to Line (or skipped when over the line limit).
	LongLine(lr *LineRead, last bool) bool
}

// The sizes from which a scan reads a line without its long strings, and
// its buffer (a line longer is the one the skim follows); variables so
// tests can lower them.
var (
	LongLineBytes   = 4 << 20
	LongStringBytes = 64 << 10
	scanBuffer      = 64 << 10
)

// stringSkim follows the strings of a JSON line given a piece at a time,
// notes the bodies of those of at least min bytes, and checks every
// string as encoding/json does (its escapes, no control characters), so
// that a reader given the line without some of them (each then "") has
// lost nothing that made the line valid or not.
type stringSkim struct {
	min   int
	at    int64  // bytes of the line given so far
	in    bool   // inside a string
	start int64  // where the open string's body starts
	esc   []byte // an escape begun at the end of the last piece
	bad   bool   // a string is none
	long  []StringSpan
}

func (s *stringSkim) feed(p []byte) {
	i := 0
	for ; len(s.esc) > 0 && i < len(p); i++ { // the rest of an escape
		if s.esc = append(s.esc, p[i]); len(s.esc) == escapeLen(s.esc) {
			s.bad = s.bad || !validEscape(s.esc)
			s.esc = s.esc[:0]
		}
	}
	str := unsafe.String(unsafe.SliceData(p), len(p))
	for i < len(p) {
		if !s.in {
			j := bytes.IndexByte(p[i:], '"')
			if j < 0 {
				break
			}
			i += j + 1
			s.in, s.start = true, s.at+int64(i)
			continue
		}
		if i += jsonskim.PlainRun(str, i); i >= len(p) {
			break
		}
		switch p[i] {
		case '"':
			if body := s.at + int64(i) - s.start; body >= int64(s.min) {
				s.long = append(s.long, StringSpan{Off: s.start, Len: int(body)})
			}
			s.in = false
			i++
		case '\\':
			if i+1 >= len(p) || i+escapeLen(p[i:]) > len(p) {
				s.esc = append(s.esc[:0], p[i:]...)
				i = len(p)
				break
			}
			s.bad = s.bad || !validEscape(p[i:i+escapeLen(p[i:])])
			i += escapeLen(p[i:])
		default: // a control character
			s.bad = true
			i++
		}
	}
	s.at += int64(len(p))
}

// escapeLen is the length of the escape e starts (a backslash, and the
// byte after it when there is one): 6 for \uXXXX, else 2.
func escapeLen(e []byte) int {
	if len(e) > 1 && e[1] == 'u' {
		return 6
	}
	return 2
}

// validEscape tells whether e is one escape of a JSON string.
func validEscape(e []byte) bool {
	switch e[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		for _, c := range e[2:6] {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
		return true
	}
	return false
}

// nextLongLine is nextLine for a scan whose reader takes long lines:
// a line over LongLineBytes that is a JSON object with strings of
// LongStringBytes or more comes as lr, the line read without them (line
// nil), for the reader to take or refuse (readBack then reads it).
func nextLongLine(r *bufio.Reader, f *os.File, path string, off int64, n int) (line []byte, lr *LineRead, size int, err error) {
	var skim *stringSkim
	first := true
	line, long, size, err := readThrough(r, func(piece []byte) {
		if first && len(piece) > 0 && piece[0] == '{' {
			skim = &stringSkim{min: LongStringBytes}
		}
		if first = false; skim != nil {
			skim.feed(piece)
		}
	})
	if !long {
		return line, nil, size, err
	}
	if skim != nil && size > LongLineBytes && len(skim.long) > 0 && !skim.in && !skim.bad {
		if lr := readLong(f, path, off, size, n, skim.long); lr != nil {
			return nil, lr, size, err
		}
	}
	line, size, err = readBack(f, off, size, err)
	return line, nil, size, err
}

// readLong reads line n, of size bytes at off (its newline included, if
// any), without the strings long gives (offsets in the line): nil when
// it does not end in "}" before its blanks, or cannot be read so.
func readLong(f *os.File, path string, off int64, size, n int, long []StringSpan) *LineRead {
	tail := make([]byte, min(size, 64))
	tailAt := size - len(tail)
	if k, _ := f.ReadAt(tail, off+int64(tailAt)); k < len(tail) {
		return nil
	}
	tail = bytes.TrimRight(tail, " \t\r\n")
	if len(tail) == 0 || tail[len(tail)-1] != '}' {
		return nil
	}
	l := Line{N: n, Off: off, Len: tailAt + len(tail)}
	drop := make([]StringSpan, len(long))
	for i, sp := range long {
		drop[i] = StringSpan{Off: off + sp.Off, Len: sp.Len}
	}
	lines := LinesAt{Path: path, f: f} // the scan's file, closed by the scan
	lr, err := lines.ReadWithout(l, nil, drop)
	if err != nil || !lr.Partial() {
		return nil
	}
	return lr
}

// longTaken counts the long lines a reader took without their long
// strings (for the tests: whether any was).
var longTaken atomic.Int64
