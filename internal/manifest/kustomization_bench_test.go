package manifest_test

import (
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// BenchmarkCollect walks the corpus directory the way lint does.
func BenchmarkCollect(b *testing.B) {
	dir := corpus.Dir(b)
	in, _ := manifest.Collect([]string{dir})
	corpus.PerUnit(b, len(in), "file", func() {
		manifest.Collect([]string{dir})
	})
}

// BenchmarkKustomizationsFor looks up the kustomization context of every
// corpus file with a fresh cache, as one lint run does.
func BenchmarkKustomizationsFor(b *testing.B) {
	dir := corpus.Dir(b)
	var paths []string
	for _, f := range corpus.Files(b) {
		paths = append(paths, filepath.Join(dir, f.Path))
	}
	corpus.PerUnit(b, len(paths), "file", func() {
		k := &manifest.Kustomizations{}
		for _, p := range paths {
			k.For(p)
		}
	})
}

// BenchmarkKustomizationsForParallel is the same from GOMAXPROCS workers
// sharing one cache, as the engine's workers do: directory reads must not
// serialise them.
func BenchmarkKustomizationsForParallel(b *testing.B) {
	dir := corpus.Dir(b)
	var paths []string
	for _, f := range corpus.Files(b) {
		paths = append(paths, filepath.Join(dir, f.Path))
	}
	corpus.PerUnit(b, len(paths), "file", func() {
		k := &manifest.Kustomizations{}
		var next atomic.Int64
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := next.Add(1) - 1; i < int64(len(paths)); i = next.Add(1) - 1 {
					k.For(paths[i])
				}
			})
		}
		wg.Wait()
	})
}
