package sessions

// What the stores of agents that keep one JSONL file per session (Claude
// Code, Codex CLI, Gemini CLI) share, and the list counts every reader
// fills (countCalls).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"correx/formatters"
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

// lineWarner returns a warnf that appends "path:n: message" to *ws.
func lineWarner(ws *[]string, path string) func(n int, format string, args ...any) {
	return func(n int, format string, args ...any) {
		*ws = append(*ws, fmt.Sprintf("%s:%d: ", path, n)+fmt.Sprintf(format, args...))
	}
}

// skipped is the warning for a file a List skipped: a FileError says it
// all ("permission denied: FILE"), another error is prefixed "skipped".
func skipped(err error) string {
	var fe *FileError
	if errors.As(err, &fe) {
		return err.Error()
	}
	return "skipped " + err.Error()
}

// noSessionRead is the error of a List that found session files but read
// no session from any: the first file's problem, so that an unreadable
// store is not shown as an empty one. It is nil when a session was read.
func noSessionRead(sessions int, problems []error) error {
	if sessions > 0 || len(problems) == 0 {
		return nil
	}
	if len(problems) == 1 {
		return problems[0]
	}
	return fmt.Errorf("%w (and %d more files with problems)", problems[0], len(problems)-1)
}

// countCalls fills the list counts of info from loaded messages, with the
// same rules as the SQL of the db list: a tool call is a tool part, truncated
// means the agent flagged it (formatters.AgentFlagged: state.metadata.truncated
// is JSON true; v2: state.outputPaths is not empty, or a completed tool's
// structured.truncated is true), an error is status "error".
func countCalls(info *model.SessionInfo, msgs []model.Message) {
	info.Messages = len(msgs)
	info.ToolCalls, info.Truncated, info.Errors = 0, 0, 0
	for i := range msgs {
		for j := range msgs[i].Parts {
			tc := msgs[i].Parts[j].Tool
			if tc == nil {
				continue
			}
			info.ToolCalls++
			if tc.Status == model.StatusError {
				info.Errors++
			}
			if f := formatters.AgentFlagged(tc); f != nil && *f {
				info.Truncated++
			}
		}
	}
}

// ParseTime is an RFC 3339 timestamp as the agents write it; zero when it
// is not one.
func ParseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// CompactJSON is raw without insignificant whitespace, raw itself when it
// is not valid JSON.
func CompactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// FinishInfo fills the list facts of a session read from one file: its
// title, when the agent stored none (the first line of the first user
// text the agent did not add), and its counts (CountDetectedIn).
func FinishInfo(sess *model.Session, spill formatters.SpillFinder) {
	for _, m := range sess.Messages {
		if sess.Info.Title != "" {
			break
		}
		if m.Role != model.RoleUser {
			continue
		}
		for _, p := range m.Parts {
			if p.Type == model.PartText && !p.Synthetic {
				sess.Info.Title = FirstLine(p.Text)
				break
			}
		}
	}
	CountDetectedIn(sess, spill)
}
