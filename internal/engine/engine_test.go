package engine

import (
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

func TestSafelyTurnsPanicIntoFinding(t *testing.T) {
	e, err := New(nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fr := e.safely(manifest.Input{Path: "boom.yaml"}, func() *FileResult { panic("kaboom") })
	if len(fr.own) != 1 || fr.own[0].Rule != InternalErrorID ||
		fr.own[0].File != "boom.yaml" || !strings.Contains(fr.own[0].Message, "kaboom") {
		t.Errorf("got %+v", fr.own)
	}
}

func TestScanIgnores(t *testing.T) {
	src := strings.Join([]string{
		"a: 1 # shipshape:ignore rule-a",           // 1: covers line 1
		"# shipshape:ignore rule-b, rule-c -- why", // 2: covers line 3
		"b: 2",
		"c: 3 # note # shipshape:ignore", // 4: all rules on line 4
		"url: http://x#y",                // 5: no marker
		"  # shipshape:ignore rule-d",    // 6: indented, covers 7
		"d: 4",
	}, "\n")
	ig := scanIgnores([]byte(src))
	tests := []struct {
		line int
		rule string
		want bool
	}{
		{1, "rule-a", true}, {1, "rule-b", false},
		{3, "rule-b", true}, {3, "rule-c", true}, {3, "rule-a", false},
		{2, "rule-b", false},
		{4, "anything", true},
		{5, "rule-a", false},
		{7, "rule-d", true},
	}
	for _, tc := range tests {
		if got := ig.suppresses(tc.line, tc.rule); got != tc.want {
			t.Errorf("line %d rule %s: %v, want %v", tc.line, tc.rule, got, tc.want)
		}
	}
	if ig.all() {
		t.Error("no ignore-file marker, but all() is true")
	}
	if !scanIgnores([]byte("a: 1\n# shipshape:ignore-file\n")).all() {
		t.Error("ignore-file not seen")
	}
	if scanIgnores([]byte("a: 1\n")) != nil {
		t.Error("file without markers should cost nothing")
	}
}
