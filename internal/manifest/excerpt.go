package manifest

import (
	"strconv"
	"unicode/utf8"
)

// ExcerptRunes is the most of a document's text a message quotes.
const ExcerptRunes = 40

// Excerpt is s quoted for a message: escaped as Go escapes a string
// (control and other non-printing characters, line breaks included, so
// that a value cannot forge output lines or terminal escapes), and, when
// longer than ExcerptRunes, its first runes followed by "..." outside the
// quotes. Messages quote at most this of what a file holds: CI logs are
// read by people who may not read the file (a link to /etc/passwd).
func Excerpt(s string) string {
	if utf8.RuneCountInString(s) <= ExcerptRunes {
		return strconv.Quote(s)
	}
	n, cut := 0, len(s)
	for i := range s {
		if n == ExcerptRunes-3 {
			cut = i
			break
		}
		n++
	}
	return strconv.Quote(s[:cut]) + "..."
}
