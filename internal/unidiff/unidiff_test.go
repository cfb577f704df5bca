package unidiff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

// TestHunksPointAtTheirLines checks every hunk of a diff against both
// files: its context and removed lines are the old file's from the old
// start, its context and added lines the new file's from the new start.
func TestHunksPointAtTheirLines(t *testing.T) {
	numbered := func(n int, change map[int]string, insert map[int][]string, drop map[int]bool) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			for _, l := range insert[i] {
				b.WriteString(l + "\n")
			}
			switch {
			case drop[i]:
			case change[i] != "":
				b.WriteString(change[i] + "\n")
			default:
				fmt.Fprintf(&b, "  k%d: v\n", i)
			}
		}
		return b.String()
	}
	old := numbered(40, nil, nil, nil)
	for _, tc := range []struct {
		name string
		new  string
	}{
		// Two changes joined into one hunk (3 lines apart), then a third:
		// the case go-udiff numbers wrong.
		{"joined", numbered(40, map[int]string{6: `  a: "yes"`, 9: `  b: "yes"`, 30: `  c: "yes"`}, nil, nil)},
		{"lines added and removed", numbered(40, map[int]string{20: "  x: 1"}, map[int][]string{5: {"  new1: a", "  new2: b"}, 8: {"  new3: c"}}, map[int]bool{12: true, 33: true})},
		{"first and last lines", numbered(40, map[int]string{1: "first", 40: "last"}, nil, nil)},
		{"one hunk", numbered(40, map[int]string{10: "  ten: 10"}, nil, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Unified("a", "b", old, tc.new)
			if d == "" {
				t.Fatal("no diff")
			}
			checkHunks(t, d, old, tc.new)
		})
	}
	if d := Unified("a", "b", old, old); d != "" {
		t.Errorf("equal files: got a diff\n%s", d)
	}
	// A file created: the one hunk, as go-udiff prints it.
	if d := Unified("a", "b", "", "x: 1\ny: 2\n"); !strings.Contains(d, "@@ -0,0 +1,2 @@") {
		t.Errorf("created file:\n%s", d)
	}
}

func checkHunks(t *testing.T, diff, old, new string) {
	t.Helper()
	oldLines, newLines := strings.Split(old, "\n"), strings.Split(new, "\n")
	var o, n int // the next line of each side, 0-based
	hunks := 0
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
		case strings.HasPrefix(l, "@@"):
			os, _, ns, _, ok := parseHeader(l)
			if !ok {
				t.Fatalf("bad header %q", l)
			}
			o, n = os-1, ns-1
			hunks++
		case strings.HasPrefix(l, " "):
			if oldLines[o] != l[1:] || newLines[n] != l[1:] {
				t.Errorf("hunk %d: context %q is old line %d %q, new line %d %q\n%s", hunks, l[1:], o+1, oldLines[o], n+1, newLines[n], diff)
			}
			o, n = o+1, n+1
		case strings.HasPrefix(l, "-"):
			if oldLines[o] != l[1:] {
				t.Errorf("hunk %d: removed %q is old line %d %q\n%s", hunks, l[1:], o+1, oldLines[o], diff)
			}
			o++
		case strings.HasPrefix(l, "+"):
			if newLines[n] != l[1:] {
				t.Errorf("hunk %d: added %q is new line %d %q\n%s", hunks, l[1:], n+1, newLines[n], diff)
			}
			n++
		}
	}
}

// TestGoUdiffStillWrong fails once go-udiff numbers hunks after a joined
// one right: this package can then go.
func TestGoUdiffStillWrong(t *testing.T) {
	old := strings.Repeat("x\n", 5) + "a: yes\nx\nx\nb: yes\n" + strings.Repeat("x\n", 20) + "c: yes\n"
	new := strings.ReplaceAll(old, "yes", `"yes"`)
	raw := udiff.Unified("a", "b", old, new)
	if !strings.Contains(raw, "@@ -27,4 +25,4 @@") {
		t.Errorf("go-udiff no longer numbers the second hunk +25 (the lines between a and b uncounted): drop internal/unidiff if it is right now\n%s", raw)
	}
	fixed := Unified("a", "b", old, new)
	if !strings.Contains(fixed, "@@ -27,4 +27,4 @@") {
		t.Errorf("want the second hunk at line 27 of both:\n%s", fixed)
	}
	if again := fixStarts(fixed); again != fixed {
		t.Errorf("fixStarts changed a right diff:\n%s", again)
	}
}
