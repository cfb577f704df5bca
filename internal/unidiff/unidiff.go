// Package unidiff prints unified diffs (fix --diff) whose hunk headers
// patch(1) and git apply take as they are.
//
// It wraps go-udiff, whose hunk headers carry a wrong new-file start line
// after a hunk that joined two nearby changes (the lines between them are
// not counted: golang/go#81453, in the x/tools code go-udiff copies):
// `patch` still applies such a diff, by searching with an offset, but
// `git apply` and review tools place the hunk on the wrong lines.
package unidiff

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Unified returns the unified diff of old and new, with 3 lines of
// context, labelled from and to; "" when they are equal.
func Unified(from, to, old, new string) string {
	return fixStarts(udiff.Unified(from, to, old, new))
}

// fixStarts recomputes the new-file start of every hunk after the first
// from its old-file start and the lines the hunks before it added and
// removed. The first hunk's is right, and a hunk with an empty side (a
// file created or emptied) is the only one there is.
func fixStarts(diff string) string {
	lines := strings.SplitAfter(diff, "\n")
	delta, first := 0, true
	for i, l := range lines {
		if !strings.HasPrefix(l, "@@ -") {
			continue
		}
		oldStart, oldCount, newStart, newCount, ok := parseHeader(l)
		if !ok {
			return diff // not go-udiff's form: leave it as it is
		}
		if !first && oldCount > 0 && newCount > 0 {
			newStart = oldStart + delta
			lines[i] = fmt.Sprintf("@@ %s %s @@\n", side('-', oldStart, oldCount), side('+', newStart, newCount))
		}
		first = false
		delta += newCount - oldCount
	}
	return strings.Join(lines, "")
}

// parseHeader reads "@@ -A[,B] +C[,D] @@" (a count left out is 1).
func parseHeader(l string) (oldStart, oldCount, newStart, newCount int, ok bool) {
	f := strings.Fields(l)
	if len(f) != 4 || f[0] != "@@" || f[3] != "@@" {
		return 0, 0, 0, 0, false
	}
	oldStart, oldCount, ok1 := parseRange(f[1], '-')
	newStart, newCount, ok2 := parseRange(f[2], '+')
	return oldStart, oldCount, newStart, newCount, ok1 && ok2
}

func parseRange(s string, sign byte) (start, count int, ok bool) {
	if len(s) < 2 || s[0] != sign {
		return 0, 0, false
	}
	startText, countText, hasCount := strings.Cut(s[1:], ",")
	start, err := strconv.Atoi(startText)
	if err != nil {
		return 0, 0, false
	}
	count = 1
	if hasCount {
		if count, err = strconv.Atoi(countText); err != nil {
			return 0, 0, false
		}
	}
	return start, count, true
}

// side prints a range as go-udiff does: the count only when it is not 1.
func side(sign byte, start, count int) string {
	if count == 1 {
		return fmt.Sprintf("%c%d", sign, start)
	}
	return fmt.Sprintf("%c%d,%d", sign, start, count)
}
