package geminicli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/model"
	"correx/sessions"
)

// chatLines are the lines of every main chat file of every fixture.
func chatLines(t *testing.T) map[string][][]byte {
	out := map[string][][]byte{}
	for _, src := range geminiFixtures(t) {
		chats, _ := filepath.Glob(filepath.Join(src, "tmp/*/chats/session-*.jsonl"))
		for _, c := range chats {
			b, err := os.ReadFile(c)
			if err != nil {
				t.Fatal(err)
			}
			out[c] = bytes.SplitAfter(b, []byte("\n"))
		}
	}
	return out
}

// writeChat writes lines as a chat file of a new store: its dir and path.
func writeChat(t *testing.T, name string, lines [][]byte) (string, string) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tmp/proj/chats", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// pagesAreLoad tells whether session id of the store at dir, read in
// pages of 2 from a fresh store, is what Load gives; the pages' warnings
// are returned.
func pagesAreLoad(t *testing.T, dir, id string) (bool, []string) {
	want, err := openLines(t, dir).Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	st := openLines(t, dir)
	var warns []string
	var msgs []model.Message
	for from, more := 0, true; more; {
		p, err := st.LoadOutline(context.Background(), id, from, 2)
		if err != nil {
			t.Fatal(err)
		}
		warns = append(warns, p.Session.Warnings...)
		msgs = append(msgs, p.Session.Messages...)
		from, more = from+len(p.Session.Messages), p.More
	}
	strip := func(ms []model.Message) []model.Message {
		out := make([]model.Message, len(ms))
		for i, m := range ms {
			m.Parts = append([]model.Part(nil), m.Parts...)
			for j := range m.Parts {
				if tc := m.Parts[j].Tool; tc != nil {
					c := *tc
					c.Output, c.Error, c.Sent, c.Elided, c.OutputBytes, c.Metadata = "", "", nil, false, 0, nil
					m.Parts[j].Tool = &c
				}
			}
			out[i] = m
		}
		return out
	}
	return reflect.DeepEqual(strip(msgs), strip(want.Messages)), warns
}

// sessionOf is the session id of a chat's lines (its first metadata line).
func sessionOf(t *testing.T, lines [][]byte) string {
	var meta struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(lines[0], &meta) != nil || meta.SessionID == "" {
		t.Fatalf("no metadata line: %.80s", lines[0])
	}
	return meta.SessionID
}

// TestGeminiReachBackAnywhere: a line that can reach back (a $rewindTo to
// the first prompt, a new run's metadata, a $set of the whole list as it
// stood, a record re-appended with new content), or one that cannot (a
// $set of lastUpdated), put after any line of any fixture's main chat (the
// kinds in turn): the
// chat read in pages of 2, each page cut as soon as its messages are
// stable, is what Load gives. And a page is cut before the file's end.
func TestGeminiReachBackAnywhere(t *testing.T) {
	early := 0
	for path, lines := range chatLines(t) {
		id := sessionOf(t, lines)
		var prompt, record []byte
		for _, l := range lines {
			top, kind, _ := classify(bytes.TrimSpace(l))
			if kind == kindRecord && top.Type == "user" && prompt == nil {
				json.Unmarshal(top.RawID, &top.ID)
				prompt = []byte(`{"$rewindTo":"` + top.ID + `"}` + "\n")
				record = bytes.Replace(bytes.TrimSpace(l), []byte(`"type":"user"`), []byte(`"type":"user","model":"changed"`), 1)
				record = bytes.Replace(record, []byte(`"text":"`), []byte(`"text":"changed `), 1)
				record = append(record, '\n')
			}
		}
		if prompt == nil {
			continue // a resume's stub: its metadata and session context
		}
		inserts := []struct {
			name string
			line []byte
		}{
			{"rewind", prompt},
			{"metadata", append(bytes.TrimSpace(lines[0]), '\n')},
			{"set list", []byte(`{"$set":{"messages":[]}}` + "\n")},
			{"re-appended", record},
			{"lastUpdated", []byte(`{"$set":{"lastUpdated":"2026-12-01T20:38:40.000Z"}}` + "\n")},
		}
		// the kinds in turn, and each after the last lines (past the
		// chat's own reach-backs, where nothing else masks a miss)
		for k := 1; k <= len(lines); k++ {
			for i, in := range inserts {
				if k%len(inserts) != i && k < len(lines)-6 {
					continue
				}
				with := append(append(append([][]byte(nil), lines[:k]...), in.line), lines[k:]...)
				dir, _ := writeChat(t, filepath.Base(path), with)
				ok, warns := pagesAreLoad(t, dir, id)
				if !ok {
					t.Errorf("%s: %s after line %d: the pages are not Load", path, in.name, k)
				}
				for _, w := range warns {
					if strings.Contains(w, "first bytes") {
						t.Errorf("%s: %s after line %d: %s", path, in.name, k, w)
					}
				}
			}
		}
		dir, _ := writeChat(t, filepath.Base(path), lines)
		read := 0
		st := openLines(t, dir)
		newReader := st.Reader
		st.Reader = func(p string, warnf func(int, string, ...any)) sessions.LineReader {
			return countForeseen{countLines{newReader(p, warnf), &read}}
		}
		if _, err := st.LoadOutline(context.Background(), id, 0, 2); err != nil {
			t.Fatal(err)
		}
		if read < len(lines)-1 {
			early++
		}
	}
	if early == 0 {
		t.Error("no first page was cut before the file's end")
	}
}

// TestGeminiMisleadingHead: a record line whose first key names a new
// message while a later one (the key repeated) makes it a new version of
// the first prompt: the page read before it shows the prompt as it was,
// and the page whose lines include it says so.
func TestGeminiMisleadingHead(t *testing.T) {
	dir, path := copyChat(t, geminiFixture)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	id := sessionOf(t, lines)
	var first string
	for _, l := range lines {
		if top, kind, _ := classify(bytes.TrimSpace(l)); kind == kindRecord && top.Type == "user" {
			json.Unmarshal(top.RawID, &first)
			break
		}
	}
	pad := strings.Repeat("x", sessions.ForeseeBytes)
	appendLine(t, path, fmt.Sprintf(`{"id":"new-one","timestamp":"2026-12-01T20:38:40.000Z","type":"user","content":[{"text":"%s"}],"id":%q}`, pad, first))
	ok, warns := pagesAreLoad(t, dir, id)
	if ok {
		t.Error("the pages read the misleading line as Load does: the test misses what it tests")
	}
	n := len(lines)
	if len(lines[n-1]) == 0 {
		n--
	}
	want := fmt.Sprintf("%s:%d: this line is not the record its first bytes name", path, n+1)
	found := false
	for _, w := range warns {
		found = found || strings.HasPrefix(w, want)
	}
	if !found {
		t.Errorf("no warning %q in %q", want, warns)
	}
}

// countForeseen counts the lines a Foreseer is given, and foresees.
type countForeseen struct{ countLines }

func (c countForeseen) Foresee(n int, head []byte, whole bool) {
	c.LineReader.(sessions.Foreseer).Foresee(n, head, whole)
}

// FuzzOrderedObj: on valid JSON, the skimmed object is the decoded one
// (seeds: every line of every fixture chat, and each part of them).
func FuzzOrderedObj(f *testing.F) {
	for _, src := range []string{
		"../../testdata/gemini-cli/gemini-3.8-flash/data",
		"../../testdata/gemini-cli/gemini-2.5-pro-third/data",
	} {
		chats, _ := filepath.Glob(filepath.Join(src, "tmp/*/chats/session-*.jsonl"))
		for _, c := range chats {
			b, _ := os.ReadFile(c)
			for _, l := range bytes.Split(b, []byte("\n")) {
				f.Add(l)
			}
		}
	}
	f.Add([]byte(`{"a":1,"a":2,"\u0041":[{"b":"\"}"}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		got, gok := orderedObj(raw)
		want, wok := orderedObjDecoded(raw)
		if gok != wok || !reflect.DeepEqual(got, want) {
			t.Fatalf("%.200q: skimmed %v %v, decoded %v %v", raw, gok, got, wok, want)
		}
	})
}

// addChatLines seeds f with every line of every fixture chat.
func addChatLines(f *testing.F) {
	chats, _ := filepath.Glob("../../testdata/gemini-cli/*/data/tmp/*/chats/session-*.jsonl")
	for _, c := range chats {
		b, _ := os.ReadFile(c)
		for _, l := range bytes.Split(b, []byte("\n")) {
			f.Add(l)
		}
	}
}

// FuzzDecodeRecord: a record decodes, skimmed or not, as encoding/json
// decodes it (seeds: every line of every fixture chat).
func FuzzDecodeRecord(f *testing.F) {
	addChatLines(f)
	f.Add([]byte(`{"id":"a","ID":"b"}`))
	f.Add([]byte(`{"id":null,"toolCalls":[{"id":"x","result":null,"args":{}}],"thoughts":null,"content":[]}`))
	f.Add([]byte(`{"type":5,"id":"a"}`))
	f.Add([]byte(`{"toolCalls":[null]}`))
	f.Add([]byte(`{"thoughts":[null,{"subject":"s","Description":"d"},{"subject":null,"timestamp":1}]}`))
	f.Add([]byte(`{"thoughts":[{"subject":"a","subject":"b"}],"id":"x"}`))
	f.Add([]byte(`{"thoughts":[1]}`))
	f.Add([]byte(`{"thoughts":{}}`))
	f.Add([]byte(`{"thoughts":[ {"description":"\u00e9\n"} ]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var got, want gcRecord
		gerr := decodeRecord(raw, &got)
		werr := json.Unmarshal(raw, &want)
		if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%.300q: skimmed %v %+v, decoded %v %+v", raw, gerr, got, werr, want)
		}
	})
}

// TestSkimRecordTaken: the skim, not encoding/json, decodes the records
// of the fixture chats (else FuzzDecodeRecord would check nothing).
func TestSkimRecordTaken(t *testing.T) {
	chats, _ := filepath.Glob("../../testdata/gemini-cli/*/data/tmp/*/chats/session-*.jsonl")
	skimmed, records := 0, 0
	for _, c := range chats {
		b, err := os.ReadFile(c)
		require.NoError(t, err)
		for _, l := range bytes.Split(b, []byte("\n")) {
			if !bytes.Contains(l, []byte(`"type":"gemini"`)) && !bytes.Contains(l, []byte(`"type":"user"`)) || bytes.HasPrefix(l, []byte(`{"$`)) {
				continue
			}
			records++
			var r gcRecord
			if skimRecord(l, &r, rawValue) {
				skimmed++
			}
		}
	}
	require.Positive(t, records)
	require.Equal(t, records, skimmed, "every fixture record is skimmed")
}

// FuzzDecodeGCLine: a chat line decodes, skimmed or not, as encoding/json
// decodes it without its resultDisplays or, when that fails, whole.
func FuzzDecodeGCLine(f *testing.F) {
	addChatLines(f)
	f.Add([]byte(`{"id":5,"type":"user"}`))
	f.Add([]byte(`{"$set":{"messages":[]},"sessionId":"s"}`))
	f.Add([]byte(`{"id":"a","Id":"b","$rewindTo":"x"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var got, want gcLine
		gerr := decodeGCLine(raw, &got)
		werr := json.Unmarshal(withoutDisplays(raw), &want)
		if werr != nil {
			want = gcLine{}
			werr = json.Unmarshal(raw, &want)
		}
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%.300q: skimmed %v %+v, decoded %v %+v", raw, gerr, got, werr, want)
		}
	})
}
