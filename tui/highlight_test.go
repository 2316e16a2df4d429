package tui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/stretchr/testify/require"
)

// TestLexerForFileIsChromasMatch: the lexer memoised by a name's part from
// its first dot is the one chroma's Match gives the name, on a name made
// from file globs of the lexers (also with a backup suffix, and with more
// dots before it) and on names no glob names.
func TestLexerForFileIsChromasMatch(t *testing.T) {
	class := regexp.MustCompile(`\[!?(.)[^]]*\]`)
	names := []string{"Makefile", "README", ".bashrc", "a.b.go", "x.test.go", "foo.d.ts", "CMakeLists.txt", "notes.txt", "main.go.orig", "a.", "..", "x.unknownext"}
	other := map[string]bool{}
	for _, g := range otherGlobs() {
		other[g] = true
	}
	k := 0
	for _, l := range lexers.GlobalLexerRegistry.Lexers {
		cfg := l.Config()
		for _, g := range append(append([]string(nil), cfg.Filenames...), cfg.AliasFilenames...) {
			n := class.ReplaceAllString(g, "$1")
			n = strings.NewReplacer("*", "stem", "?", "q", `\`, "").Replace(n)
			// every glob chroma matches whole, a sample of the "*.ext" ones
			// (Match tries every glob: a name costs milliseconds)
			if k++; other[g] || k%10 == 0 {
				names = append(names, n, n+".bak", "a.b."+n)
			}
		}
	}
	for _, n := range names {
		want := lexers.Match(n)
		if want != nil && want.Config().Name == "plaintext" {
			want = nil
		}
		got := lexerForFile("/home/user/proj/" + n)
		if want == nil {
			require.Nil(t, got, n)
			continue
		}
		require.NotNil(t, got, n)
		require.Equal(t, want.Config().Name, got.Config().Name, n)
	}
}

func BenchmarkLexerForNewFile(b *testing.B) {
	i := 0
	for b.Loop() {
		i++
		lexerForFile("/home/user/proj/pkg/file_" + strings.Repeat("x", i%50) + string(rune('a'+i%26)) + ".go")
	}
}
