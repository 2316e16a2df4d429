package geminicli

// Which messages of a chat file no line still to come can change, so that
// a page is shown before the file's end is read. Every kind of line Gemini
// CLI appends can reach back to the first message: a `$rewindTo` (/rewind)
// drops the list from any earlier message on, a `$set` of messages (a
// resume, a setHistory) replaces the whole list and adds a version to each
// record, a new run adds the whole list to the history it loaded, and a
// record re-appended under its id gives its message a new version. So the
// reader first foresees the lines to come from their heads (a record line
// starts with its id, as JSON.stringify writes it): past the last line that
// can reach back, a message is stable once no line to come names its entry
// or an entry it carries. A line that turns out not to be what its head
// said is named in a warning, and no page is cut early after it.

import (
	"bytes"
	"encoding/json"
	"hash/maphash"

	"correx/sessions"
)

// foresight is what the heads of the lines still to come say.
type foresight struct {
	seen      bool
	end       int            // the last line foreseen
	lastReach int            // the last line that can reach back
	lastOf    map[string]int // by entry id: the last record line naming it
	records   []foreseenLine // the record lines not yet read, in order
	seed      maphash.Seed
	broken    bool // a line read was not what its head said
}

// foreseenLine is a record line to come and the id its head gives.
type foreseenLine struct {
	n  int
	id uint64 // maphash of the id
}

// Foresee implements sessions.Foreseer.
func (r *gcReader) Foresee(n int, head []byte, whole bool) {
	f := &r.fore
	if !f.seen {
		f.seen, f.lastOf, f.seed = true, map[string]int{}, maphash.MakeSeed()
	}
	// a scan foresees from where the last one stopped: the lines it
	// foresaw then and has not read come again
	for k := len(f.records); k > 0 && f.records[k-1].n >= n; k-- {
		f.records = f.records[:k-1]
	}
	f.end = n
	if id, ok := foreseenRecord(head, whole); ok {
		f.lastOf[id] = n
		f.records = append(f.records, foreseenLine{n, maphash.String(f.seed, id)})
		return
	}
	if whole && benignSet(head) {
		return
	}
	f.lastReach = n
	r.walk = stableWalk{} // the list may change under it
}

// foreseenRecord is the id of the record line head starts: exact when the
// line is whole, else as its first key says.
func foreseenRecord(head []byte, whole bool) (string, bool) {
	if whole {
		top, kind, err := classify(head)
		var id string
		if kind != kindRecord || err != nil || json.Unmarshal(top.RawID, &id) != nil || id == "" {
			return "", false
		}
		return id, true
	}
	b, ok := bytes.CutPrefix(bytes.TrimLeft(head, " \t\r"), []byte(`{"id":"`))
	if !ok {
		return "", false
	}
	i := bytes.IndexByte(b, '"')
	if i <= 0 || i+1 >= len(b) || (b[i+1] != ',' && b[i+1] != '}') {
		return "", false
	}
	for _, c := range b[:i] {
		if c == '\\' || c < 0x20 {
			return "", false
		}
	}
	return string(b[:i]), true
}

// benignSet tells whether whole line b is a $set of metadata only: one
// that neither replaces the list nor begins a run.
func benignSet(b []byte) bool {
	top, kind, _ := classify(b)
	var set gcSet
	return kind == kindSet && json.Unmarshal(top.Set, &set) == nil && set.SessionID == nil && set.Messages == nil
}

// check compares line n, as read, with its head: a record line foreseen
// must be a record of the id foreseen (or be skipped). A line appended
// since the foresight is foreseen as it is read.
func (f *foresight) check(r *gcReader, n int, kind lineKind, id string) {
	if f.seen && n > f.end && kind != kindRecord && kind != kindSkipped && kind != kindUnknown {
		// appended since the foresight: it may have reached back
		f.lastReach = n
		r.walk = stableWalk{}
	}
	for len(f.records) > 0 && f.records[0].n < n {
		f.records = f.records[1:]
	}
	if len(f.records) == 0 || f.records[0].n != n {
		return
	}
	want := f.records[0].id
	f.records = f.records[1:]
	harmless := kind == kindSkipped || kind == kindUnknown || kind == kindRecord && (id == "" || maphash.String(f.seed, id) == want)
	if !harmless && !f.broken {
		f.broken = true
		r.warnf(n, "this line is not the record its first bytes name (a key repeated later in it?): the messages shown before it was read may be out of date")
	}
}

// Stable implements sessions.LineReader (see the top of this file).
func (r *gcReader) Stable() int {
	f := &r.fore
	if !f.seen || f.broken || r.cur < f.lastReach || r.cur > f.end {
		return 0
	}
	return r.walk.on(r)
}

// final tells whether no line to come names any of es.
func (r *gcReader) final(es ...*gcEntry) bool {
	for _, e := range es {
		if r.fore.lastOf[e.id] > r.cur {
			return false
		}
	}
	return true
}

// stableWalk walks the list as geminiShown does, a step at a time, and
// stops at the first entry a line to come may change; it resumes there
// as more lines are read. A message counts once the walk has emitted the
// next one: until then the rewrites that follow may still be carried on
// it.
type stableWalk struct {
	stack   []walkFrame
	seen    map[*gcEntry]bool
	shown   map[*gcRewrite]bool
	carrier *gcEntry
	count   int
}

// walkFrame is a list being walked: the reader's own (it grows), or the
// entries a rewrite replaced.
type walkFrame struct {
	root bool
	list []*gcEntry
	i    int
}

// on walks on as far as the entries are final: the stable messages.
func (w *stableWalk) on(r *gcReader) int {
	if w.seen == nil {
		w.stack = []walkFrame{{root: true}}
		w.seen, w.shown = map[*gcEntry]bool{}, map[*gcRewrite]bool{}
	}
	for len(w.stack) > 0 {
		top := &w.stack[len(w.stack)-1]
		list := top.list
		if top.root {
			list = r.list
		}
		if top.i == len(list) {
			if top.root {
				break
			}
			w.stack = w.stack[:len(w.stack)-1]
			continue
		}
		e := list[top.i]
		switch rw := e.rewrite; {
		case rw != nil && w.shown[rw]:
		case rw != nil:
			if !r.final(rw.entries...) { // carried on the last entry emitted
				return w.count
			}
			w.shown[rw] = true
			top.i++
			w.stack = append(w.stack, walkFrame{list: rw.replaced})
			continue
		case !w.seen[e]:
			if !r.final(e) {
				return w.count
			}
			w.seen[e] = true
			if w.carrier != nil && w.carrier.isMessage() {
				w.count++
			}
			w.carrier = e
		}
		top.i++
	}
	return w.count
}

var _ sessions.Foreseer = (*gcReader)(nil)
