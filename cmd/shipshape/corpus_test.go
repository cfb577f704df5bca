package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shipshape-dev/shipshape/internal/corpus"
)

// TestCorpusSmoke lints every manifest of the corpus. Every finding must be
// in testdata/corpus/lint-expected.txt, which was read line by line: a
// false positive is a bug to fix, not a line to accept.
func TestCorpusSmoke(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	dir := corpus.Dir(t)
	got := runIn(t, dir, exitOK, "lint", "--fail-on", "none", dir)
	wantShortLines(t, got)
	golden(t, filepath.Join("..", "..", "testdata", "corpus", "lint-expected.txt"), []byte(got))
}

// wantShortLines: no line of text output is longer than 300 characters
// (report's maxTextLine): a finding reads on one screen line or two, its
// cause first; lint -v and the json format have the rest.
func wantShortLines(t *testing.T, out string) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 300 {
			t.Errorf("a line of %d characters: %s", n, l)
		}
	}
}

// TestKustomizeCorpusSmoke lints each tree of the kustomize corpus as a
// user would (shipshape lint . inside it): every root rendered, every
// finding placed at its source. Each is in
// testdata/kustomize-corpus/lint-expected.txt, read line by line.
func TestKustomizeCorpusSmoke(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	dir := corpus.KustomizeDir(t)
	if corpus.Stride() > 1 {
		// The golden is the whole corpus's output; the render paths it
		// drives run under -race in TestRenderGolden and TestCacheExact.
		t.Skip("race detector on: the kustomize corpus golden runs without it (.ci/run, go test -run Corpus)")
	}
	trees, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, tree := range trees {
		if st, err := os.Stat(tree); err != nil || !st.IsDir() {
			continue
		}
		out := runIn(t, tree, exitOK, "lint", "--fail-on", "none", tree)
		wantShortLines(t, out)
		fmt.Fprintf(&all, "== %s\n%s", filepath.Base(tree), out)
	}
	golden(t, filepath.Join("..", "..", "testdata", "kustomize-corpus", "lint-expected.txt"), []byte(all.String()))
}

// BenchmarkLintCorpus measures `shipshape lint` over the whole corpus
// in-process; MB/s is over the YAML bytes read.
func BenchmarkLintCorpus(b *testing.B) {
	dir := corpus.Dir(b)
	b.SetBytes(corpus.Bytes(corpus.Files(b)))
	b.ReportAllocs()
	for b.Loop() {
		run([]string{"lint", "--fail-on", "none", "--format", "json", dir}, strings.NewReader(""), io.Discard, io.Discard)
	}
}

// BenchmarkFixCheckCorpus measures `shipshape fix --check` (no writes).
func BenchmarkFixCheckCorpus(b *testing.B) {
	dir := corpus.Dir(b)
	b.SetBytes(corpus.Bytes(corpus.Files(b)))
	b.ReportAllocs()
	for b.Loop() {
		run([]string{"fix", "--check", "--fail-on", "none", dir}, strings.NewReader(""), io.Discard, io.Discard)
	}
}
