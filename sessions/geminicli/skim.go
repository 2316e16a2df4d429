package geminicli

// Skimming a chat record before it is decoded: a call's resultDisplay is
// what the CLI showed (a shell call's whole output), never sent and never
// read by correx, often most of the record's bytes. Decoding skips it
// only after scanning it byte by byte; skimming finds its end with
// bytes.IndexByte (jsonskim).

import "correx/internal/jsonskim"

// withoutDisplays is record line b with the string value of every
// toolCalls[].resultDisplay replaced by "" (b itself when it has none):
// the other values keep their bytes. b must be valid JSON for the result
// to decode as b does; any other b is returned as it is.
func withoutDisplays(b []byte) []byte {
	var out []byte
	last := 0          // b[last:] is not yet in out
	depth := 0         // of objects and arrays around the current byte
	toolCalls := -1    // depth of the toolCalls array, -1 outside it
	key := []byte(nil) // the last string at depth 1, or in a call
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			if depth < toolCalls {
				toolCalls = -1
			}
			i++
		case '"':
			end := jsonskim.StringEnd(b, i)
			if end < 0 {
				return b
			}
			s := b[i:end]
			j := end
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n') {
				j++
			}
			if j < len(b) && b[j] == ':' {
				key = s
				if depth == 1 && string(s) == `"toolCalls"` {
					toolCalls = depth + 1
				}
				i = j + 1
				continue
			}
			if toolCalls > 0 && depth == toolCalls+1 && string(key) == `"resultDisplay"` && len(s) > 2 {
				out = append(append(out, b[last:i]...), `""`...)
				last = end
			}
			key = nil
			i = end
		default:
			i++
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}
