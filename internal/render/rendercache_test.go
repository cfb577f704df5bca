package render

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/cache"
	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// renderCached renders every root of dir with store (nil: no cache) and
// returns, per root's kustomization, its objects encoded (every node
// field) or its problem; hits counts the roots found in the cache.
func renderCached(t *testing.T, dir string, store *cache.Store) (out map[string]string, hits int) {
	t.Helper()
	g, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRenderer(g)
	r.Cache = store
	for _, root := range g.Roots {
		if store != nil {
			if _, ok := r.cached(r.rootKey(root)); ok {
				hits++
			}
		}
	}
	out = map[string]string{}
	for _, res := range r.RenderAll(context.Background(), g.Roots) {
		if res.Problem != nil {
			out[res.Root.File] = "problem: " + res.Problem.Error()
			continue
		}
		data, err := encodeObjects(res.Objects)
		if err != nil {
			t.Fatal(err)
		}
		// The codec keeps every field: what it reads back is what
		// kustomize made.
		if back, err := decodeObjects(data); err != nil || !reflect.DeepEqual(back, res.Objects) {
			t.Fatalf("%s: objects read back differ (%v)", res.Root.File, err)
		}
		out[res.Root.File] = string(data)
	}
	return out, hits
}

func sameRenders(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d roots, want %d", what, len(got), len(want))
	}
	for root, w := range want {
		if g := got[root]; g != w {
			t.Errorf("%s: %s renders differently from the cache (%d bytes, want %d)", what, root, len(g), len(w))
		}
	}
}

// Over the kustomize corpus: a warm rendering is the cold one, node for
// node, and every root that rendered comes from the cache.
func TestRenderCacheCorpus(t *testing.T) {
	kustomizeCorpus := os.Getenv("SHIPSHAPE_KUSTOMIZE_CORPUS")
	if kustomizeCorpus == "" {
		t.Skip("SHIPSHAPE_KUSTOMIZE_CORPUS is not set (../shared/kustomize-corpus)")
	}
	tree := filepath.Join(t.TempDir(), "tree")
	if corpus.Stride() > 1 {
		// Under -race, one repository's trees (cmd/shipshape's
		// TestCorpusCache runs over all of them).
		kustomizeCorpus = filepath.Join(kustomizeCorpus, "stefanprodan+podinfo")
	}
	testtree.Copy(t, kustomizeCorpus, tree)
	store := cache.Open(t.TempDir())
	cold, hits := renderCached(t, tree, store)
	if hits != 0 {
		t.Fatalf("%d hits in an empty cache", hits)
	}
	warm, hits := renderCached(t, tree, store)
	sameRenders(t, "warm", warm, cold)
	rendered := 0
	for _, v := range cold {
		if !bytes.HasPrefix([]byte(v), []byte("problem: ")) {
			rendered++
		}
	}
	if hits != rendered || rendered == 0 {
		t.Errorf("%d roots from the cache, %d rendered cold", hits, rendered)
	}
}

// Edits between runs: each warm rendering equals one without a cache.
func TestRenderCacheEdits(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"base/kustomization.yaml": "resources: [deploy.yaml]\n",
		"base/deploy.yaml":        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 1\n",
		"prod/kustomization.yaml": "resources: [../base]\nnamePrefix: prod-\n",
		"dev/kustomization.yaml":  "resources: [../base, extra.yaml]\n",
	})
	store := cache.Open(t.TempDir())
	edits := []struct {
		name string
		do   func()
	}{
		{"none", func() {}},
		{"a base's value", func() {
			write(t, dir, "base/deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n")
		}},
		{"a named file appears", func() { write(t, dir, "dev/extra.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\n") }},
		{"an overlay's field", func() { write(t, dir, "prod/kustomization.yaml", "resources: [../base]\nnamePrefix: live-\n") }},
		{"broken YAML", func() { write(t, dir, "base/deploy.yaml", "apiVersion: apps/v1\nkind: [Deployment\n") }},
		{"repaired", func() {
			write(t, dir, "base/deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")
		}},
		{"a named file removed", func() { os.Remove(filepath.Join(dir, "dev/extra.yaml")) }},
		{"a base renamed", func() {
			os.Rename(filepath.Join(dir, "base"), filepath.Join(dir, "common"))
			write(t, dir, "prod/kustomization.yaml", "resources: [../common]\nnamePrefix: live-\n")
		}},
		{"a directory takes a file's name", func() { write(t, dir, "dev/extra.yaml/kustomization.yaml", "resources: []\n") }},
	}
	for _, e := range edits {
		e.do()
		want, _ := renderCached(t, dir, nil)
		warm, _ := renderCached(t, dir, store)
		sameRenders(t, e.name, warm, want)
		again, hits := renderCached(t, dir, store)
		sameRenders(t, e.name+", again", again, want)
		if hits == 0 && rendersSome(want) {
			t.Errorf("%s: nothing from the cache the second time", e.name)
		}
	}
}

func rendersSome(out map[string]string) bool {
	for _, v := range out {
		if !bytes.HasPrefix([]byte(v), []byte("problem: ")) {
			return true
		}
	}
	return false
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	testtree.Write(t, dir, map[string]string{name: content})
}

// A damaged entry is rendered again, not believed.
func TestRenderCacheDamaged(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"kustomization.yaml": "resources: [cm.yaml]\n",
		"cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n",
	})
	cacheDir := t.TempDir()
	store := cache.Open(cacheDir)
	want, _ := renderCached(t, dir, store)
	_ = filepath.WalkDir(cacheDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			data[len(data)-1] ^= 0xff
			os.WriteFile(p, data, 0o644)
		}
		return nil
	})
	got, hits := renderCached(t, dir, store)
	if hits != 0 {
		t.Errorf("%d damaged entries believed", hits)
	}
	sameRenders(t, "damaged", got, want)
}

func TestObjectsCodecRoundTrip(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"kustomization.yaml": "resources: [cm.yaml]\ncommonLabels: {a: b}\n",
		"cm.yaml":            "# head\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  k: 'v' # line\n  n: \"1\"\n  e: []\n",
	})
	out, _ := renderCached(t, dir, nil)
	for root, data := range out {
		objs, err := decodeObjects([]byte(data))
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		again, _ := encodeObjects(objs)
		if string(again) != data {
			t.Fatalf("%s: round trip differs", root)
		}
		for cut := range len(data) {
			if _, err := decodeObjects([]byte(data[:cut])); err == nil {
				t.Fatalf("%s: cut at %d decodes", root, cut)
			}
		}
	}
}

// Runs at once on one cache directory (one store each, as processes
// are): each renders what a run without the cache renders.
func TestRenderCacheConcurrent(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("app%d/kustomization.yaml", i)] = "resources: [../base]\nnamePrefix: p" + fmt.Sprint(i) + "-\n"
	}
	files["base/kustomization.yaml"] = "resources: [cm.yaml]\n"
	files["base/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n"
	testtree.Write(t, dir, files)
	want, _ := renderCached(t, dir, nil)
	cacheDir := t.TempDir()
	var wg sync.WaitGroup
	got := make([]map[string]string, 4)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				got[i], _ = renderCached(t, dir, cache.Open(cacheDir))
			}
		}()
	}
	wg.Wait()
	for i := range got {
		sameRenders(t, fmt.Sprint("run ", i), got[i], want)
	}
}
