package tui

import (
	"path/filepath"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// Syntax highlighting is done one line at a time, only for the lines on
// screen. For indented JSON that is exact (no token spans lines); for source
// files it is a close approximation (a block comment loses its colour on
// its inner lines), which is the price of never tokenising a huge output.

var lexerCache sync.Map // name -> chroma.Lexer (nil stored as lexerNone)

type lexerNone struct{}

// lexerByName returns a memoised lexer ("json", "go", ...), or nil.
func lexerByName(name string) chroma.Lexer {
	if v, ok := lexerCache.Load("n:" + name); ok {
		if l, ok := v.(chroma.Lexer); ok {
			return l
		}
		return nil
	}
	l := lexers.Get(name)
	if l == nil {
		lexerCache.Store("n:"+name, lexerNone{})
		return nil
	}
	lexerCache.Store("n:"+name, l)
	return l
}

// lexerForFile returns a memoised lexer for a file name, or nil.
func lexerForFile(path string) chroma.Lexer {
	base := filepath.Base(path)
	if v, ok := lexerCache.Load("f:" + base); ok {
		if l, ok := v.(chroma.Lexer); ok {
			return l
		}
		return nil
	}
	l := lexers.Match(base)
	if l == nil || l.Config().Name == "plaintext" {
		lexerCache.Store("f:"+base, lexerNone{})
		return nil
	}
	lexerCache.Store("f:"+base, l)
	return l
}

// syntaxSpans tokenises one line and returns a span per styled token.
func syntaxSpans(l chroma.Lexer, line string, offset int, st *Styles) []span {
	if l == nil || line == "" {
		return nil
	}
	it, err := l.Tokenise(nil, line)
	if err != nil {
		return nil
	}
	var spans []span
	pos := 0
	for tok := it(); tok != chroma.EOF; tok = it() {
		n := len(tok.Value)
		if style, ok := tokenStyle(tok.Type, st); ok && pos < len(line) {
			end := min(pos+n, len(line))
			spans = append(spans, span{start: offset + pos, end: offset + end, style: style, prio: prioSyntax})
		}
		pos += n
	}
	return spans
}

func tokenStyle(t chroma.TokenType, st *Styles) (lipgloss.Style, bool) {
	switch {
	case t == chroma.NameTag || t == chroma.NameAttribute:
		return st.JSONKey, true
	case t == chroma.KeywordConstant:
		return st.JSONConst, true
	case t.InCategory(chroma.Keyword):
		return st.Keyword, true
	case t.InSubCategory(chroma.LiteralString):
		return st.JSONString, true
	case t.InSubCategory(chroma.LiteralNumber):
		return st.JSONNumber, true
	case t.InCategory(chroma.Comment):
		return st.Comment, true
	case t == chroma.Punctuation || t.InCategory(chroma.Operator):
		return st.Punct, true
	case t == chroma.NameFunction || t == chroma.NameBuiltin:
		return st.JSONKey, true
	}
	return lipgloss.Style{}, false
}
