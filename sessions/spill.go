package sessions

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"correx/model"
)

// Spills finds and opens the spill files of one session. A spill is looked
// up at the path the agent recorded (a relative one against the store,
// never the working directory), then where the agent's layout puts it
// beside the store, so a store copied to another machine (or a fixture)
// still finds its spilled outputs. A transcript can name any path, so only
// a file inside the agent's spill folder (symlinks resolved) is read
// without asking: opencode's tool-output/, Gemini CLI's tool-outputs/ (of
// the store or of the agent's data dir on this machine), or the folders
// its driver names (Driver.SpillFolders). It satisfies
// formatters.SpillFinder.
type Spills struct {
	DataDir string
	Agent   model.Agent
	// AllowOutside reads a spill outside the agent's spill folder too
	// (`show --allow-outside-spill`, or o pressed again in the TUI).
	AllowOutside bool
}

// SpillsFor returns the spill finder for a session.
func SpillsFor(info model.SessionInfo) Spills {
	return Spills{DataDir: info.DataDir, Agent: info.Agent}
}

// OutsideSpillError is a spill file outside the agent's spill folder,
// not opened without asking.
type OutsideSpillError struct {
	Path  string
	Agent model.Agent
}

func (e *OutsideSpillError) Error() string {
	return fmt.Sprintf("outside %s's spill folder: %s", e.Agent.Name(), e.Path)
}

// FindSpill returns where the spill file recorded as path is now, with its
// line and byte counts; ok is false when it is gone. A spill outside the
// agent's spill folder (unless AllowOutside) or one that cannot be read is
// found but not measured (lines and size -1): Open says why.
func (s Spills) FindSpill(recorded string) (path string, lines, size int, ok bool) {
	outside := ""
	for _, c := range s.candidates(recorded) {
		if _, err := os.Stat(c); err != nil && !errors.Is(err, fs.ErrPermission) {
			continue // gone
		}
		if !s.AllowOutside && !s.inside(c) {
			outside = cmp.Or(outside, c) // a copy inside the folder wins
			continue
		}
		lines, size, err := countFile(c)
		if err != nil {
			return c, -1, -1, true
		}
		return c, lines, size, true // lines -1 for a file too large to count
	}
	if outside != "" {
		return outside, -1, -1, true
	}
	return "", 0, 0, false
}

// candidates are the places a spill recorded as path may be now.
func (s Spills) candidates(recorded string) []string {
	var out []string
	switch {
	case filepath.IsAbs(recorded):
		out = append(out, recorded)
	case s.DataDir != "":
		out = append(out, filepath.Join(s.DataDir, recorded))
	}
	if s.DataDir == "" {
		return out
	}
	out = append(out, filepath.Join(s.DataDir, "tool-output", filepath.Base(recorded)))
	// Gemini CLI: <project tmp>/tool-outputs/session-<id>/<file>
	if i := strings.LastIndex(recorded, "/tool-outputs/"); i >= 0 {
		out = append(out, filepath.Join(s.DataDir, "tool-outputs", filepath.FromSlash(recorded[i+len("/tool-outputs/"):])))
	}
	// a driver's agent: by its name in each of its spill folders, then
	// where its layout puts it
	if d, ok := driverOf(s.Agent); ok && d.SpillFolders != nil {
		for _, f := range d.SpillFolders(s.DataDir) {
			out = append(out, filepath.Join(f, filepath.Base(recorded)))
		}
	}
	if d, ok := driverOf(s.Agent); ok && d.SpillPaths != nil {
		out = append(out, d.SpillPaths(s.DataDir, recorded)...)
	}
	return out
}

// folders are the agent's spill folders: beside the store, and in the
// agent's data dir on this machine.
func (s Spills) folders() []string {
	agent := cmp.Or(s.Agent, model.AgentOpencode) // from before agents were told apart
	if d, ok := driverOf(agent); ok && d.SpillFolders != nil {
		return nonEmpty(d.SpillFolders(s.DataDir)...)
	}
	return nil // the agent keeps no spill file (Codex)
}

// join is filepath.Join, "" when dir is.
func join(dir string, elem ...string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(append([]string{dir}, elem...)...)
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// resolve is path made absolute with its symlinks resolved; when they
// cannot be (a folder that cannot be read), path cleaned: opening it then
// fails anyway.
func resolve(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return filepath.Clean(path)
}

// inside says whether path, symlinks resolved, is in one of the agent's
// spill folders.
func (s Spills) inside(path string) bool {
	real := resolve(path)
	for _, dir := range s.folders() {
		rel, err := filepath.Rel(resolve(dir), real)
		if err != nil || rel == "." || !filepath.IsLocal(rel) {
			continue
		}
		return true
	}
	return false
}

// Open opens a spill file FindSpill found, read-only: symlinks resolved,
// refused with an *OutsideSpillError outside the agent's spill folder
// (unless AllowOutside), and only when it is a regular file.
func (s Spills) Open(path string) (*os.File, fs.FileInfo, error) {
	if !s.AllowOutside && !s.inside(path) {
		return nil, nil, &OutsideSpillError{Path: path, Agent: s.Agent}
	}
	f, st, err := openRegular(resolve(path))
	var fe *FileError
	if errors.As(err, &fe) {
		fe.Path = path // named as the session shows it
	}
	return f, st, err
}

// SpillProblem says why the spill file at path (as FindSpill found it) is
// not read: "outside opencode's spill folder: PATH", "permission denied:
// PATH", "too large: PATH (…)"; "" when it is read. It satisfies
// formatters.SpillProblem.
func (s Spills) SpillProblem(path string) string {
	f, st, err := s.Open(path)
	if err != nil {
		return err.Error()
	}
	f.Close()
	if st.Size() > maxFileBytes {
		return tooLarge(path, st.Size(), maxFileBytes).Error()
	}
	return ""
}

// countFile counts a file's lines the way formatters.CountLines does;
// lines is -1 for a file of more than maxFileBytes, not read.
func countFile(path string) (lines, size int, err error) {
	f, st, err := openRegular(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	if st.Size() > maxFileBytes {
		return -1, int(st.Size()), nil
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
// returned it) from off, opened as Open does, never more than asked. It
// satisfies formatters.SpillReader.
func (s Spills) ReadSpill(path string, off int64, n int) ([]byte, error) {
	f, _, err := s.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := f.ReadAt(b, off)
	if err == io.EOF {
		err = nil
	}
	return b[:k], err
}
