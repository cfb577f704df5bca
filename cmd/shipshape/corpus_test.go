package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/corpus"
)

// TestCorpusSmoke lints every manifest of the corpus. Every finding must be
// in testdata/corpus/lint-expected.txt, which was read line by line: a
// false positive is a bug to fix, not a line to accept.
func TestCorpusSmoke(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	dir := corpus.Dir(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"lint", "--fail-on", "none", dir}, strings.NewReader(""), &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got := strings.ReplaceAll(stdout.String(), dir+string(filepath.Separator), "")
	golden(t, filepath.Join("..", "..", "testdata", "corpus", "lint-expected.txt"), []byte(got))
}

// TestKustomizeCorpusSmoke lints each tree of the kustomize corpus as a
// user would (shipshape lint . inside it): every root rendered, every
// finding placed at its source. Each is in
// testdata/kustomize-corpus/lint-expected.txt, read line by line.
func TestKustomizeCorpusSmoke(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	dir := corpus.KustomizeDir(t)
	trees, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, tree := range trees {
		if st, err := os.Stat(tree); err != nil || !st.IsDir() {
			continue
		}
		var stdout, stderr bytes.Buffer
		code := run([]string{"lint", "--fail-on", "none", tree}, strings.NewReader(""), &stdout, &stderr)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", tree, code, stderr.String())
		}
		fmt.Fprintf(&all, "== %s\n%s", filepath.Base(tree), strings.ReplaceAll(stdout.String(), tree+string(filepath.Separator), ""))
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
