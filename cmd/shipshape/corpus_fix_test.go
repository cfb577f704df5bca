package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/corpus"
)

// TestCorpusFixProperty fixes a temporary copy of the corpus (under the
// race detector, a sample of it and every file with a fixable finding:
// corpus.Sample) and checks what fix promises:
// unchanged files are byte-identical, changed files differ only on lines
// that had fixable findings, and re-linting finds no fixable finding left.
// The LWS ordering fix inserts annotation lines rather than editing lines
// in place; TestLWSOnlyAddsLines covers it, so it is left out here.
func TestCorpusFixProperty(t *testing.T) {
	var fixable map[string]bool
	if corpus.Stride() > 1 {
		// A sample may hold no fixable finding: keep the files that do.
		dir := corpus.Dir(t)
		fixable = map[string]bool{}
		for _, f := range lintJSON(t, dir).Findings {
			if f.Fixable {
				rel, _ := filepath.Rel(dir, f.File)
				fixable[rel] = true
			}
		}
	}
	files := corpus.Sample(t, corpus.Files(t), func(f corpus.File) bool { return fixable[f.Path] })
	dst := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dst, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	before := lintJSON(t, dst)
	fixLines := map[string]map[int]bool{}
	for _, f := range before.Findings {
		if f.Fixable {
			if fixLines[f.File] == nil {
				fixLines[f.File] = map[int]bool{}
			}
			fixLines[f.File][f.Line] = true
		}
	}
	var out bytes.Buffer
	run([]string{"fix", "--fail-on", "none", "--disable", lwsOrderRules, dst}, strings.NewReader(""), &out, &out)

	changed := 0
	for _, f := range files {
		orig, p := f.Data, filepath.Join(dst, f.Path)
		fixed, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v", f.Path, err)
			continue
		}
		if bytes.Equal(orig, fixed) {
			continue
		}
		changed++
		allowed := fixLines[p]
		if allowed == nil {
			t.Errorf("%s changed but had no fixable finding", f.Path)
			continue
		}
		a, b := bytes.Split(orig, []byte("\n")), bytes.Split(fixed, []byte("\n"))
		if len(a) != len(b) {
			t.Errorf("%s: line count changed from %d to %d", f.Path, len(a), len(b))
			continue
		}
		for i := range a {
			if !bytes.Equal(a[i], b[i]) && !allowed[i+1] {
				t.Errorf("%s:%d changed without a finding there:\n-%s\n+%s", f.Path, i+1, a[i], b[i])
			}
		}
	}
	if changed == 0 {
		t.Error("fix changed no corpus file; the corpus has fixable findings")
	}
	for _, f := range lintJSON(t, dst).Findings {
		if f.Fixable {
			t.Errorf("still fixable after fix: %s:%d:%d %s", f.File, f.Line, f.Column, f.Rule)
		}
	}
}

const lwsOrderRules = "lws-recreate-order,lws-ordering"

type jsonReport struct {
	Findings []struct {
		Rule    string `json:"rule"`
		File    string `json:"file"`
		Line    int    `json:"line"`
		Column  int    `json:"column"`
		Fixable bool   `json:"fixable"`
	} `json:"findings"`
}

func lintJSON(t *testing.T, dir string) jsonReport {
	t.Helper()
	var out, errb bytes.Buffer
	run([]string{"lint", "--format", "json", "--fail-on", "none", "--disable", lwsOrderRules, dir}, strings.NewReader(""), &out, &errb)
	var r jsonReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("lint json: %v\n%s", err, errb.String())
	}
	return r
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}
