package sessions

// What the stores of agents that keep one JSONL file per session (Claude
// Code, Codex CLI, Gemini CLI) share.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"correx/model"
)

// agentDir is $env, by default ~/sub; "" when there is no home.
func agentDir(env, sub string) string {
	if v := os.Getenv(env); v != "" {
		return v
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, sub)
}

// fileIndex is the session id -> file index the last List built, with
// that List's warnings; mu also guards the embedding store's own state.
type fileIndex struct {
	mu       sync.Mutex
	files    map[string]string
	warnings []string
}

func (x *fileIndex) Warnings() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]string(nil), x.warnings...)
}

func (x *fileIndex) setIndex(files map[string]string, warnings []string) {
	x.mu.Lock()
	x.files, x.warnings = files, warnings
	x.mu.Unlock()
}

// fileOf is the file holding session id, listed again when the last List
// did not see it; source names the store in the not-found error.
func (x *fileIndex) fileOf(ctx context.Context, id, source string, list func(context.Context) ([]model.SessionInfo, error)) (string, error) {
	x.mu.Lock()
	f, ok := x.files[id]
	x.mu.Unlock()
	if !ok {
		if _, err := list(ctx); err != nil {
			return "", err
		}
		x.mu.Lock()
		f, ok = x.files[id]
		x.mu.Unlock()
	}
	if !ok {
		return "", notFound(id, source)
	}
	return f, nil
}

// readJSONL calls fn for every non-blank line of a file, trimmed, with its
// 1-based number; last is true for a final line without newline (one
// perhaps still being written).
func readJSONL(path string, fn func(n int, line []byte, last bool)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			fn(n, t, errors.Is(err, io.EOF))
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}

// lineWarner returns a warnf that appends "path:n: message" to *ws.
func lineWarner(ws *[]string, path string) func(n int, format string, args ...any) {
	return func(n int, format string, args ...any) {
		*ws = append(*ws, fmt.Sprintf("%s:%d: ", path, n)+fmt.Sprintf(format, args...))
	}
}
