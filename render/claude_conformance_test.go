package render_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"correx/formatters"
	"correx/internal/fixtures"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// Claude Code conformance: for every request the real Claude Code made in a
// recorded run (testdata/claude-code/<flavour>, see testdata/record), the
// Anthropic conversation correx rebuilds from the transcript must equal the
// captured `messages`, and every tool_result on the wire must equal what
// `correx show` prints for its call.

func claudeFixtureDirs(t *testing.T) []string {
	dirs := manifestDirs("../testdata/claude-code/*")
	if len(dirs) == 0 {
		t.Fatal("no recorded fixtures under testdata/claude-code: run `go run ./testdata/record -flavour claude-code`")
	}
	return dirs
}

func TestClaudeConformance(t *testing.T) {
	for _, dir := range claudeFixtureDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			st, err := sessions.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			loaded := map[string]*model.Session{}
			shown := map[string]bool{} // calls whose result was compared
			checked, results := 0, 0
			for _, e := range readManifest(t, dir) {
				if e.Kind != "main" {
					continue
				}
				sess := loadOnce(t, st, loaded, e, func(sess *model.Session) {
					if sess.Info.Agent != model.AgentClaudeCode {
						t.Fatalf("%s: agent %q", e.Session, sess.Info.Agent)
					}
					for _, w := range sess.Warnings {
						t.Errorf("%s: warning: %s", e.Session, w)
					}
				})
				p := providerOf(strings.SplitN(e.Path, "?", 2)[0]) // /v1/messages?beta=true
				if p != render.Anthropic {
					t.Fatalf("%s: endpoint %s", e.File, e.Path)
				}
				if req := sess.StepRequest(e.Step); req == nil || req.Rebuilt != "" {
					t.Errorf("%s (session %s step %d): not the logged request: %v", e.File, e.Session, e.Step, req)
				}
				want := captured(t, dir, e, p)
				got, err := rendered(t, sess, p, e.Step, render.Model{})
				if err != nil {
					t.Errorf("%s: %v", e.File, err)
					continue
				}
				if path, g, w := firstDiff("", got, want); path != "-" {
					t.Errorf("%s (session %s step %d): differs at %s:\n got: %s\nwant: %s", e.File, e.Session, e.Step, path, short(g), short(w))
				}
				sentKinds := wireBlockKinds(want)
				for _, r := range wireResults(p, want) {
					ref, ok := sess.FindCall(r.id)
					if !ok {
						t.Errorf("%s: tool result for unknown call %q", e.File, r.id)
						continue
					}
					v := formatters.Visible(ref.Call, nil)
					if v.Text != r.text {
						t.Errorf("%s: call %s (%s): show prints %s, the wire has %s", e.File, r.id, ref.Call.Tool, short(v.Text), short(r.text))
					}
					if got, sent := contentKinds(v.Result), sentKinds[r.id]; got != sent {
						t.Errorf("%s: call %s (%s): result items %s, the wire has %s", e.File, r.id, ref.Call.Tool, got, sent)
					}
					shown[r.id] = true
					results++
				}
				// the projections build for every provider
				for _, other := range render.Providers {
					if _, err := render.Conversation(sess, other, e.Step, render.Model{}); err != nil {
						t.Errorf("%s: %s projection: %v", e.File, other, err)
					}
				}
				checked++
			}
			for id, sess := range loaded {
				for _, r := range sess.ToolCalls() {
					if !shown[r.Call.CallID] {
						t.Errorf("session %s: call %s (%s) never reached a recorded request", id, r.Call.CallID, r.Call.Tool)
					}
				}
			}
			t.Logf("%s: %d requests, %d tool results compared, %d calls", filepath.Base(dir), checked, results, len(shown))
			if checked == 0 {
				t.Fatal("no main request in the manifest")
			}
		})
	}
}

// With Claude Code's request log removed, every request is rebuilt from
// the transcript and says so, and carries the same tool results as the
// recorded request: the parallel results of a step in one message in the
// order they arrived, is_error as sent, the same content (but for the
// system reminders Claude Code appended, which the transcript does not
// hold).
func TestClaudeRebuiltFromTranscript(t *testing.T) {
	allMarks := 0
	for _, dir := range claudeFixtureDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			st, err := sessions.Open(fixtures.ClaudeCopy(t, dir, fixtures.ClaudeWithoutRecords))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			loaded := map[string]*model.Session{}
			steps, marks := 0, 0
			for _, e := range readManifest(t, dir) {
				if e.Kind != "main" {
					continue
				}
				sess := loadOnce(t, st, loaded, e, func(sess *model.Session) {
					if !hasWarning(sess, model.RebuiltLabel) {
						t.Errorf("%s: no warning that the requests were rebuilt: %q", e.Session, sess.Warnings)
					}
				})
				if req := sess.StepRequest(e.Step); req == nil || req.Rebuilt == "" {
					t.Errorf("%s: step %d not labelled as rebuilt", e.File, e.Step)
				}
				got, err := rendered(t, sess, render.Anthropic, e.Step, render.Model{})
				if err != nil {
					t.Fatalf("%s: %v", e.File, err)
				}
				want := captured(t, dir, e, render.Anthropic)
				g, w := resultGroups(got), resultGroups(want)
				if !reflect.DeepEqual(g, w) {
					t.Errorf("%s (step %d): tool results\n got: %q\nwant: %q", e.File, e.Step, g, w)
				}
				// the cache mark on the result that arrived last, as sent
				if id := cachedResult(want); id != "" && cachedResult(got) != id {
					t.Errorf("%s (step %d): cache_control on %q, want on %q", e.File, e.Step, cachedResult(got), id)
				}
				if cachedResult(want) != "" {
					marks++
				}
				steps++
			}
			if steps == 0 {
				t.Fatal("no main request in the manifest")
			}
			t.Logf("%d main requests, %d with a cache mark on a result", steps, marks)
			allMarks += marks
		})
	}
	// models with the <total_tokens> reminder as a system message end every
	// request with it, so a fixture may have no mark on a result; all of
	// them together must have some
	if allMarks == 0 {
		t.Fatal("no request of any fixture has its cache mark on a tool result")
	}
}

// cachedResult is the tool_use_id of the tool_result carrying the last
// message's cache_control, "" when that is not a tool_result.
func cachedResult(conv any) string {
	msgs := conv.([]any)
	if len(msgs) == 0 {
		return ""
	}
	for _, b := range blocks(msgs[len(msgs)-1].(map[string]any)["content"]) {
		if _, ok := b["cache_control"]; ok && b["type"] == "tool_result" {
			id, _ := b["tool_use_id"].(string)
			return id
		}
	}
	return ""
}

func hasWarning(sess *model.Session, part string) bool {
	for _, w := range sess.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

// resultGroups is, per message holding tool_result blocks, each block as
// canonical JSON without cache_control and without appended system
// reminders.
func resultGroups(conv any) [][]string {
	var out [][]string
	for _, m := range conv.([]any) {
		var group []string
		for _, b := range blocks(m.(map[string]any)["content"]) {
			if b["type"] != "tool_result" {
				continue
			}
			c := map[string]any{}
			for k, v := range b {
				if k != "cache_control" {
					c[k] = v
				}
			}
			c["content"] = withoutReminders(c["content"])
			j, _ := json.Marshal(c)
			group = append(group, string(j))
		}
		if group != nil {
			out = append(out, group)
		}
	}
	return out
}

func withoutReminders(content any) any {
	switch c := content.(type) {
	case string:
		if i := strings.Index(c, "\n\n<system-reminder>"); i >= 0 {
			c = c[:i]
		}
		return strings.TrimRight(c, " \t\r\n")
	case []any:
		var out []any
		for _, b := range c {
			m, _ := b.(map[string]any)
			if txt, ok := m["text"].(string); ok {
				if strings.HasPrefix(txt, "<system-reminder>") {
					continue
				}
				m = map[string]any{"type": m["type"], "text": strings.TrimRight(txt, "\n")}
			}
			out = append(out, m)
		}
		return out
	}
	return content
}

// wireBlockKinds is, per tool_use_id, the kinds of the blocks of a
// tool_result's content on Claude Code's wire, as contentKinds names them
// ("" for a string).
func wireBlockKinds(conv any) map[string]string {
	out := map[string]string{}
	for _, m := range conv.([]any) {
		for _, b := range blocks(m.(map[string]any)["content"]) {
			if b["type"] != "tool_result" {
				continue
			}
			var kinds []string
			for _, c := range blocks(b["content"]) {
				k, _ := c["type"].(string)
				if k == "image" || k == "document" {
					k = string(model.ContentFile)
				}
				kinds = append(kinds, k)
			}
			id, _ := b["tool_use_id"].(string)
			out[id] = strings.Join(kinds, ",")
		}
	}
	return out
}

// contentKinds is the kinds of a result value's content items, "" for a
// text or error result.
func contentKinds(r model.ToolResultValue) string {
	var kinds []string
	for _, c := range r.Content {
		kinds = append(kinds, string(c.Type))
	}
	return strings.Join(kinds, ",")
}
