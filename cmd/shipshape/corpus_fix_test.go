package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorpusFixProperty fixes a temporary copy of the corpus and checks
// what fix promises: unchanged files are byte-identical, changed files
// differ only on lines that had fixable findings, and re-linting finds no
// fixable finding left. The LWS ordering fix inserts annotation lines
// rather than editing lines in place; TestLWSOnlyAddsLines covers it, so it
// is left out here.
func TestCorpusFixProperty(t *testing.T) {
	src := corpusDir(t)
	dst := t.TempDir()
	copyTree(t, src, dst)

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
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		orig, _ := os.ReadFile(p)
		fixed, err := os.ReadFile(filepath.Join(dst, rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		if bytes.Equal(orig, fixed) {
			return nil
		}
		changed++
		allowed := fixLines[filepath.Join(dst, rel)]
		if allowed == nil {
			t.Errorf("%s changed but had no fixable finding", rel)
			return nil
		}
		a, b := bytes.Split(orig, []byte("\n")), bytes.Split(fixed, []byte("\n"))
		if len(a) != len(b) {
			t.Errorf("%s: line count changed from %d to %d", rel, len(a), len(b))
			return nil
		}
		for i := range a {
			if !bytes.Equal(a[i], b[i]) && !allowed[i+1] {
				t.Errorf("%s:%d changed without a finding there:\n-%s\n+%s", rel, i+1, a[i], b[i])
			}
		}
		return nil
	})
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
