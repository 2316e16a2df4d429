package sessions

import (
	"context"
	"encoding/json"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"correx/model"
)

// TextStreamer is implemented by stores that can give a call's output and
// error a piece at a time, so that a writer never holds them whole.
type TextStreamer interface {
	// LoadStreamed reads tool part partID of session sessionID as an
	// outline gives a large one (model.ToolCall.Elided: output, error,
	// attachments and big metadata left out) and returns text, which
	// writes its output (field "output") or error ("error"), decoded as
	// LoadOutput decodes them, to write in pieces of whole runes.
	LoadStreamed(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(field string, write func(string) error) error, error)
}

func (s *sqliteStore) LoadStreamed(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(string, func(string) error) error, error) {
	if rowid, ok, err := s.bigRow(ctx, sessionID, partID); err == nil && ok && !partScanOff {
		if buf, err := s.blobs.read(rowid, nil); err == nil {
			str := unsafe.String(unsafe.SliceData(buf), len(buf))
			if p, ok := scanElided(str, nil); ok && streamable(str, p.output) && streamable(str, p.errText) {
				slot := &partSlot{id: partID}
				slot.decode(p.out[1:])
				if slot.ok && slot.p.Tool != nil {
					tc := slot.p.Tool
					tc.Elided, tc.ElidedFiles, tc.OutputBytes = true, p.out[0] == 'A', len(buf)-len(p.out)+1
					return tc, func(field string, write func(string) error) error {
						sp := p.output
						if field == "error" {
							sp = p.errText
						}
						if sp.end == 0 || str[sp.at] != '"' {
							return nil // absent or null: LoadOutput's ""
						}
						return unquotePieces(str[sp.at:sp.end], write)
					}, nil
				}
			}
		}
	}
	// a small row, or one the scanner cannot vouch for: read it whole
	full, err := s.LoadOutput(ctx, sessionID, partID)
	if err != nil {
		return nil, nil, err
	}
	return full, func(field string, write func(string) error) error {
		if field == "error" {
			return write(full.Error)
		}
		return write(full.Output)
	}, nil
}

// streamable reports whether the value at sp (if any) decodes as
// LoadOutput's decoder reads it into a string: a string, or null.
func streamable(s string, sp span) bool {
	return sp.end == 0 || s[sp.at] == '"' || s[sp.at:sp.end] == "null"
}

// pieceBytes is about how much of a string literal unquotePieces decodes
// at once; tests lower it.
var pieceBytes = 64 << 10

// unquotePieces writes the JSON string literal lit, decoded as
// encoding/json decodes it, to write a piece at a time. A piece is cut
// between the literal's units (a character, an escape, an escaped
// surrogate pair, an invalid byte), which encoding/json decodes one after
// the other, so each piece decodes alone to the runes it gives in place.
func unquotePieces(lit string, write func(string) error) error {
	body := lit[1 : len(lit)-1]
	for len(body) > 0 {
		cut := 0
		for cut < len(body) && cut < pieceBytes {
			cut += unitLen(body[cut:])
		}
		var piece string
		if err := json.Unmarshal([]byte(`"`+body[:min(cut, len(body))]+`"`), &piece); err != nil {
			return err
		}
		if err := write(piece); err != nil {
			return err
		}
		body = body[min(cut, len(body)):]
	}
	return nil
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
