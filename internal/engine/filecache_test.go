package engine

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/cache"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/testtree"
	"github.com/shipshape-dev/shipshape/rules"
)

// sameNameSummary is a test cross-resource rule's summary: plain data, as
// the per-file cache carries it.
type sameNameSummary struct {
	Kind, Name string
	Labels     map[string]string
	At         analysis.Finding
}

// sameName reports an object whose kind and name another object of its
// application has too: a cross-resource rule whose summaries the cache
// can carry, with a finding (and a fix) made at Summarize.
var sameName = &analysis.Rule{
	ID: "test-same-name", Severity: analysis.Warning, Summary: "two objects share a kind and name", Targets: analysis.Objects,
	Cross: analysis.Summaries(func(p *analysis.Pass) (sameNameSummary, bool) {
		obj := p.Object
		name := manifest.Path(obj.Node, "metadata", "name")
		if name == nil {
			return sameNameSummary{}, false
		}
		var labels map[string]string
		if m := manifest.Path(obj.Node, "metadata", "labels"); m != nil && m.Kind == yaml.MappingNode {
			labels = map[string]string{}
			for i := 0; i+1 < len(m.Content); i += 2 {
				labels[m.Content[i].Value] = m.Content[i+1].Value
			}
		}
		return sameNameSummary{obj.Kind, obj.Name, labels, p.Finding(name, "metadata.name", p.Quote(name, "quote it"), "%s %s is defined again", obj.Kind, obj.Name)}, true
	}, func(p *analysis.CrossPass, ss []sameNameSummary) {
		seen := map[[2]string]bool{}
		for _, s := range ss {
			k := [2]string{s.Kind, s.Name}
			if seen[k] {
				p.Report(s.At)
			}
			seen[k] = true
		}
	}),
}

// cachedRules are the rules without cross-resource halves (whose summary
// types the cache may not carry yet) and sameName.
func cachedRules() []*analysis.Rule {
	out := slices.DeleteFunc(slices.Clone(rules.All()), func(r *analysis.Rule) bool { return r.Cross != nil })
	return append(out, sameName)
}

// lintTree lints dir (the working directory is dir's parent) with a cache
// in store (nil: none): what it reports, in full, and how many files came
// from the cache.
func lintTree(t *testing.T, dir string, store *cache.Store) (string, int64) {
	t.Helper()
	e, err := New(cachedRules(), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Cache = store
	inputs, _ := manifest.Collect([]string{dir})
	res := e.RunTree([]string{dir}, slices.Values(inputs))
	out, err := json.MarshalIndent(struct {
		Files    []string
		Findings []analysis.Finding
		N        int
	}{filesOf(res), res.Findings, res.Resources}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out), e.fileHits.Load()
}

func filesOf(res *Result) []string {
	var out []string
	for _, fr := range res.Files {
		out = append(out, fr.Input.Path)
	}
	return out
}

// doc is a ConfigMap that plain/twice.yaml of cacheTree defines twice.
const doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: twice # shipshape:ignore some-other-rule\n  labels: {on: yes}\n"

// cacheTree is a copy of testdata/render with a file that defines one
// object twice, every file older than the stat index's racy window.
func cacheTree(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "tree")
	testtree.Copy(t, filepath.Join("..", "..", "testdata", "render"), dir)
	if err := os.MkdirAll(filepath.Join(dir, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain", "twice.yaml"), []byte(doc+"---\n"+doc), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	return dir
}

func TestFileCache(t *testing.T) {
	dir := cacheTree(t)
	store := cache.Open(t.TempDir())
	cold, _ := lintTree(t, dir, nil)
	if want := "test-same-name"; !strings.Contains(cold, want) {
		t.Fatalf("the fixture should give a %s finding:\n%s", want, cold)
	}
	if first, _ := lintTree(t, dir, store); first != cold {
		t.Fatal("the run that fills the cache differs from one without it")
	}
	warm, hits := lintTree(t, dir, store)
	if warm != cold {
		t.Fatal("the warm run differs from the cold one")
	}
	if hits == 0 {
		t.Fatal("the warm run took no file from the cache")
	}
	// Same size, same mtime, another result: the stat index must not
	// vouch for the old bytes.
	p := filepath.Join(dir, "plain", "twice.yaml")
	st, _ := os.Stat(p)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("tw1ce"), int64(len(doc)+len("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ")))
	f.Close()
	os.Chtimes(p, st.ModTime(), st.ModTime())
	fresh, _ := lintTree(t, dir, nil)
	if fresh == cold {
		t.Fatal("the edit changed nothing: it tests nothing")
	}
	if got, _ := lintTree(t, dir, store); got != fresh {
		t.Fatal("after a same-size, same-mtime edit the warm run differs from one without the cache")
	}
}

// Damaged entries are ignored; concurrent runs over one store agree.
func TestFileCacheDamagedConcurrent(t *testing.T) {
	dir := cacheTree(t)
	cold, _ := lintTree(t, dir, nil)
	storeDir := t.TempDir()
	var wg sync.WaitGroup
	outs := make([]string, 4)
	for i := range outs {
		wg.Go(func() { outs[i], _ = lintTree(t, dir, cache.Open(storeDir)) })
	}
	wg.Wait()
	for i, out := range outs {
		if out != cold {
			t.Fatalf("concurrent run %d differs from a run without the cache", i)
		}
	}
	n := 0
	filepath.WalkDir(storeDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, _ := os.ReadFile(p)
		if n++; n%2 == 0 {
			data = data[:len(data)/2]
		} else {
			data[len(data)-1] ^= 0x40
		}
		os.WriteFile(p, data, 0o644)
		return nil
	})
	if n == 0 {
		t.Fatal("nothing stored")
	}
	if got, hits := lintTree(t, dir, cache.Open(storeDir)); got != cold || hits != 0 {
		t.Fatalf("with every entry damaged: %d hits, output same: %v", hits, got == cold)
	}
}

// Every cross-resource rule's summaries, from the rules' fixtures, come
// back from Encode and Decode as they were; a rule whose summary type
// bincodec cannot carry says so (ErrNotEncodable), and the cache
// then keeps no file with its summaries.
func TestSummariesRoundTrip(t *testing.T) {
	var files []string
	filepath.WalkDir(filepath.Join("..", "..", "rules", "testdata"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && manifest.IsYAMLName(p) {
			files = append(files, p)
		}
		return nil
	})
	rs := append(slices.Clone(rules.All()), sameName)
	checked := map[string]int{}
	var notEncodable []string
	for _, r := range rs {
		if r.Cross == nil {
			continue
		}
	files:
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, obj := range manifest.Parse(file, data, manifest.Context{}).Objects {
				v, ok := r.Cross.Summarize(analysis.NewPass(r, obj, &config.Config{}, nil))
				if !ok {
					continue
				}
				enc, err := r.Cross.Encode(v)
				if errors.Is(err, analysis.ErrNotEncodable) {
					notEncodable = append(notEncodable, r.ID+": "+err.Error())
					break files
				}
				if err != nil {
					t.Fatalf("%s: %s: %v", r.ID, file, err)
				}
				back, err := r.Cross.Decode(enc)
				if err != nil {
					t.Fatalf("%s: %s: %v", r.ID, file, err)
				}
				if !reflect.DeepEqual(back, v) {
					t.Fatalf("%s: %s: the summary\n%#v\ncomes back as\n%#v", r.ID, file, v, back)
				}
				checked[r.ID]++
			}
		}
	}
	if checked[sameName.ID] == 0 {
		t.Fatal("no summary of the test rule was checked")
	}
	t.Logf("summaries checked by rule: %v", checked)
	// Every rule's summaries are plain data (rules/summary_json_test.go):
	// one that is not would quietly keep its files out of the cache.
	for _, why := range notEncodable {
		t.Errorf("not cached per file: %s", why)
	}
}

// Files linted as written (render: none, Engine.RunSeq) go through the
// same cache.
func TestFileCacheRunSeq(t *testing.T) {
	dir := cacheTree(t)
	store := cache.Open(t.TempDir())
	run := func(store *cache.Store) (string, int64) {
		e, err := New(cachedRules(), nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Cache = store
		inputs, _ := manifest.Collect([]string{dir})
		res := e.RunSeq(slices.Values(inputs))
		out, err := json.Marshal(struct {
			Files    []string
			Findings []analysis.Finding
		}{filesOf(res), res.Findings})
		if err != nil {
			t.Fatal(err)
		}
		return string(out), e.fileHits.Load()
	}
	cold, _ := run(nil)
	if !strings.Contains(cold, sameName.ID) {
		t.Fatal("the fixture should give a finding of the test rule")
	}
	run(store)
	warm, hits := run(store)
	if warm != cold || hits == 0 {
		t.Fatalf("warm run: %d hits, same output: %v", hits, warm == cold)
	}
}

// fileCache.key hashes every field of manifest.Context: a field added
// there changes what a file's lint gives, so it must be added to the key
// (and to this list) before an entry can be trusted.
func TestFileCacheKeyCoversContext(t *testing.T) {
	keyed := []string{"Patch", "SelectorLabels", "Kustomize", "Unrendered", "Beside", "Application"}
	ct := reflect.TypeFor[manifest.Context]()
	var fields []string
	for i := range ct.NumField() {
		fields = append(fields, ct.Field(i).Name)
	}
	if !reflect.DeepEqual(fields, keyed) {
		t.Fatalf("manifest.Context's fields are %v; fileCache.key hashes %v: add the new field to the key", fields, keyed)
	}
}
