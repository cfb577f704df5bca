package main

import (
	"bytes"
	"io"
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
