package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files (review them by eye before committing)")

// TestLintGolden runs `shipshape lint` over each directory under
// testdata/lint and compares the text output with its expected.txt. These
// are the CLI's and the engine's cases: what lint does with inputs it
// cannot lint (syntax errors, templates, CRLF and BOM), suppression
// comments and annotations, and which rules judge kustomize patches, in
// the text format. What a rule reports is tested beside the rule, with
// `# want` comments in rules/testdata/<rule-id> (see rules/README.md).
func TestLintGolden(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	dirs, err := filepath.Glob("../../testdata/lint/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no lint cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"lint", "--fail-on", "none", dir}, strings.NewReader(""), &stdout, &stderr)
			if code != exitOK {
				t.Fatalf("exit %d, stderr: %s", code, stderr.String())
			}
			got := strings.ReplaceAll(stdout.String(), dir+string(filepath.Separator), "")
			golden(t, filepath.Join(dir, "expected.txt"), []byte(got))
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update and review the file)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
