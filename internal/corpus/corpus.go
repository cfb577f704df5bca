// Package corpus finds ../shared/corpus, the real manifests shipshape is
// benchmarked on, for the benchmarks of every package. It only reads it.
package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// File is one corpus file, read into memory.
type File struct {
	Path string // relative to the corpus directory
	Data []byte
}

// Dir returns the corpus directory: $SHIPSHAPE_CORPUS, or shared/corpus
// beside the repository. It skips tb when there is none, so that a clone
// without it still passes.
func Dir(tb testing.TB) string {
	tb.Helper()
	return dir(tb, "SHIPSHAPE_CORPUS", "corpus")
}

// KustomizeDir returns the kustomize corpus (complete kustomize trees from
// public repositories): $SHIPSHAPE_KUSTOMIZE_CORPUS, or
// shared/kustomize-corpus beside the repository. It skips tb when there
// is none.
func KustomizeDir(tb testing.TB) string {
	tb.Helper()
	return dir(tb, "SHIPSHAPE_KUSTOMIZE_CORPUS", "kustomize-corpus")
}

// FleetDir returns the fleet corpus (GitOps trees with Helm charts):
// $SHIPSHAPE_FLEET_CORPUS, or shared/fleet-corpus beside the repository.
// It skips tb when there is none.
func FleetDir(tb testing.TB) string {
	tb.Helper()
	return dir(tb, "SHIPSHAPE_FLEET_CORPUS", "fleet-corpus")
}

func dir(tb testing.TB, env, name string) string {
	tb.Helper()
	dir := os.Getenv(env)
	if dir == "" {
		_, self, _, _ := runtime.Caller(0)
		// internal/corpus/corpus.go -> repository -> its parent
		dir = filepath.Join(filepath.Dir(self), "..", "..", "..", "shared", name)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		tb.Skipf("%s not found at %s (set %s to run this)", name, dir, env)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return abs
}

// Files reads every *.yaml and *.yml file of the corpus in walk order,
// found the way shipshape finds them (manifest.Collect).
func Files(tb testing.TB) []File {
	tb.Helper()
	files, err := Read(Dir(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// RaceStride is how thinly tests sample the corpus under the race detector.
// The detector makes a run about ten times slower, and the whole corpus
// adds data, not concurrency: a sample drives the same concurrent paths. So
// under -race the corpus-wide tests read every RaceStride-th file, and
// .ci/run runs them once more without -race over every file (by name:
// tests that call Sample have Corpus in their name).
const RaceStride = 8

// Stride is 1, or RaceStride when the race detector is on.
func Stride() int {
	if raceEnabled {
		return RaceStride
	}
	return 1
}

// Sample is what a corpus-wide test reads of files: all of them, or under
// the race detector every Stride-th (in walk order, so the same ones each
// run) and those keep (when not nil) picks, which it logs on tb.
func Sample(tb testing.TB, files []File, keep func(File) bool) []File {
	tb.Helper()
	stride := Stride()
	if stride == 1 {
		return files
	}
	var out []File
	for i, f := range files {
		if i%stride == 0 || keep != nil && keep(f) {
			out = append(out, f)
		}
	}
	tb.Logf("race detector on: %d of the corpus's %d files (every %dth, and those the test needs)", len(out), len(files), stride)
	return out
}

// Bytes is the total size of files.
func Bytes(files []File) int64 {
	var n int64
	for _, f := range files {
		n += int64(len(f.Data))
	}
	return n
}

// PerUnit runs f in b.Loop and reports, besides the usual per-op figures,
// time, allocations and bytes per unit (a document, an object), which do
// not change when the corpus grows.
func PerUnit(b *testing.B, units int, unit string, f func()) {
	b.Helper()
	if units == 0 {
		b.Fatalf("no %ss to measure", unit)
	}
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		f()
	}
	runtime.ReadMemStats(&after)
	n := float64(b.N) * float64(units)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/"+unit)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/"+unit)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/n, "B/"+unit)
}
