package sessions

// Every file correx reads from an agent's folders is opened here. Other
// programs write those folders and anything can sit in them, so only
// regular files are opened (a FIFO, a device or a link to one named like a
// session is refused without ever blocking on it), a whole file is read up
// to maxFileBytes and a JSONL line up to maxLineBytes, and each problem is
// an error or warning naming the file.

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// The read limits; variables so tests can lower them.
var (
	maxFileBytes int64 = 512 << 20 // a whole file
	maxLineBytes       = 64 << 20  // one JSONL line
)

// osOpen opens a file; tests replace it to inject errors.
var osOpen = os.OpenFile

// FileError is a file correx could not read, or one that is not what its
// name says. It reads "permission denied: FILE", "not a regular file: FILE
// (a named pipe)", "not a session file: FILE (why)".
type FileError struct {
	Problem string // "permission denied", "not a regular file", …
	Path    string
	Why     string // detail, may be empty
	Err     error  // the underlying error, if any
}

func (e *FileError) Error() string {
	s := e.Problem + ": " + e.Path
	if e.Why != "" {
		s += " (" + e.Why + ")"
	}
	return s
}

func (e *FileError) Unwrap() error { return e.Err }

// fileErr names what went wrong opening or reading path.
func fileErr(path string, err error) error {
	var fe *FileError
	if errors.As(err, &fe) {
		return err
	}
	switch {
	case errors.Is(err, fs.ErrPermission):
		return &FileError{Problem: "permission denied", Path: path, Err: err}
	case errors.Is(err, fs.ErrNotExist):
		return &FileError{Problem: "no such file", Path: path, Err: err}
	}
	why := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		why = pe.Err.Error()
	}
	return &FileError{Problem: "cannot read", Path: path, Why: why, Err: err}
}

// notSession is a file named like a session that holds none.
func notSession(path, why string) error {
	return &FileError{Problem: "not a session file", Path: path, Why: why}
}

func notRegular(path string, mode fs.FileMode) error {
	what := "not a plain file"
	switch {
	case mode.IsDir():
		what = "a directory"
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	case mode&fs.ModeDevice != 0:
		what = "a device"
	}
	return &FileError{Problem: "not a regular file", Path: path, Why: what}
}

func tooLarge(path string, size, limit int64) error {
	return &FileError{Problem: "too large", Path: path, Why: fmt.Sprintf("%s; correx reads at most %s", sizeText(size), sizeText(limit))}
}

func sizeText(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// openRegular opens path read-only if it is a regular file (a link is
// followed). The mode is checked before opening, so a FIFO is never
// opened, and again after (O_NONBLOCK: a file swapped for a FIFO in
// between does not block the open).
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fileErr(path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, nil, notRegular(path, st.Mode())
	}
	f, err := osOpen(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fileErr(path, err)
	}
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, nil, fileErr(path, err)
		}
		return nil, nil, notRegular(path, st.Mode())
	}
	return f, st, nil
}

// readFile reads a whole regular file of at most maxFileBytes.
func readFile(path string) ([]byte, error) { return readFileMax(path, maxFileBytes) }

// readFileMax reads a whole regular file of at most limit bytes.
func readFileMax(path string, limit int64) ([]byte, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, tooLarge(path, st.Size(), limit)
	}
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, fileErr(path, err)
	}
	if int64(buf.Len()) > limit { // it grew since the stat
		return nil, tooLarge(path, int64(buf.Len()), limit)
	}
	return buf.Bytes(), nil
}

// readHead reads the first n bytes of a regular file (fewer when it is
// shorter), to tell formats apart.
func readHead(path string, n int) ([]byte, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, n)
	k, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fileErr(path, err)
	}
	return head[:k], nil
}

// readJSONL calls fn for every non-blank line of a regular file, trimmed,
// with its 1-based number; last is true for a final line without newline
// (one perhaps still being written). A line over maxLineBytes is skipped
// and reading stops after maxFileBytes, each with a warning through warnf.
func readJSONL(path string, fn func(n int, line []byte, last bool), warnf func(n int, format string, args ...any)) error {
	f, _, err := openRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	lim := &io.LimitedReader{R: f, N: maxFileBytes}
	r := bufio.NewReaderSize(lim, 1<<16)
	off := int64(0)
	for n := 1; ; n++ {
		line, size, err := nextLine(r, f, off)
		off += int64(size)
		if err != nil && !errors.Is(err, io.EOF) {
			return fileErr(path, err)
		}
		eof := err != nil
		if size > maxLineBytes {
			warnf(n, "skipped a line of more than %s", sizeText(int64(maxLineBytes)))
		} else if t := bytes.TrimSpace(line); len(t) > 0 {
			fn(n, t, eof)
		}
		if eof {
			if lim.N == 0 {
				if k, _ := f.Read(make([]byte, 1)); k > 0 {
					warnf(n, "stopped reading after the first %s of the file", sizeText(maxFileBytes))
				}
			}
			return nil
		}
	}
}

// nextLine reads one line with its newline from r, which reads f from off
// on; a line over maxLineBytes is read through but not kept (line is nil,
// size tells its length). A line longer than r's buffer is read through
// to find its end and then read again from f into one slice of its size:
// holding its pieces and joining them held it twice, a 47 MiB output's
// line 94 MiB at once.
func nextLine(r *bufio.Reader, f io.ReaderAt, off int64) (line []byte, size int, err error) {
	line, long, size, err := readThrough(r, nil)
	if !long {
		return line, size, err
	}
	return readBack(f, off, size, err)
}

// readThrough reads one line with its newline from r: a line within r's
// buffer is returned (a copy), a longer one (long) is read through, each
// of its pieces given to see (when not nil), and only its size returned.
func readThrough(r *bufio.Reader, see func(piece []byte)) (short []byte, long bool, size int, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		if size == 0 && !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.Clone(frag), false, len(frag), err
		}
		if see != nil {
			see(frag)
		}
		size += len(frag)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, true, size, err
		}
	}
}

// readBack reads the line of size bytes at off that readThrough read
// through (err its error), as nextLine gives it.
func readBack(f io.ReaderAt, off int64, size int, err error) ([]byte, int, error) {
	if size > maxLineBytes {
		return nil, size, err
	}
	line := make([]byte, size)
	if n, rerr := f.ReadAt(line, off); n < size {
		return nil, size, cmp.Or(rerr, io.ErrUnexpectedEOF)
	}
	return line, size, err
}
