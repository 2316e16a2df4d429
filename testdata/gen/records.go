package main

// Cloning recorded JSON Lines records: an object keeps its field order, a
// field is set or replaced in place, and the ids of copied records are
// mapped to fresh ones.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// obj is a JSON object that keeps its field order.
type obj struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseObj(raw []byte) *obj {
	o := &obj{vals: map[string]json.RawMessage{}}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		panic(fmt.Sprintf("not an object: %.80s", raw))
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			panic(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			panic(err)
		}
		k := t.(string)
		if _, ok := o.vals[k]; !ok {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	return o
}

// kv is an object of the keys and values in order: kv("type", "text", "text", s).
func kv(pairs ...any) *obj {
	o := &obj{vals: map[string]json.RawMessage{}}
	for i := 0; i+1 < len(pairs); i += 2 {
		o.set(pairs[i].(string), pairs[i+1])
	}
	return o
}

// clone is a deep copy (the values are raw JSON).
func (o *obj) clone() *obj {
	c := &obj{keys: append([]string(nil), o.keys...), vals: make(map[string]json.RawMessage, len(o.vals))}
	for k, v := range o.vals {
		c.vals[k] = v
	}
	return c
}

// set replaces a field in place, or adds it at the end.
func (o *obj) set(k string, v any) *obj {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	switch v := v.(type) {
	case json.RawMessage:
		o.vals[k] = v
	default:
		o.vals[k] = json.RawMessage(marshal(v))
	}
	return o
}

// del removes a field.
func (o *obj) del(k string) {
	delete(o.vals, k)
	o.keys = slices.DeleteFunc(o.keys, func(x string) bool { return x == k })
}

// sub is a field that is an object, copied.
func (o *obj) sub(k string) *obj { return parseObj(o.vals[k]) }

// edit sets a field that is an object through f.
func (o *obj) edit(k string, f func(*obj)) *obj {
	s := o.sub(k)
	f(s)
	return o.set(k, s)
}

func (o *obj) str(k string) string {
	var s string
	_ = json.Unmarshal(o.vals[k], &s)
	return s
}

func (o *obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(marshal(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// fixture finds the one recorded JSON Lines file matching pattern under
// -fixtures (recordings are redone; their names change) and reads its lines.
func (g *gen) fixture(pattern string) (path string, lines [][]byte) {
	files, _ := filepath.Glob(filepath.Join(g.fixtures, pattern))
	if len(files) == 0 {
		panic(fmt.Errorf("no %s in %s (run from the repository root or set -fixtures)", pattern, g.fixtures))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		panic(err)
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			lines = append(lines, l)
		}
	}
	return files[0], lines
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// remap replaces every UUID in a recorded line with a fresh one, the same
// one for the same UUID (ids stay linked), keeping the version nibble
// (Codex's UUIDv7 ids keep their time order).
func (g *gen) remap(ids map[string]string, line []byte) []byte {
	return uuidRE.ReplaceAllFunc(line, func(u []byte) []byte {
		if n, ok := ids[string(u)]; ok {
			return []byte(n)
		}
		n := []byte(g.uuid())
		if u[14] == '7' {
			copy(n, u[:15]) // time, version
		}
		ids[string(u)] = string(n)
		return n
	})
}

// jsonl writes records, one a line.
type jsonl struct {
	f *os.File
	w *bufio.Writer
}

func createJSONL(path string) (*jsonl, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &jsonl{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (j *jsonl) put(v any) {
	switch v := v.(type) {
	case []byte:
		j.w.Write(v)
	default:
		j.w.WriteString(marshal(v))
	}
	j.w.WriteByte('\n')
}

func (j *jsonl) close() error {
	if err := j.w.Flush(); err != nil {
		return err
	}
	return j.f.Close()
}

// writeFile writes a spill file, its dir made.
func writeFile(path, content string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		panic(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		panic(err)
	}
}

// output is what one planned call produced, before the agent shapes it.
type output struct {
	path    string   // the file read, edited, or searched for (abs)
	pattern string   // grep / glob pattern
	text    string   // bash output, grep or glob listing
	lines   []string // read: the file's lines
	hits    []hit    // grep
	files   []string // glob (relative)
	exit    int
}

type hit struct {
	file string
	line int
	text string
}

// output draws a call's raw output of about p.size bytes; a truncated
// call's is several hundred KB.
func (g *gen) output(p plan) output {
	o := output{}
	switch p.tool {
	case "bash":
		size := p.size
		if p.trunc {
			size = 400000 + g.rng.IntN(800000)
		}
		o.text = lines(size, g.logLine)
		if g.rng.IntN(10) == 0 && !p.trunc && p.size < 1<<20 {
			o.exit = 1 + g.rng.IntN(2)
		}
	case "read":
		o.path = worktree + "/" + g.file()
		if !p.err {
			lines(p.size, func(int) string {
				l := fmt.Sprintf("\t%s := %s(%s) // %s", g.word(), g.word(), g.word(), g.word())
				o.lines = append(o.lines, l)
				return l
			})
		}
	case "grep":
		o.pattern = g.word()
		o.text = lines(p.size, func(int) string {
			h := hit{g.file(), 1 + g.rng.IntN(500), fmt.Sprintf("%s %s %s", g.word(), o.pattern, g.word())}
			o.hits = append(o.hits, h)
			return h.file + ":" + h.text
		})
	case "glob":
		o.pattern = "**/*" + g.word() + "*.go"
		o.text = lines(p.size, func(int) string {
			f := g.file()
			o.files = append(o.files, f)
			return f
		})
	case "edit":
		o.path = worktree + "/" + g.file()
		o.pattern = g.word()
	}
	return o
}

// bashCommand is the command line of a bash call.
func (g *gen) bashCommand(p plan) string {
	if p.size > 1<<20 || p.trunc {
		return "find / -xdev -name '*.go' -exec grep -Hn func {} +"
	}
	return fmt.Sprintf("go test ./%s/... 2>&1 | tail -n +1", dirs[g.rng.IntN(len(dirs))])
}

// sizeMB is a byte count as "1.2MB" / "34.5KB".
func sizeMB(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1fMB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1fKB", float64(n)/1024)
}

// commas writes n with thousands separators (en-US).
func commas(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
