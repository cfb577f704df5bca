package fixer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/fixer"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Run with: go test -run '^$' -bench . -benchmem ./internal/fixer/
// fixer.Fix applies a file's fixes to its bytes, re-parses and re-lints the
// result: the part of `fix` that lint does not do.

func fixable(eng *engine.Engine, name string, src []byte) *engine.FileResult {
	f := manifest.Parse(name, src, manifest.Context{})
	fr := &engine.FileResult{Input: manifest.Input{Path: name}, File: f, Findings: eng.Lint(f)}
	for _, fd := range fr.Findings {
		if fd.Fix != nil {
			return fr
		}
	}
	return nil
}

// BenchmarkFixCorpus fixes every corpus file that has something to fix.
func BenchmarkFixCorpus(b *testing.B) {
	eng, err := engine.New(nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	var frs []*engine.FileResult
	docs := 0
	for _, f := range corpus.Files(b) {
		if fr := fixable(eng, f.Path, f.Data); fr != nil {
			frs = append(frs, fr)
			docs += fr.File.Docs
		}
	}
	corpus.PerUnit(b, docs, "doc", func() {
		for _, fr := range frs {
			if o := fixer.Fix(eng, fr); o.Err != nil {
				b.Fatal(o.Err)
			}
		}
	})
	b.ReportMetric(float64(len(frs)), "files")
}

// BenchmarkFixStream fixes a 50-document stream in which every document
// has a quote, a delete and a rename to make.
func BenchmarkFixStream(b *testing.B) {
	eng, err := engine.New(nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	var src strings.Builder
	for i := range 50 {
		fmt.Fprintf(&src, "---\n# agent %d\napiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent-%d\n  labels:\n    active: yes\nspec:\n  replicas: 3 # one per node\n  strategy:\n    type: RollingUpdate\n  selector:\n    matchLabels: {app: agent-%d}\n  template:\n    metadata:\n      labels: {app: agent-%d}\n    spec:\n      containers:\n      - name: agent\n        image: example/agent:1.0\n        args: [--debug, true]\n", i, i, i, i)
	}
	fr := fixable(eng, "stream.yaml", []byte(src.String()))
	if fr == nil {
		b.Fatal("nothing to fix")
	}
	b.SetBytes(int64(src.Len()))
	applied := 0
	corpus.PerUnit(b, fr.File.Docs, "doc", func() {
		o := fixer.Fix(eng, fr)
		if o.Err != nil || len(o.Applied) == 0 {
			b.Fatalf("applied %d fixes: %v", len(o.Applied), o.Err)
		}
		applied = len(o.Applied)
	})
	b.ReportMetric(float64(applied), "fixes")
}
