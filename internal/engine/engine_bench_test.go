package engine_test

import (
	"path/filepath"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

// Run with: go test -run '^$' -bench . -benchmem ./internal/engine/

// BenchmarkLint runs every per-object rule, with suppressions and sorting,
// over the corpus parsed once up front: the engine's cost on top of Parse.
func BenchmarkLint(b *testing.B) {
	eng, err := engine.New(rules.All(), nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	var files []*manifest.File
	objs := 0
	for _, f := range corpus.Files(b) {
		pf := manifest.Parse(f.Path, f.Data, manifest.Context{})
		files = append(files, pf)
		objs += len(pf.Objects)
	}
	corpus.PerUnit(b, objs, "obj", func() {
		for _, f := range files {
			eng.Lint(f)
		}
	})
}

// BenchmarkRun is a whole lint run over the corpus directory, reads and
// cross-resource rules included, on GOMAXPROCS workers.
func BenchmarkRun(b *testing.B) {
	dir := corpus.Dir(b)
	files := corpus.Files(b)
	b.SetBytes(corpus.Bytes(files))
	inputs := make([]manifest.Input, len(files))
	for i, f := range files {
		inputs[i] = manifest.Input{Path: filepath.Join(dir, f.Path)}
	}
	docs := 0
	for _, f := range files {
		docs += manifest.Parse(f.Path, f.Data, manifest.Context{}).Docs
	}
	corpus.PerUnit(b, docs, "doc", func() {
		eng, err := engine.New(rules.All(), nil, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		eng.Run(inputs)
	})
}
