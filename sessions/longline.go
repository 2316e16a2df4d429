package sessions

// Long lines read without their long strings: a line of tens of megabytes
// is most often one or two strings its reader never decodes (Gemini CLI's
// resultDisplay, a shell call's whole output). A scan finds them as it
// reads the line through to its newline, and reads the rest (LongLiner),
// so that such a line is never held whole, whatever its size.

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"io"
	"os"
)

// LongLiner is implemented by a LineReader that can read a line over
// LongLineBytes without its strings of LongStringBytes or more.
type LongLiner interface {
	// LongLine reads lr.Line as lr holds it: read without those strings
	// (Partial; each an empty string in lr.Data, to Drop), last true
	// for a final line without its newline. It returns false, having
	// changed nothing, when it needs one of them: the line is then read
	// whole and given to Line (or skipped when over the line limit).
	LongLine(lr *LineRead, last bool) bool
}

// The sizes from which a scan reads a line without its long strings;
// variables so tests can lower them.
var (
	LongLineBytes   = 4 << 20
	LongStringBytes = 64 << 10
)

// stringSkim follows the strings of a JSON line given a piece at a time
// and notes the bodies of those of at least min bytes. A quote inside a
// string is escaped after an odd run of backslashes; outside strings a
// backslash is no JSON, and a line that is none is for its reader to
// reject (what the skim made of it is then never used).
type stringSkim struct {
	min    int
	at     int64 // bytes of the line given so far
	in     bool  // inside a string
	start  int64 // where the open string's body starts
	slashs int   // backslashes at the end of what was given
	long   []StringSpan
}

func (s *stringSkim) feed(p []byte) {
	for i := 0; ; {
		j := bytes.IndexByte(p[i:], '"')
		if j < 0 {
			break
		}
		q := i + j
		i = q + 1
		if s.in {
			n := q - len(bytes.TrimRight(p[:q], `\`))
			if n == q {
				n += s.slashs
			}
			if n%2 == 1 {
				continue
			}
			if body := s.at + int64(q) - s.start; body >= int64(s.min) {
				s.long = append(s.long, StringSpan{Off: s.start, Len: int(body)})
			}
			s.in = false
		} else {
			s.in, s.start = true, s.at+int64(q)+1
		}
	}
	if n := len(p) - len(bytes.TrimRight(p, `\`)); n == len(p) {
		s.slashs += n
	} else {
		s.slashs = n
	}
	s.at += int64(len(p))
}

// nextLongLine is nextLine for a scan whose reader takes long lines:
// a line over LongLineBytes that is a JSON object with strings of
// LongStringBytes or more comes as lr, the line read without them (line
// nil), for the reader to take or refuse (readWhole then reads it).
func nextLongLine(r *bufio.Reader, f *os.File, path string, off int64, n int) (line []byte, lr *LineRead, size int, err error) {
	var skim *stringSkim
	for {
		frag, err := r.ReadSlice('\n')
		if size == 0 && !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.Clone(frag), nil, len(frag), err
		}
		if size == 0 && len(frag) > 0 && frag[0] == '{' {
			skim = &stringSkim{min: LongStringBytes}
		}
		if skim != nil {
			skim.feed(frag)
		}
		size += len(frag)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if skim != nil && size > LongLineBytes && len(skim.long) > 0 && !skim.in {
			if lr := readLong(f, path, off, size, n, skim.long); lr != nil {
				return nil, lr, size, err
			}
		}
		line, rerr := readWhole(f, off, size)
		return line, nil, size, cmp.Or(rerr, err)
	}
}

// readWhole reads the line of size bytes at off, newline included: nil
// for one over maxLineBytes (as nextLine).
func readWhole(f io.ReaderAt, off int64, size int) ([]byte, error) {
	if size > maxLineBytes {
		return nil, nil
	}
	line := make([]byte, size)
	if n, err := f.ReadAt(line, off); n < size {
		return nil, cmp.Or(err, io.ErrUnexpectedEOF)
	}
	return line, nil
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
