package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"correx/formatters"
	"correx/internal/jsonskim"
	"correx/model"
	"correx/sessions"
)

func (s *sqliteStore) LoadStreamed(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(string, func(string) error) error, error) {
	tc, row, err := s.loadStreamed(ctx, sessionID, partID, false)
	if err != nil || row == nil {
		return tc, sessions.StreamOutput(tc, nil, false), err
	}
	return tc, row.text, nil
}

// LoadStreamedMeta implements sessions.MetaStreamer: LoadStreamed, the
// call's metadata and attachments kept.
func (s *sqliteStore) LoadStreamedMeta(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(string, func(string) error) error, error) {
	tc, row, err := s.loadStreamed(ctx, sessionID, partID, true)
	if err != nil || row == nil {
		return tc, sessions.StreamOutput(tc, nil, false), err
	}
	return tc, row.text, nil
}

// LoadStreamedJSON implements sessions.JSONStreamer: LoadStreamed, its
// text given as the body of the JSON string formatters.Stringify writes
// for it. opencode stores a tool's output with JSON.stringify, whose
// escapes are Stringify's: a stored piece is copied when its escapes are
// those (jsonskim.Canonical), and decoded and encoded again only when not.
func (s *sqliteStore) LoadStreamedJSON(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(string, func(string) error) error, error) {
	tc, row, err := s.loadStreamed(ctx, sessionID, partID, false)
	if err != nil || row == nil {
		return tc, sessions.StreamOutput(tc, nil, true), err
	}
	return tc, row.json, nil
}

// loadStreamed reads part partID for LoadStreamed: as the outline gives
// it (textOnly: without its output and error only) with its scanned row,
// or (row nil) whole, a small row or one the scanner cannot vouch for.
func (s *sqliteStore) loadStreamed(ctx context.Context, sessionID, partID string, textOnly bool) (*model.ToolCall, *scannedRow, error) {
	slot := &partSlot{id: partID, stream: s.c().blobs != nil && !partScanOff, textOnly: textOnly}
	rowid, big, decoded, err := s.readPart(ctx, sessionID, slot)
	if err == nil && decoded && slot.row != nil {
		slot.row.blobs, slot.row.rowid = s.c().blobs, rowid
		return slot.p.Tool, slot.row, nil
	}
	if err == nil && big {
		if elided, row, ok := s.scanRow(rowid, textOnly); ok {
			slot := &partSlot{id: partID}
			if slot.decode(elided[1:]); slot.ok && slot.p.Tool != nil {
				tc := slot.p.Tool
				tc.Elided, tc.ElidedFiles, tc.OutputBytes = true, elided[0] == 'A', row.size-len(elided)+1
				return tc, row, nil
			}
		}
	}
	if err == nil && decoded && slot.ok && slot.p.Tool != nil {
		full := slot.p.Tool
		full.OutputBytes = len(full.Output)
		return full, nil, nil
	}
	full, err := s.LoadOutput(ctx, sessionID, partID)
	return full, nil, err
}

// scannedRow is a large part row, scanned whole once, whose output and
// error are decoded a piece at a time: they are never held beside the
// row. While data holds the row they are decoded from it, else read again
// from the store.
type scannedRow struct {
	blobs           *blobReader
	rowid           int64
	size            int
	output, errText span // in the row; zero: absent or null
	data            []byte
	scratch         *[]byte // data's, given back once text has used it
}

// scanRow reads a large part row (bigRow) with blob I/O and scans it:
// elided is the row as the outline gives it (textOnly: without its output
// and error only), after its A or E byte. ok is false for a row the
// scanner cannot vouch for, or whose output or error is not a string (nor
// null): read those whole.
func (s *sqliteStore) scanRow(rowid int64, textOnly bool) (elided []byte, row *scannedRow, ok bool) {
	if partScanOff {
		return nil, nil, false
	}
	if r, ok := cutScan(s.c().blobs, rowid, textOnly); ok {
		row, ok := r.row(s.c().blobs, rowid)
		return r.p.out, row, ok
	}
	scratch := getScratch()
	buf, err := s.c().blobs.read(rowid, (*scratch)[:0])
	if err != nil {
		putScratch(scratch, buf)
		return nil, nil, false
	}
	str := unsafe.String(unsafe.SliceData(buf), len(buf))
	p, ok := scanElided(str, nil, textOnly)
	// the row is kept for text: render's LazyConversation writes a part as
	// soon as it loads it, so its output is decoded from the row the scan
	// read, not read from the store a second time
	row = &scannedRow{blobs: s.c().blobs, rowid: rowid, size: len(buf), data: buf, scratch: scratch}
	return p.out, row, row.place(str, p, func(sp span) span { return sp }) && ok
}

// place sets where the row's output and error lie, as p found them in
// text (at inRow in the row): false when either is not a string or null.
func (r *scannedRow) place(text string, p partScanner, inRow func(span) span) bool {
	for _, f := range []struct {
		sp  span
		dst *span
	}{{p.output, &r.output}, {p.errText, &r.errText}} {
		switch {
		case f.sp.end == 0 || text[f.sp.at:f.sp.end] == "null":
		case text[f.sp.at] == '"':
			*f.dst = inRow(f.sp)
		default:
			return false
		}
	}
	return true
}

func (r *scannedRow) span(field string) span {
	if field == "error" {
		return r.errText
	}
	return r.output
}

// text writes the row's output (field "output") or error, decoded, to
// write in pieces of whole runes.
func (r *scannedRow) text(field string, write func(string) error) error {
	return r.feed(field, &unquoter{write: write})
}

// json writes the row's output or error as the body of the JSON string
// Stringify writes for it, in pieces (LoadStreamedJSON).
func (r *scannedRow) json(field string, write func(string) error) error {
	return r.feed(field, &unquoter{write: write, escaped: true})
}

// feed feeds the row's output or error, as stored, to u.
func (r *scannedRow) feed(field string, u *unquoter) error {
	sp := r.span(field)
	if sp.end == 0 {
		return nil
	}
	if r.data != nil {
		data := r.data
		defer func() { // again: from the store
			if r.data = nil; r.scratch != nil {
				putScratch(r.scratch, data)
			}
		}()
		for body := data[sp.at+1 : sp.end-1]; len(body) > 0; {
			n := min(blobChunk, len(body))
			if err := u.feed(body[:n], false); err != nil {
				return err
			}
			body = body[n:]
		}
		return u.feed(nil, true)
	}
	err := r.blobs.chunks(r.rowid, sp.at+1, sp.end-1, func(n int) error {
		if n != r.size {
			return fmt.Errorf("part row %d changed in the store while it was read", r.rowid)
		}
		return nil
	}, func(chunk []byte) error { return u.feed(chunk, false) })
	if err != nil {
		return err
	}
	return u.feed(nil, true)
}

// collect is the row's output (field "output") or error, decoded.
func (r *scannedRow) collect(field string) (string, error) {
	var b strings.Builder
	b.Grow(r.span(field).end - r.span(field).at) // the decoded text is no longer
	err := r.text(field, func(p string) error {
		b.WriteString(p)
		return nil
	})
	return b.String(), err
}

// pieceBytes is about how much of a string literal unquotePieces decodes
// at once; tests lower it.
var pieceBytes = 64 << 10

// unquotePieces writes the JSON string literal lit, decoded as
// encoding/json decodes it, to write a piece at a time (pieceBytes of lit
// at a time).
func unquotePieces(lit string, write func(string) error) error {
	return feedPieces(lit, &unquoter{write: write})
}

// feedPieces feeds the body of lit to u, pieceBytes at a time.
func feedPieces(lit string, u *unquoter) error {
	for body := lit[1 : len(lit)-1]; len(body) > 0; {
		n := min(pieceBytes, len(body))
		if err := u.feed([]byte(body[:n]), false); err != nil {
			return err
		}
		body = body[n:]
	}
	return u.feed(nil, true)
}

// unquoter decodes the body of a JSON string literal given in chunks.
// It decodes up to a cut between the body's units (a character, an
// escape, an escaped surrogate pair, an invalid byte), which encoding/json
// decodes one after the other, so each piece decodes alone to the runes it
// gives in place; what follows the cut waits for the next chunk.
// unquoter decodes a JSON string body fed to it in chunks and gives write
// the text in pieces; a piece is valid during the call only (the buffers
// behind it are reused for the next: outputs of many MB are decoded in
// the same few hundred KB).
type unquoter struct {
	carry, buf, out []byte
	write           func(string) error
	// escaped: write gets each piece as the body of the JSON string
	// Stringify writes for it, the stored bytes when jsonskim.Canonical
	escaped bool
	enc     []byte
}

// maxUnit is the longest unit: an escaped surrogate pair.
const maxUnit = 12

func (u *unquoter) feed(chunk []byte, final bool) error {
	u.buf = append(append(u.buf[:0], u.carry...), chunk...)
	data := unsafe.String(unsafe.SliceData(u.buf), len(u.buf))
	limit := len(data) - maxUnit
	if final {
		limit = len(data)
	}
	cut := 0
	for cut < limit {
		if n := jsonskim.ASCIIRun(data, cut); n > 0 {
			cut += min(n, limit-cut) // the common units, without a call each
			continue
		}
		cut += unitLen(data[cut:])
	}
	cut = min(max(cut, 0), len(data))
	u.carry = append(u.carry[:0], data[cut:]...)
	if cut == 0 {
		return nil
	}
	piece := data[:cut]
	if u.escaped && jsonskim.Canonical(piece) {
		return u.write(piece)
	}
	if strings.IndexByte(piece, '\\') >= 0 || !utf8.ValidString(piece) {
		// escapes or invalid bytes; else encoding/json gives it as it is
		var ok bool
		if u.out, ok = jsonskim.AppendUnquoted(u.out[:0], piece); ok {
			piece = unsafe.String(unsafe.SliceData(u.out), len(u.out))
		} else if err := json.Unmarshal([]byte(`"`+piece+`"`), &piece); err != nil {
			return err
		}
	}
	if u.escaped {
		var err error
		if u.enc, err = formatters.AppendStringify(u.enc, piece); err != nil {
			return err
		}
		piece = unsafe.String(unsafe.SliceData(u.enc[1:]), len(u.enc)-2)
	}
	return u.write(piece)
}

// unitLen is the length of the unit s starts with.
func unitLen(s string) int {
	switch c := s[0]; {
	case c == '\\' && len(s) >= 6 && s[1] == 'u':
		// as encoding/json: a surrogate followed by an escape that makes a
		// valid pair with it is one rune
		r := hex4(s[2:6])
		if utf16.IsSurrogate(r) && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' &&
			utf16.DecodeRune(r, hex4(s[8:12])) != unicode.ReplacementChar {
			return 12
		}
		return 6
	case c == '\\':
		return 2
	case c < utf8.RuneSelf:
		return 1
	}
	_, n := utf8.DecodeRuneInString(s)
	return n
}

func hex4(s string) rune {
	n, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return -1
	}
	return rune(n)
}

// decodeBig decodes a large part row, data: the row without its output
// and error as the scanner gives it, then those two decoded from data
// (never through encoding/json's decoder of the whole row); the whole row
// through it when the scanner cannot vouch for it.
func (t *partSlot) decodeBig(data []byte) {
	str := unsafe.String(unsafe.SliceData(data), len(data))
	if p, ok := scanElided(str, nil, true); ok {
		if t.decode(p.out[1:]); t.ok && t.p.Tool != nil {
			tc := t.p.Tool
			var err error
			if tc.Output, err = literal(str, p.output); err == nil {
				if tc.Error, err = literal(str, p.errText); err == nil {
					return
				}
			}
		}
		*t = partSlot{id: t.id}
	}
	t.decode(data)
}

// decodeStreamed decodes a small part row, data, for loadStreamed as
// scanRow and decode give a large one: the row as the outline gives it
// (textOnly: without its output and error only), and a copy of the row
// that its output and error are decoded from when written. encoding/json
// never decodes the row whole (a bash row's metadata holds its output
// again: decoding it was a quarter of writing a 50,000-call conversation).
// A row the scanner cannot vouch for is decoded whole, row left nil.
func (t *partSlot) decodeStreamed(data []byte) {
	str := unsafe.String(unsafe.SliceData(data), len(data))
	if p, ok := scanElided(str, nil, t.textOnly); ok {
		row := &scannedRow{size: len(data)}
		if row.place(str, p, func(sp span) span { return sp }) {
			if t.decode(p.out[1:]); t.ok && t.p.Tool != nil {
				tc := t.p.Tool
				tc.Elided, tc.ElidedFiles, tc.OutputBytes = true, p.out[0] == 'A', len(data)-len(p.out)+1
				row.data, t.row = bytes.Clone(data), row
				return
			}
		}
		t.p, t.ok, t.d = model.Part{}, false, decoder{}
	}
	t.decode(data)
}

// decodeRow decodes the large part row rowid as decodeBig decodes it read
// whole, but without holding it (a row of many MB held with its decoded
// output was twice the output): the row's text as cutScan gives it is
// decoded, then its output and error, read again from where they lie.
// ok is false for a row cutScan does not read; the slot is then as it
// was.
func (t *partSlot) decodeRow(b *blobReader, rowid int64) (ok bool) {
	cs, ok := cutScan(b, rowid, true)
	if !ok {
		return false
	}
	row, ok := cs.row(b, rowid)
	if t.decode(cs.p.out[1:]); ok && t.ok && t.p.Tool != nil {
		tc := t.p.Tool
		var err error
		if tc.Output, err = row.collect("output"); err == nil {
			if tc.Error, err = row.collect("error"); err == nil {
				return true
			}
		}
	}
	*t = partSlot{id: t.id}
	return false
}

// cutRow is a large part row scanned by cutScan.
type cutRow struct {
	size int
	text string      // the row, each string the scan drops cut short
	cuts []cutSpan   // the strings cut short in text, in order
	p    partScanner // as it scanned text
}

// cutScan scans the part row rowid as scanElided (textOnly) scans it read
// whole, without holding it: it reads the row a chunk at a time with its
// strings cut short (stringCutter), scans that, reads again whole the cut
// strings the scan keeps (the others are the output, error and metadata
// it leaves out, the bulk of a large row), and scans the text again. ok
// is false for a row of at most rowStreamMin bytes (read whole into the
// scratch buffer, it is cheaper) or one the scanner cannot vouch for.
func cutScan(b *blobReader, rowid int64, textOnly bool) (r cutRow, ok bool) {
	sized := func(n int) error {
		if r.size == 0 && n <= rowStreamMin {
			return errSmallRow
		}
		if r.size != 0 && n != r.size {
			return errRowChanged
		}
		r.size = n
		return nil
	}
	c := stringCutter{keep: rowCutKeep}
	if c.read(b, rowid, sized) != nil {
		return r, false
	}
	p, ok := elided(partScanner{s: unsafe.String(unsafe.SliceData(c.out), len(c.out)), textOnly: textOnly, noteDropped: true})
	if !ok {
		return r, false
	}
	var text []byte
	prev, d := 0, 0
	for _, l := range c.long {
		for d < len(p.dropped) && p.dropped[d].end <= l.at {
			d++
		}
		if d < len(p.dropped) && p.dropped[d].at <= l.at { // left out: stays cut
			text = append(text, c.out[prev:l.end]...)
			l.at, l.end, prev = len(text)-(l.end-l.at), len(text), l.end
			r.cuts = append(r.cuts, l)
			continue
		}
		text = append(text, c.out[prev:l.at]...)
		if err := b.chunks(rowid, int(l.from), int(l.to), sized, func(chunk []byte) error {
			text = append(text, chunk...)
			return nil
		}); err != nil {
			return r, false
		}
		prev = l.end
	}
	text = append(text, c.out[prev:]...)
	r.text = unsafe.String(unsafe.SliceData(text), len(text))
	r.p, ok = scanElided(r.text, nil, textOnly)
	return r, ok
}

// row is the scanned row whose output and error are read from the store
// where they lie (never held); false when either is not a string or null.
func (r *cutRow) row(b *blobReader, rowid int64) (*scannedRow, bool) {
	row := &scannedRow{blobs: b, rowid: rowid, size: r.size}
	return row, row.place(r.text, r.p, r.rowSpan)
}

// rowSpan is sp of r.text in the row: where the cut string at sp lies
// whole, or where the text's bytes before sp that are not cut lie.
func (r *cutRow) rowSpan(sp span) span {
	shift := 0
	for _, l := range r.cuts {
		if l.at == sp.at && l.end == sp.end {
			return span{int(l.from), int(l.to)}
		}
		if l.end > sp.at {
			break
		}
		shift += int(l.to-l.from) - (l.end - l.at)
	}
	return span{sp.at + shift, sp.end + shift}
}

// rowCutKeep is how much of a string cutScan's first read keeps: the
// strings of a part but its output, error and the metadata opencode
// fills with outputs are shorter, and are not read again.
const rowCutKeep = 4 << 10

// rowStreamMin is the least row decodeRow reads; tests lower it.
var rowStreamMin = blobScratchMax

var (
	errSmallRow   = errors.New("a row read whole")
	errRowChanged = errors.New("the row changed since it was read")
)

// literal decodes the string at sp in s, as encoding/json does; "" when
// sp is absent (zero) or null, an error for a value that is not a string.
func literal(s string, sp span) (string, error) {
	switch lit := s[sp.at:sp.end]; {
	case sp.end == 0 || lit == "null":
		return "", nil
	case lit[0] != '"':
		return "", fmt.Errorf("not a string")
	default:
		body := lit[1 : len(lit)-1]
		if strings.IndexByte(body, '\\') < 0 && utf8.ValidString(body) {
			return strings.Clone(body), nil
		}
		if out, ok := jsonskim.UnquoteSimple(body); ok {
			return out, nil
		}
		var out string
		err := json.Unmarshal([]byte(lit), &out)
		return out, err
	}
}
