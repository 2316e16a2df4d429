package copilot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"correx/model"
	"correx/render"
	"correx/sessions"
	"correx/sessions/copilot"
)

// TestWireExact: every request of every recorded Copilot run, rebuilt from
// its events.jsonl, equals the captured `messages` (without the system
// message) token for token: key order, a null member against a missing one
// (`"refusal": null`), every value; only the places render names as gaps
// may differ, and there the captured value replaces the rendered one. The
// CLI conformance test compares decoded JSON, which takes a null for a
// missing key and ignores key order.
func TestWireExact(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/copilot/*")
	if len(dirs) == 0 {
		t.Fatal("no recorded copilot fixture")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var manifest []struct {
				File    string `json:"file"`
				Kind    string `json:"kind"`
				Session string `json:"session"`
				Step    int    `json:"step"`
			}
			readJSON(t, filepath.Join(dir, "requests", "manifest.json"), &manifest)
			st, err := sessions.Open(filepath.Join(dir, "data"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			gaps, checked := 0, 0
			for _, e := range manifest {
				if e.Kind != "main" {
					continue
				}
				sess, err := st.Load(context.Background(), e.Session)
				if err != nil {
					t.Fatal(err)
				}
				conv, err := render.Conversation(sess, render.OpenAIChat, e.Step, render.Model{})
				if err != nil {
					t.Fatal(err)
				}
				raw, err := render.Marshal(conv)
				if err != nil {
					t.Fatal(err)
				}
				got := parse(t, raw).list
				body, err := os.ReadFile(filepath.Join(dir, "requests", e.File))
				if err != nil {
					t.Fatal(err)
				}
				var want []*node
				for _, m := range parse(t, body).member("messages").list {
					if m.member("role").scalar != "system" {
						want = append(want, m)
					}
				}
				for _, g := range render.OwnWireGaps(sess, render.OpenAIChat, e.Step) {
					if g.Item < len(got) && g.Item < len(want) {
						if gn, wn := got[g.Item].at(g.Path), want[g.Item].at(g.Path); gn != nil && wn != nil && gn.String() != wn.String() {
							*gn = *wn
							gaps++
						}
					}
				}
				if len(got) != len(want) {
					t.Errorf("%s: %d messages, want %d", e.File, len(got), len(want))
				}
				for i := range min(len(got), len(want)) {
					if g, w := got[i].String(), want[i].String(); g != w {
						t.Errorf("%s: message %d:\n got: %s\nwant: %s", e.File, i, clip(g), clip(w))
					}
				}
				checked++
			}
			t.Logf("%d requests token for token, %d labelled gaps", checked, gaps)
		})
	}
}

// TestGapsNamed: the failed calls of a run are named as gaps of that
// run's later requests only, and a resumed run sends their stored message.
func TestGapsNamed(t *testing.T) {
	st, err := sessions.Open("../../testdata/copilot/copilot/data")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	infos, err := st.List(context.Background())
	if err != nil || len(infos) != 1 {
		t.Fatalf("list: %v %v", infos, err)
	}
	sess, err := st.Load(context.Background(), infos[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	steps := sess.AssistantSteps()
	last := sess.Messages[steps[len(steps)-1]].Run
	failed := 0
	for _, r := range sess.ToolCalls() {
		if r.Call.Status != model.StatusError {
			continue
		}
		failed++
		if r.Call.SentUnknown == "" {
			t.Errorf("failed call %s: SentUnknown not set", r.Call.CallID)
		}
		for step := range steps {
			named := false
			for _, g := range render.OwnWireGaps(sess, render.OpenAIChat, step+1) {
				named = named || g.CallID == r.Call.CallID && g.Why == copilot.ResultGap
			}
			m := sess.Messages[steps[step]]
			sentAfter := steps[step] > r.Message
			if want := sentAfter && m.Run == sess.Messages[r.Message].Run; named != want {
				t.Errorf("call %s, step %d (run %d of %d): gap named %v, want %v", r.Call.CallID, step+1, m.Run, last, named, want)
			}
		}
	}
	if failed == 0 {
		t.Fatal("no failed call in the fixture")
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// node is decoded JSON that keeps key order and null members.
type node struct {
	keys   []string
	vals   []*node // object members, in order
	list   []*node
	scalar any  // string, json.Number, bool or nil
	kind   byte // '{', '[' or 0
}

func parse(t *testing.T, b []byte) *node {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := decodeNode(dec)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func decodeNode(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		n := &node{kind: '{'}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeNode(dec)
			if err != nil {
				return nil, err
			}
			n.keys, n.vals = append(n.keys, k.(string)), append(n.vals, v)
		}
		_, err = dec.Token()
		return n, err
	case json.Delim('['):
		n := &node{kind: '['}
		for dec.More() {
			v, err := decodeNode(dec)
			if err != nil {
				return nil, err
			}
			n.list = append(n.list, v)
		}
		_, err = dec.Token()
		return n, err
	}
	return &node{scalar: tok}, nil
}

func (n *node) member(k string) *node {
	for i, key := range n.keys {
		if key == k {
			return n.vals[i]
		}
	}
	return &node{}
}

func (n *node) at(path []string) *node {
	for _, k := range path {
		switch n.kind {
		case '{':
			found := false
			for i, key := range n.keys {
				if key == k {
					n, found = n.vals[i], true
					break
				}
			}
			if !found {
				return nil
			}
		case '[':
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(n.list) {
				return nil
			}
			n = n.list[i]
		default:
			return nil
		}
	}
	return n
}

// String is n as compact JSON in its own order.
func (n *node) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *node) write(b *strings.Builder) {
	switch n.kind {
	case '{':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			n.vals[i].write(b)
		}
		b.WriteByte('}')
	case '[':
		b.WriteByte('[')
		for i, v := range n.list {
			if i > 0 {
				b.WriteByte(',')
			}
			v.write(b)
		}
		b.WriteByte(']')
	default:
		sb, _ := json.Marshal(n.scalar)
		b.Write(sb)
	}
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}
