package engine

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/shipshape-dev/shipshape/internal/cache"
)

func TestScanWordsRoundTrip(t *testing.T) {
	m := map[[sha256.Size]byte]scanWord{
		sha256.Sum256([]byte("a")): wordFlux | wordHelmChart,
		sha256.Sum256([]byte("b")): 0,
		sha256.Sum256([]byte("c")): wordArgo | wordKustomizeKey | wordApplication,
	}
	if got := decodeScanWords(encodeScanWords(m)); !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip: %v, want %v", got, m)
	}
	if got := decodeScanWords(encodeScanWords(m)[1:]); len(got) != 0 {
		t.Fatalf("bytes cut short read as %d entries, want none", len(got))
	}
}

// The screen says a file holds none of a scan's words only when its bytes
// say so, with the cache cold or warm, and after an edit the stat index
// sees (a word added, the size kept, the mtime put back).
func TestScanScreen(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.yaml")
	argo := filepath.Join(dir, "argo.yaml")
	old := time.Now().Add(-time.Hour)
	write := func(p, text string) {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	write(plain, "kind: ConfigMap\nmetadata: {name: xrgoproj.io/}\n")
	write(argo, "apiVersion: argoproj.io/v1alpha1\nkind: Application\n")
	store := cache.Open(t.TempDir())
	screen := func() *scanScreen {
		return newScanScreen(1<<20, &fileCache{store: store, index: store.OpenIndex(dir)}, dir)
	}
	want := func(s *scanScreen, p string, w scanWord, holds bool) {
		t.Helper()
		if got := s.mayHold(p, p, w); got != holds {
			t.Errorf("%s may hold %v: %v, want %v", filepath.Base(p), w.texts(), got, holds)
		}
	}
	for run := range 2 { // cold, then warm
		s := screen()
		want(s, plain, wordArgo, false)
		want(s, plain, wordConfigMap, true)
		want(s, argo, wordArgo, true)
		want(s, argo, wordFlux|wordHelmRelease, false)
		want(s, filepath.Join(dir, "missing.yaml"), wordArgo, true)
		s.save()
		s.index.Save()
		if run == 1 && s.added {
			t.Error("the warm run learned something new: nothing changed")
		}
	}
	write(plain, "kind: ConfigMap\nmetadata: {name: argoproj.io/}\n")
	s := screen()
	want(s, plain, wordArgo, true)
}
