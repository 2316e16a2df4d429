package geminicli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"correx/internal/fixtures"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// geminiFixtures are the Gemini CLI fixtures' sources.
func geminiFixtures(t *testing.T) []string {
	var out []string
	for _, f := range fixtures.All(t) {
		if f.Agent == string(model.AgentGeminiCLI) {
			out = append(out, f.Source)
		}
	}
	if len(out) == 0 {
		t.Fatal("no Gemini CLI fixture")
	}
	return out
}

// openLines opens a Gemini CLI store as the LineStore it is.
func openLines(t *testing.T, src string) *sessions.LineStore {
	st, ok, err := Open(src, true)
	if err != nil || !ok {
		t.Fatalf("open %s: %v %v", src, ok, err)
	}
	t.Cleanup(func() { st.Close() })
	return st.(*sessions.LineStore)
}

// lowElide elides every record and result over 64 bytes for the test,
// and has a line read again without every string it can leave unread.
func lowElide(t *testing.T) {
	old, leave := elideBytes, sessions.LeaveBytes
	elideBytes, sessions.LeaveBytes = 64, 2
	t.Cleanup(func() { elideBytes, sessions.LeaveBytes = old, leave })
}

// outline reads session id in pages of n messages (0: one page), each
// elided call read whole with LoadOutput; its info is the last page's.
func outline(t *testing.T, st *sessions.LineStore, id string, n int) *model.Session {
	ctx := context.Background()
	var sess *model.Session
	for from := 0; ; {
		p, err := st.LoadOutline(ctx, id, from, n)
		if err != nil {
			t.Fatalf("outline %s from %d: %v", id, from, err)
		}
		if p.From != from {
			t.Fatalf("page from %d, want %d", p.From, from)
		}
		msgs := p.Session.Messages
		for mi := range msgs {
			msgs[mi].Parts = append([]model.Part(nil), msgs[mi].Parts...)
			for pi, pt := range msgs[mi].Parts {
				if pt.Tool != nil && pt.Tool.Elided {
					full, err := st.LoadOutput(ctx, id, pt.ID)
					if err != nil {
						t.Fatalf("output %s: %v", pt.ID, err)
					}
					msgs[mi].Parts[pi].Tool = full
				}
			}
		}
		if sess == nil {
			sess = p.Session
		} else { // a page's info is the file's as read so far
			sess.Messages = append(sess.Messages, msgs...)
			sess.Info = p.Session.Info
		}
		if !p.More {
			return sess
		}
		from += len(msgs)
	}
}

// TestGeminiLazyIsLoad: the outline of every fixture session, in pages of
// every size, with the elided calls read with LoadOutput, is Load.
func TestGeminiLazyIsLoad(t *testing.T) {
	lowElide(t)
	ctx := context.Background()
	for _, src := range geminiFixtures(t) {
		st := openLines(t, src)
		infos, err := st.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range infos {
			want, err := st.Load(ctx, in.ID)
			if err != nil {
				t.Fatal(err)
			}
			elided := 0
			for _, n := range []int{1, 2, 7, 0} {
				p, err := st.LoadOutline(ctx, in.ID, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range p.Session.ToolCalls() {
					if r.Call.Elided {
						elided++
					}
				}
				got := outline(t, openLines(t, src), in.ID, n)
				got.Info.Messages = want.Info.Messages // counted per page
				if !reflect.DeepEqual(got.Messages, want.Messages) || got.Info != want.Info {
					t.Errorf("%s %s pages of %d: the outline is not Load", src, in.ID, n)
				}
			}
			if in.ToolCalls > 0 && elided == 0 {
				t.Errorf("%s %s: no call elided", src, in.ID)
			}
		}
	}
}

// TestGeminiStoredByPlace: the wire of every step is the same whether
// Stored holds the records or their places in the file.
func TestGeminiStoredByPlace(t *testing.T) {
	ctx := context.Background()
	for _, src := range geminiFixtures(t) {
		infos, err := openLines(t, src).List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range infos {
			wire := func(elide int) ([]string, int) {
				old := elideBytes
				elideBytes = elide
				defer func() { elideBytes = old }()
				s, err := openLines(t, src).Load(ctx, in.ID)
				if err != nil {
					t.Fatal(err)
				}
				places := 0
				for _, m := range s.Messages {
					for _, raw := range m.Stored {
						if strings.Contains(string(raw), `"line":{"N":`) {
							places++
						}
					}
				}
				var out []string
				for step := 1; step <= len(s.AssistantSteps()); step++ {
					v, err := render.Conversation(s, render.Gemini, step, render.Model{})
					if err != nil {
						t.Fatal(err)
					}
					b, _ := render.MarshalIndent(v)
					out = append(out, string(b)+"\n"+render.WireNote(s, render.Gemini, step, render.OwnWireGaps(s, render.Gemini, step)))
				}
				return out, places
			}
			inline, n := wire(1 << 30)
			placed, m := wire(64)
			if n != 0 || m == 0 {
				t.Fatalf("%s: %d and %d records by place", src, n, m)
			}
			if !reflect.DeepEqual(inline, placed) {
				t.Errorf("%s %s: the wire differs when Stored keeps records by place", src, in.ID)
			}
		}
	}
}

// copyChat copies the main chat file of fixture src into a new store and
// returns the store's dir and the copy's path.
func copyChat(t *testing.T, src string) (string, string) {
	chats, _ := filepath.Glob(filepath.Join(src, "tmp/*/chats/session-*.jsonl"))
	b, err := os.ReadFile(chats[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "tmp/proj/chats", filepath.Base(chats[0]))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

func appendLine(t *testing.T, path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

// TestGeminiRewindReachesBack: a $rewindTo can drop the list from its
// first prompt on, so a page never shows a message before the file's end
// is read: the pages of a chat whose last line rewinds to its second
// prompt are Load's, read before and after that line is appended, and
// only the appended line is read again.
func TestGeminiRewindReachesBack(t *testing.T) {
	ctx := context.Background()
	dir, path := copyChat(t, geminiFixture)
	st := openLines(t, dir)
	lines := 0
	newReader := st.Reader
	st.Reader = func(p string, warnf func(int, string, ...any)) sessions.LineReader {
		r := newReader(p, warnf)
		if r == nil {
			return nil
		}
		return countLines{r, &lines}
	}
	infos, err := st.List(ctx)
	if err != nil || len(infos) != 1 {
		t.Fatalf("list: %v %v", infos, err)
	}
	id := infos[0].ID
	before := outline(t, st, id, 2)
	var prompts []string
	for _, m := range before.Messages {
		if m.Role == model.RoleUser && len(m.Parts) > 0 && !m.Parts[0].Synthetic {
			prompts = append(prompts, m.ID)
		}
	}
	if len(prompts) < 2 {
		t.Fatalf("prompts %v", prompts)
	}
	read := lines
	appendLine(t, path, `{"$rewindTo":"`+prompts[1]+`"}`)
	after := outline(t, st, id, 2)
	if lines != read+1 {
		t.Errorf("%d lines read for one appended", lines-read)
	}
	want, err := openLines(t, dir).Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	after.Info.Messages = want.Info.Messages
	if !reflect.DeepEqual(after.Messages, want.Messages) || after.Info != want.Info {
		t.Error("the pages after the rewind are not Load")
	}
	for _, m := range after.Messages {
		if m.ID == prompts[1] {
			t.Fatalf("the rewound prompt %s is still shown", m.ID)
		}
	}
	if len(after.Messages) >= len(before.Messages) {
		t.Errorf("%d messages after the rewind, %d before", len(after.Messages), len(before.Messages))
	}
	// a store opened on the rewound file: its first page of 2 is Load's
	p, err := openLines(t, dir).LoadOutline(ctx, id, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Session.Messages[:2], want.Messages[:2]) {
		t.Error("the first page of the rewound chat is not Load's")
	}
}

// countLines counts the lines a reader is given.
type countLines struct {
	sessions.LineReader
	n *int
}

func (c countLines) Line(l sessions.Line, b []byte, last bool) {
	*c.n++
	c.LineReader.Line(l, b, last)
}

// TestGeminiWithoutDisplays: a record line without its calls'
// resultDisplay strings decodes as the line does, on every line of every
// fixture and on lines made to mislead it.
func TestGeminiWithoutDisplays(t *testing.T) {
	check := func(name string, b []byte) {
		var want, got gcLine
		errWant := json.Unmarshal(b, &want)
		errGot := json.Unmarshal(withoutDisplays(b), &got)
		if (errWant == nil) != (errGot == nil) || !reflect.DeepEqual(want, got) {
			t.Errorf("%s: decodes as %+v (%v), want %+v (%v)", name, got, errGot, want, errWant)
		}
	}
	shrunk := 0
	for _, src := range geminiFixtures(t) {
		files, _ := filepath.Glob(filepath.Join(src, "tmp/*/chats/*.jsonl"))
		more, _ := filepath.Glob(filepath.Join(src, "tmp/*/chats/*/*.jsonl"))
		for _, f := range append(files, more...) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				check(filepath.Base(f)+":"+string(rune('0'+i%10)), []byte(line))
				if len(withoutDisplays([]byte(line))) < len(line) {
					shrunk++
				}
			}
		}
	}
	if shrunk == 0 {
		t.Error("no fixture line lost a resultDisplay")
	}
	for _, line := range []string{
		`{"id":"a","type":"gemini","toolCalls":[{"id":"c","args":{"resultDisplay":"kept \" \\"},"resultDisplay":"x\\\"y","result":[{"text":"r"}]}]}`,
		`{"id":"a","resultDisplay":"top","toolCalls":[{"id":"c","resultDisplay":{"summary":"s"}},{"id":"d","resultDisplay" : "z"}]}`,
		`{"id":"a","toolCalls":[{"id":"c","resultDisplay":"unterminated}]}`,
		`{"id":"a","toolCalls":["resultDisplay",{"resultDisplay":["s"]}]}`,
	} {
		check(line, []byte(line))
	}
}
