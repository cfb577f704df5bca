// Package english holds the one way shipshape spells a count in its
// messages, so that rules, reports and commands say "1 finding" and
// "2 findings" alike. It imports nothing of shipshape's: every package may
// use it.
package english

import "strconv"

// Plural is one when n is 1, else many: the word for n things.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n followed by the word for n things: "1 file", "0 files".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}
