package tui

import (
	"path/filepath"
	"slices"
	"strings"
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

// lexerForFile returns a memoised lexer for a file name, or nil. Most of
// chroma's file globs are "*" and a literal starting with "." ("*.go"),
// which match a name by its part from its first dot on: a name no other
// glob matches gets the lexer of "x" and that part, memoised by the part,
// so a session reading many files of one language matches once (chroma's
// Match tries every glob of every lexer).
func lexerForFile(path string) chroma.Lexer {
	base := filepath.Base(path)
	key := "f:" + base
	if dot := strings.IndexByte(base, '.'); dot >= 0 && !otherGlobMatches(base) && !otherGlobMatches("x"+base[dot:]) {
		base, key = "x"+base[dot:], "e:"+base[dot:]
	}
	if v, ok := lexerCache.Load(key); ok {
		if l, ok := v.(chroma.Lexer); ok {
			return l
		}
		return nil
	}
	l := lexers.Match(base)
	if l == nil || l.Config().Name == "plaintext" {
		lexerCache.Store(key, lexerNone{})
		return nil
	}
	lexerCache.Store(key, l)
	return l
}

// otherGlobs are chroma's file globs (primary and alias) that are not "*"
// and a literal starting with "." (chroma also tries each with a backup
// suffix, "~" or ".bak": literals too, so such a glob stays one).
var otherGlobs = sync.OnceValue(func() []string {
	var out []string
	for _, l := range lexers.GlobalLexerRegistry.Lexers {
		cfg := l.Config()
		for _, g := range append(slices.Clone(cfg.Filenames), cfg.AliasFilenames...) {
			lit, ok := strings.CutPrefix(g, "*")
			if !ok || !strings.HasPrefix(lit, ".") || strings.ContainsAny(lit, `*?[\`) {
				out = append(out, g)
			}
		}
	}
	return out
})

// otherGlobMatches tells whether one of otherGlobs matches name, or one
// with a suffix (a name with a backup suffix matches only with it).
func otherGlobMatches(name string) bool {
	for _, g := range otherGlobs() {
		if ok, _ := filepath.Match(g, name); ok {
			return true
		}
		if ok, _ := filepath.Match(g+"*", name); ok {
			return true
		}
	}
	return false
}

// syntaxSpans tokenises one line and returns a span per styled token.
func syntaxSpans(l chroma.Lexer, line string, offset int, st *Styles) []span {
	if l == nil || line == "" {
		return nil
	}
	toks, ok := lineTokens(l, line)
	if !ok {
		return nil
	}
	var spans []span
	pos := 0
	for _, tok := range toks {
		if style, ok := tokenStyle(tok.typ, st); ok && pos < len(line) {
			end := min(pos+tok.n, len(line))
			spans = append(spans, span{start: offset + pos, end: offset + end, style: style, prio: prioSyntax})
		}
		pos += tok.n
	}
	return spans
}

// lineToken is a token of a line: its type and length.
type lineToken struct {
	typ chroma.TokenType
	n   int
}

// lineTokens is the tokens l finds in line, memoised for short lines:
// chroma's lexers match a regular expression a token, and the lines of
// indented JSON repeat ("},", "\"type\": \"text\","), in a pane and
// across the providers one switches between (half the time of a key
// that switched Compare's provider went to lexing its new side).
func lineTokens(l chroma.Lexer, line string) ([]lineToken, bool) {
	memo := len(line) <= memoLineBytes
	key := lineKey{l, line}
	if memo {
		tokenMemo.mu.Lock()
		toks, ok := tokenMemo.m[key]
		tokenMemo.mu.Unlock()
		if ok {
			return toks, true
		}
	}
	it, err := l.Tokenise(nil, line)
	if err != nil {
		return nil, false
	}
	var toks []lineToken
	for tok := it(); tok != chroma.EOF; tok = it() {
		toks = append(toks, lineToken{tok.Type, len(tok.Value)})
	}
	if memo {
		tokenMemo.mu.Lock()
		if len(tokenMemo.m) >= memoLines {
			clear(tokenMemo.m)
		}
		tokenMemo.m[lineKey{l, strings.Clone(line)}] = toks
		tokenMemo.mu.Unlock()
	}
	return toks, true
}

type lineKey struct {
	l    chroma.Lexer
	line string
}

// The memo of lineTokens: at most memoLines lines of at most
// memoLineBytes (some 1 MB), emptied when full.
const (
	memoLines     = 4096
	memoLineBytes = 160
)

var tokenMemo = struct {
	mu sync.Mutex
	m  map[lineKey][]lineToken
}{m: map[lineKey][]lineToken{}}

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
