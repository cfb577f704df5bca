package manifest

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestExcerpt(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"web", `"web"`},
		{strings.Repeat("a", 40), `"` + strings.Repeat("a", 40) + `"`},
		{strings.Repeat("a", 37) + "SECRET", `"` + strings.Repeat("a", 37) + `"...`},
		// Runes, not bytes: no half character.
		{strings.Repeat("é", 50), `"` + strings.Repeat("é", 37) + `"...`},
		// Escaped: no line break, terminal escape or bidi override gets out.
		{"a\nb\x1b[31m\u202e", `"a\nb\x1b[31m\u202e"`},
	} {
		if got := Excerpt(tt.in); got != tt.want {
			t.Errorf("Excerpt(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzExcerpt: whatever a value holds, its excerpt is one quoted Go
// string of at most ExcerptRunes runes (then "..."), with no line break,
// control or other non-printing character left raw.
func FuzzExcerpt(f *testing.F) {
	for _, s := range []string{"", "web", strings.Repeat("x", 41), "a\nb", "\x1b[2J", "\u202e", "\xff\xfe", strings.Repeat("é", 45)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Excerpt(s)
		quoted, cut := strings.CutSuffix(got, "...")
		v, err := strconv.Unquote(quoted)
		if err != nil {
			t.Fatalf("Excerpt(%q) = %s: not one quoted string: %v", s, got, err)
		}
		if n := utf8.RuneCountInString(v); n > ExcerptRunes || cut && !strings.HasPrefix(s, v) {
			t.Errorf("Excerpt(%q) = %s: %d runes, cut %v", s, got, n, cut)
		}
		for _, r := range got {
			if !unicode.IsPrint(r) {
				t.Errorf("Excerpt(%q) = %q holds %U raw", s, got, r)
			}
		}
	})
}
