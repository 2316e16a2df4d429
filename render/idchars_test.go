package render

import (
	"regexp"
	"testing"
)

// FuzzReplaceOutside: replaceOutside is the regexp replacement it stands
// for (opencode's rules are regexps), runes and invalid bytes alike.
func FuzzReplaceOutside(f *testing.F) {
	for _, s := range []string{"toolu_01ABC-x", "call:1.2", "é漢😀", "a\xffb\xc3", "", "functions.bash:0"} {
		f.Add(s)
	}
	id, alnum := regexp.MustCompile(`[^a-zA-Z0-9_-]`), regexp.MustCompile(`[^a-zA-Z0-9]`)
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range []struct {
			re    *regexp.Regexp
			class *[256]bool
			with  string
		}{{id, &idChars, "_"}, {id, &idChars, ""}, {alnum, &alnumChars, ""}} {
			if want, got := c.re.ReplaceAllString(s, c.with), replaceOutside(s, c.class, c.with); got != want {
				t.Fatalf("%q with %q: %q, the regexp %q", s, c.with, got, want)
			}
		}
	})
}
