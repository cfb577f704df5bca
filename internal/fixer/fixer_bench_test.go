package fixer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/fixer"
	"github.com/shipshape-dev/shipshape/rules"
)

// Run with: go test -run '^$' -bench . -benchmem ./internal/fixer/
// fixer.Files applies a file's fixes to its bytes, re-parses and re-lints
// the result: the part of `fix` that lint does not do.

// fixable lints src in memory; nil when it has nothing to fix.
func fixable(eng *engine.Engine, name string, src []byte) *engine.Result {
	res := eng.RunSource(name, src)
	if len(fixer.Fixable(res.Findings)) == 0 {
		return nil
	}
	return res
}

// fix runs the driver on a copy of res, whose findings it rewrites.
func fix(b *testing.B, eng *engine.Engine, res *engine.Result) *fixer.FileFix {
	c := *res
	c.Files = []*engine.FileResult{}
	for _, fr := range res.Files {
		f := *fr
		c.Files = append(c.Files, &f)
	}
	outs := fixer.Files(eng, &c, fixer.Options{DryRun: true})
	if len(outs) != 1 || outs[0].Err != nil || len(outs[0].Applied) == 0 {
		b.Fatalf("fix: %+v", outs)
	}
	return outs[0]
}

// BenchmarkFixCorpus fixes every corpus file that has something to fix.
func BenchmarkFixCorpus(b *testing.B) {
	eng, err := engine.New(rules.All(), nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	var frs []*engine.Result
	docs := 0
	for _, f := range corpus.Files(b) {
		if res := fixable(eng, f.Path, f.Data); res != nil {
			frs = append(frs, res)
			docs += res.Files[0].File.Docs
		}
	}
	corpus.PerUnit(b, docs, "doc", func() {
		for _, res := range frs {
			fix(b, eng, res)
		}
	})
	b.ReportMetric(float64(len(frs)), "files")
}

// BenchmarkFixStream fixes a 50-document stream in which every document
// has a quote, a delete and a rename to make.
func BenchmarkFixStream(b *testing.B) {
	eng, err := engine.New(rules.All(), nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	var src strings.Builder
	for i := range 50 {
		fmt.Fprintf(&src, "---\n# agent %d\napiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent-%d\n  labels:\n    active: yes\nspec:\n  replicas: 3 # one per node\n  strategy:\n    type: RollingUpdate\n  selector:\n    matchLabels: {app: agent-%d}\n  template:\n    metadata:\n      labels: {app: agent-%d}\n    spec:\n      containers:\n      - name: agent\n        image: example/agent:1.0\n        args: [--debug, true]\n", i, i, i, i)
	}
	res := fixable(eng, "stream.yaml", []byte(src.String()))
	if res == nil {
		b.Fatal("nothing to fix")
	}
	b.SetBytes(int64(src.Len()))
	applied := 0
	corpus.PerUnit(b, res.Files[0].File.Docs, "doc", func() {
		applied = len(fix(b, eng, res).Applied)
	})
	b.ReportMetric(float64(applied), "fixes")
}
