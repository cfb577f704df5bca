package render

import (
	"context"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// BenchmarkRender renders every root of each kustomize-corpus tree
// in-process, as one shipshape run would: discovery, refusal, rendering
// on all cores. Each iteration starts from nothing a fresh process would
// not have (a new Renderer, and kyaml's OpenAPI schema dropped so that it
// is parsed again), so the time compares with BenchmarkKustomizeBuild,
// which runs the kustomize binary once per root, one after another.
func BenchmarkRender(b *testing.B) {
	dir := corpus.KustomizeDir(b)
	for _, tree := range corpusTrees(b, dir) {
		b.Run(filepath.Base(tree), func(b *testing.B) {
			start := cpuTime(syscall.RUSAGE_SELF)
			for b.Loop() {
				openapi.ResetOpenAPI()
				g, err := Discover([]string{tree})
				if err != nil {
					b.Fatal(err)
				}
				NewRenderer(g).RenderAll(context.Background(), g.Roots)
			}
			b.ReportMetric((cpuTime(syscall.RUSAGE_SELF)-start).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkKustomizeBuild runs `kustomize build` (the v5.8.2 binary) of
// each root of each tree one after another: what shipshape replaces.
// Roots with remote entries are built inside `unshare -n` (they fail
// there at once, as they would offline), or skipped when unshare does not
// work.
func BenchmarkKustomizeBuild(b *testing.B) {
	dir := corpus.KustomizeDir(b)
	bin := kustomizeBinary(b)
	for _, tree := range corpusTrees(b, dir) {
		g, err := Discover([]string{tree})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(tree), func(b *testing.B) {
			start := cpuTime(syscall.RUSAGE_CHILDREN)
			for b.Loop() {
				for _, root := range g.Roots {
					remote := Refuse(g, root) != nil
					if remote && !unshareWorks() {
						continue
					}
					kustomizeBuild(bin, root.Dir, remote)
				}
			}
			b.ReportMetric((cpuTime(syscall.RUSAGE_CHILDREN)-start).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// cpuTime is the user+system CPU time of this process (RUSAGE_SELF) or
// of its finished children (RUSAGE_CHILDREN). The machine is shared, so
// wall time swings with the load; CPU time says how much work was done.
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTrace is the second build Locate needs for a root's origins
// (Renderer.Trace), for every root of each tree: the cost of placing
// findings, paid only for roots that have some.
func BenchmarkTrace(b *testing.B) {
	dir := corpus.KustomizeDir(b)
	for _, tree := range corpusTrees(b, dir) {
		b.Run(filepath.Base(tree), func(b *testing.B) {
			_, r, results := renderTree(b, tree)
			start := cpuTime(syscall.RUSAGE_SELF)
			b.ResetTimer()
			for b.Loop() {
				for _, res := range results {
					res.traceOnce = sync.Once{}
					res.traceErr = nil
				}
				r.TraceAll(context.Background(), results)
			}
			b.ReportMetric((cpuTime(syscall.RUSAGE_SELF)-start).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkLocate locates the fields TestCorpusLocate asks (names,
// namespaces, labels, selectors, replicas, images) of every rendered
// object of each tree, with origins derived from the graph: the cost of
// placing findings, on top of BenchmarkRender. Files stay read.
func BenchmarkLocate(b *testing.B) {
	dir := corpus.KustomizeDir(b)
	for _, tree := range corpusTrees(b, dir) {
		b.Run(filepath.Base(tree), func(b *testing.B) {
			g, r, results := renderTree(b, tree)
			n := 0
			b.ResetTimer()
			for b.Loop() {
				fresh := NewRenderer(g)
				fresh.fs = r.fs
				for _, res := range results {
					res.deriveOnce = sync.Once{}
					for _, o := range res.Objects {
						for _, p := range fieldsToLocate(o) {
							fresh.Locate(res, o, p)
							n++
						}
					}
				}
			}
			b.ReportMetric(float64(n)/float64(b.N), "fields/op")
		})
	}
}

// renderTree discovers and renders every root of tree once, for a
// benchmark that times what comes after.
func renderTree(b *testing.B, tree string) (*Graph, *Renderer, []*Result) {
	b.Helper()
	g, err := Discover([]string{tree})
	if err != nil {
		b.Fatal(err)
	}
	r := NewRenderer(g)
	return g, r, r.RenderAll(context.Background(), g.Roots)
}
