package manifest

import (
	"strings"
	"testing"
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
