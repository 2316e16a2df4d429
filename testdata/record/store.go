package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	_ "modernc.org/sqlite"
)

// sqliteSessions lists the session ids of an opencode.db, oldest first.
func sqliteSessions(path string) ([]string, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id FROM session ORDER BY time_created, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// backupDB writes a consistent single-file copy of an SQLite database with
// VACUUM INTO, then switches the copy to rollback journal mode so that
// readers of the fixture never need -wal/-shm files beside it.
func backupDB(src, dst string) error {
	if _, err := os.Stat(src); err != nil {
		return err
	}
	_ = os.Remove(dst)
	db, err := sql.Open("sqlite", "file:"+src)
	if err != nil {
		return err
	}
	_, err = db.Exec(`VACUUM INTO '` + strings.ReplaceAll(dst, "'", "''") + `'`)
	db.Close()
	if err != nil {
		return err
	}
	cp, err := sql.Open("sqlite", "file:"+dst)
	if err != nil {
		return err
	}
	defer cp.Close()
	var mode string
	if err := cp.QueryRow(`PRAGMA journal_mode=DELETE`).Scan(&mode); err != nil {
		return err
	}
	var ok string
	if err := cp.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil {
		return err
	}
	if ok != "ok" {
		return fmt.Errorf("integrity check of the copy: %s", ok)
	}
	return nil
}

// sessionInfo is what the checks need from one exported session.
type sessionInfo struct {
	ID         string
	ParentID   string
	FirstUser  string
	UserTexts  []string
	Assistants int
	Tools      []toolPart
}

type toolPart struct {
	CallID, Tool, Status, Text string
	Step                       int // the assistant message (1-based) holding it
}

func parseExport(b []byte) (*sessionInfo, error) {
	var ex struct {
		Info struct {
			ID       string `json:"id"`
			ParentID string `json:"parentID"`
		} `json:"info"`
		Messages []struct {
			Info struct {
				Role string `json:"role"`
			} `json:"info"`
			Parts []struct {
				Type      string `json:"type"`
				Text      string `json:"text"`
				Synthetic bool   `json:"synthetic"`
				Tool      string `json:"tool"`
				CallID    string `json:"callID"`
				State     struct {
					Status string  `json:"status"`
					Output *string `json:"output"`
					Error  *string `json:"error"`
				} `json:"state"`
			} `json:"parts"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(b, &ex); err != nil {
		return nil, err
	}
	si := &sessionInfo{ID: ex.Info.ID, ParentID: ex.Info.ParentID}
	for _, m := range ex.Messages {
		switch m.Info.Role {
		case "user":
			for _, p := range m.Parts {
				if p.Type == "text" && !p.Synthetic {
					si.UserTexts = append(si.UserTexts, p.Text)
				}
			}
		case "assistant":
			si.Assistants++
			for _, p := range m.Parts {
				if p.Type != "tool" {
					continue
				}
				tp := toolPart{CallID: p.CallID, Tool: p.Tool, Status: p.State.Status, Step: si.Assistants}
				switch {
				case p.State.Status == "completed" && p.State.Output != nil:
					tp.Text = *p.State.Output
				case p.State.Status == "error" && p.State.Error != nil:
					tp.Text = *p.State.Error
				}
				si.Tools = append(si.Tools, tp)
			}
		}
	}
	if len(si.UserTexts) > 0 {
		si.FirstUser = si.UserTexts[0]
	}
	return si, nil
}

// manifestEntry describes one captured request.
type manifestEntry struct {
	File    string            `json:"file"`
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Kind    string            `json:"kind"`
	Session string            `json:"session"`
	Step    int               `json:"step"`
	Headers map[string]string `json:"headers,omitempty"`
}

// manifestEntries are the requests' entries without session and step.
func manifestEntries(reqs []*captured) []manifestEntry {
	width := max(3, len(fmt.Sprint(len(reqs))))
	out := make([]manifestEntry, len(reqs))
	for i, r := range reqs {
		out[i] = manifestEntry{File: fmt.Sprintf("%0*d.json", width, r.Seq), Method: r.Method, Path: r.Path, Kind: r.Kind, Headers: r.Header}
		if r.Kind == "" {
			out[i].Kind = "aux"
		}
	}
	return out
}

func buildManifest(reqs []*captured, sessions []*sessionInfo) []manifestEntry {
	steps := map[string]int{}
	out := manifestEntries(reqs)
	for i, r := range reqs {
		e := &out[i]
		if e.Kind == "main" {
			first := strings.TrimSpace(r.conv.firstUser)
			for _, s := range sessions {
				if strings.TrimSpace(s.FirstUser) == first && first != "" {
					e.Session = s.ID
					break
				}
			}
			if e.Session != "" {
				steps[e.Session]++
				e.Step = steps[e.Session]
			}
		} else {
			joined := strings.Join(r.conv.userTexts, "\n")
		find:
			for _, s := range sessions {
				for _, t := range s.UserTexts {
					if t = strings.TrimSpace(t); t != "" && strings.Contains(joined, t) {
						e.Session = s.ID
						break find
					}
				}
			}
		}
	}
	return out
}

// checkStepCounts compares, per session, the main requests with the stored
// assistant messages: the N-th of each was produced by step N.
func checkStepCounts(manifest []manifestEntry, sessions []*sessionInfo) []string {
	var problems []string
	count := map[string]int{}
	for _, e := range manifest {
		if e.Kind == "main" {
			if e.Session == "" {
				problems = append(problems, fmt.Sprintf("request %s: main request matches no stored session", e.File))
				continue
			}
			count[e.Session]++
		}
	}
	for _, s := range sessions {
		if count[s.ID] != s.Assistants {
			problems = append(problems, fmt.Sprintf("session %s: %d main requests but %d assistant messages", s.ID, count[s.ID], s.Assistants))
		} else {
			logf("session %s (parent %q): %d main requests = %d assistant messages, %d tool parts", s.ID, s.ParentID, count[s.ID], s.Assistants, len(s.Tools))
		}
	}
	return problems
}

type verbatimResult struct {
	parts, found, resent int
	problems             []string
}

// checkVerbatim checks the references' claim that every stored tool result
// (state.output, or state.error) is sent to the model verbatim, as one whole
// JSON string of the request, and re-sent unchanged in every later request
// of its session.
func checkVerbatim(reqs []*captured, manifest []manifestEntry, sessions []*sessionInfo) verbatimResult {
	var res verbatimResult
	strs := make([]map[string]bool, len(reqs))
	joined := make([]string, len(reqs))
	for i, r := range reqs {
		var v any
		if err := json.Unmarshal(r.Body, &v); err != nil {
			continue
		}
		set := map[string]bool{}
		collectStrings(v, set)
		strs[i] = set
		var all []string
		for s := range set {
			all = append(all, s)
		}
		sort.Strings(all)
		joined[i] = strings.Join(all, "\x00")
	}
	for _, s := range sessions {
		for _, tp := range s.Tools {
			res.parts++
			var later, hit int
			for i, e := range manifest {
				if e.Kind != "main" || e.Session != s.ID || e.Step <= tp.Step {
					continue
				}
				later++
				if strs[i][tp.Text] {
					hit++
				}
			}
			if hit > 0 {
				res.found++
			}
			if hit == later && later > 0 {
				res.resent++
			}
			switch {
			case later == 0:
				res.problems = append(res.problems, fmt.Sprintf("%s %s (%s, step %d): no later request to carry its result", s.ID, tp.CallID, tp.Tool, tp.Step))
			case hit == 0:
				sub := false
				for i, e := range manifest {
					if e.Session == s.ID && strings.Contains(joined[i], tp.Text) {
						sub = true
					}
				}
				res.problems = append(res.problems, fmt.Sprintf("%s %s (%s %s, step %d): stored result %q not sent verbatim (found inside a longer string: %v)",
					s.ID, tp.CallID, tp.Tool, tp.Status, tp.Step, clip(tp.Text, 120), sub))
			case hit != later:
				res.problems = append(res.problems, fmt.Sprintf("%s %s (%s, step %d): result sent in %d of %d later requests", s.ID, tp.CallID, tp.Tool, tp.Step, hit, later))
			}
		}
	}
	return res
}

func collectStrings(v any, set map[string]bool) {
	switch x := v.(type) {
	case string:
		set[x] = true
	case []any:
		for _, e := range x {
			collectStrings(e, set)
		}
	case map[string]any:
		for _, e := range x {
			collectStrings(e, set)
		}
	}
}
