package cline

import (
	"strconv"
	"unicode/utf16"
)

// The send-time cut of Cline 3.0.65's message builder (@cline/core
// MessageBuilder.truncateToolResultContent, rebuilt for every request):
// a string content is cut whole; in an array content, a text block's text,
// a file block's content and every string inside any other entry (the
// {query, result, error, success} of read_files, run_commands,
// search_codebase) is cut when it is longer than maxToolResultChars UTF-16
// units; images are left alone. The model is sent JSON.stringify of the
// cut array, or the cut string.

// maxToolResultChars is DEFAULT_MAX_TOOL_RESULT_CHARS. Cline reads
// CLINE_MESSAGE_BUILDER_MAX_TOOL_RESULT_CHARS from its own environment,
// which its files do not record.
const maxToolResultChars = 8000

// cutMarker is the note that replaces the middle (GF in the SDK).
func cutMarker(n int) []uint16 {
	return utf16.Encode([]rune("\n\n...[truncated " + strconv.Itoa(n) + " chars]...\n\n"))
}

// cutString is v after the send-time cut, with what the cut did.
func cutString(v jsValue, limit int) jsValue {
	out, keep, marker := sendCut(v.str, limit)
	if marker == 0 {
		return v
	}
	return jsValue{kind: jsString, str: out, cut: &cutInfo{orig: v.str, keep: keep, marker: marker}}
}

// sendCut is truncateMiddle (H8): a head and a tail of keep units each
// around the marker, the whole at most limit units; the marker's count is
// computed from a first guess of the kept length, as the SDK does.
// marker is 0 when s is not cut.
func sendCut(s []uint16, limit int) (out []uint16, keep, marker int) {
	if len(s) <= limit {
		return s, 0, 0
	}
	guess := cutMarker(len(s) - limit)
	x := max(0, floorHalf(limit-len(guess)))
	m := cutMarker(max(0, len(s)-x*2))
	keep = max(0, floorHalf(limit-len(m)))
	out = make([]uint16, 0, 2*keep+len(m))
	out = append(out, s[:keep]...)
	out = append(out, m...)
	if keep > 0 {
		out = append(out, s[len(s)-keep:]...)
	}
	return out, keep, len(m)
}

// floorHalf is Math.floor(n / 2).
func floorHalf(n int) int {
	if n < 0 {
		return -((-n + 1) / 2)
	}
	return n / 2
}

// sentContent is the tool result content after the send-time cut.
func sentContent(v jsValue, limit int) jsValue {
	switch v.kind {
	case jsString:
		return cutString(v, limit)
	case jsArray:
		out := v
		out.items = make([]jsValue, len(v.items))
		for i, it := range v.items {
			switch blockType(it) {
			case "text":
				out.items[i] = withMember(it, "text", limit)
			case "file":
				out.items[i] = withMember(it, "content", limit)
			case "image":
				out.items[i] = it
			default:
				if it.kind == jsObject {
					out.items[i] = cutNested(it, limit)
				} else {
					out.items[i] = it
				}
			}
		}
		return out
	}
	return v
}

// cutNested cuts every string inside v (truncateNestedStrings), leaving an
// image block (type image, string data and mediaType) whole.
func cutNested(v jsValue, limit int) jsValue {
	switch v.kind {
	case jsString:
		return cutString(v, limit)
	case jsArray, jsObject:
		if isImage(v) {
			return v
		}
		items := make([]jsValue, len(v.items))
		for i, it := range v.items {
			items[i] = cutNested(it, limit)
		}
		v.items = items
	}
	return v
}

// withMember cuts the string member key of a block.
func withMember(v jsValue, key string, limit int) jsValue {
	items := append([]jsValue(nil), v.items...)
	for i, k := range v.keys {
		if utf8Of(k) == key && items[i].kind == jsString {
			items[i] = cutString(items[i], limit)
		}
	}
	v.items = items
	return v
}

func member(v jsValue, key string) (jsValue, bool) {
	if v.kind != jsObject {
		return jsValue{}, false
	}
	for i, k := range v.keys {
		if utf8Of(k) == key {
			return v.items[i], true
		}
	}
	return jsValue{}, false
}

func blockType(v jsValue) string {
	if t, ok := member(v, "type"); ok && t.kind == jsString {
		return utf8Of(t.str)
	}
	return ""
}

func isImage(v jsValue) bool {
	data, d := member(v, "data")
	mt, m := member(v, "mediaType")
	return blockType(v) == "image" && d && m && data.kind == jsString && mt.kind == jsString
}

// resultText is how Cline puts a content on the wire: a string as it is,
// anything else JSON.stringify'd.
func resultText(v jsValue) string {
	if v.kind == jsString {
		return utf8Of(v.str)
	}
	return stringify(v)
}
