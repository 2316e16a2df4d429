package sessions

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"correx/model"
)

// Spills finds the spill files of one store's sessions: at the path the
// agent recorded, or under tool-output/ beside the store, so a store copied
// to another machine (or a fixture) still finds its spilled outputs.
// It satisfies formatters.SpillFinder.
type Spills struct {
	DataDir string
}

// SpillsFor returns the spill finder for a session.
func SpillsFor(info model.SessionInfo) Spills { return Spills{DataDir: info.DataDir} }

// FindSpill returns where the spill file recorded as path is now, with its
// line and byte counts; ok is false when it is gone.
func (s Spills) FindSpill(recorded string) (path string, lines, size int, ok bool) {
	candidates := []string{recorded}
	if s.DataDir != "" {
		candidates = append(candidates, filepath.Join(s.DataDir, "tool-output", filepath.Base(recorded)))
		// Gemini CLI: <project tmp>/tool-outputs/session-<id>/<file>
		if i := strings.LastIndex(recorded, "/tool-outputs/"); i >= 0 {
			candidates = append(candidates, filepath.Join(s.DataDir, "tool-outputs", filepath.FromSlash(recorded[i+len("/tool-outputs/"):])))
		}
		// Claude Code: <config>/projects/<encoded-cwd>/<session>/tool-results/<id>.txt
		if i := strings.LastIndex(recorded, "/projects/"); i >= 0 {
			rel := recorded[i+1:]
			candidates = append(candidates, filepath.Join(s.DataDir, rel))
			if parts := strings.SplitN(rel, "/", 3); len(parts) == 3 {
				candidates = append(candidates, filepath.Join(s.DataDir, parts[2]))
			}
		}
	}
	for _, c := range candidates {
		if lines, size, err := countFile(c); err == nil {
			return c, lines, size, true
		}
	}
	return "", 0, 0, false
}

// countFile counts a file's lines the way formatters.CountLines does.
func countFile(path string) (lines, size int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return 0, 0, os.ErrNotExist
	}
	buf := make([]byte, 64<<10)
	var last byte
	for {
		n, err := f.Read(buf)
		lines += bytes.Count(buf[:n], []byte{'\n'})
		size += n
		if n > 0 {
			last = buf[n-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, err
		}
	}
	if size > 0 && last != '\n' {
		lines++
	}
	return lines, size, nil
}

// ReadSpill reads at most n bytes of the spill file at path (as FindSpill
// returned it) from off: a regular file only, never more than asked. It
// satisfies formatters.SpillReader.
func (s Spills) ReadSpill(path string, off int64, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, os.ErrNotExist
	}
	b := make([]byte, n)
	k, err := f.ReadAt(b, off)
	if err == io.EOF {
		err = nil
	}
	return b[:k], err
}
