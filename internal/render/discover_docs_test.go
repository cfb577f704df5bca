package render

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// The context of every file from the graph's parsed kustomizations
// (KustomizationDoc) is the context from reading them again: over the
// discovery fixture (every kustomization name, a BOM, a kustomization
// that does not parse, one that is a list, a symlinked directory), the
// render fixtures and the kustomize corpus.
func TestKustomizationDocSameContext(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"bom/kustomization.yaml":    "\xef\xbb\xbfresources: [a.yaml]\ncommonLabels: {app: bom}\n",
		"bom/a.yaml":                "kind: ConfigMap\n",
		"broken/kustomization.yaml": "resources: [a.yaml\n",
		"broken/a.yaml":             "kind: ConfigMap\n",
		"list/kustomization.yaml":   "- a.yaml\n",
		"list/a.yaml":               "kind: ConfigMap\n",
		"both/kustomization.yaml":   "resources: [a.yaml]\n",
		"both/kustomization.yml":    "resources: [b.yaml]\n",
		"both/a.yaml":               "kind: ConfigMap\n",
		"both/b.yaml":               "kind: ConfigMap\n",
		"labels/kustomization.yaml": "resources: [a.yaml]\npatches:\n  - path: p.yaml\nlabels:\n  - pairs: {tier: web}\n    includeSelectors: true\n",
		"labels/a.yaml":             "kind: Deployment\n",
		"labels/p.yaml":             "kind: Deployment\n",
		"labels/sub/c.yaml":         "kind: ConfigMap\n",
	}
	for name, text := range repo {
		files[name] = text
	}
	testtree.Write(t, dir, files)
	if err := os.Symlink(filepath.Join(dir, "labels"), filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	wantSameContexts(t, dir)
	wantSameContexts(t, filepath.Join("..", "..", "testdata", "render"))
	wantSameContexts(t, corpus.KustomizeDir(t))
}

// wantSameContexts compares, for every YAML file under dir, the context
// read from the disk with the one from the graph's documents, and counts
// that the graph answered for some directory.
func wantSameContexts(t *testing.T, dir string) {
	t.Helper()
	g, _ := Discover([]string{dir})
	var paths []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && manifest.IsYAMLName(p) && (!d.IsDir() || d.Type()&os.ModeSymlink != 0) {
			paths = append(paths, p)
		}
		if err == nil && d.Type()&os.ModeSymlink != 0 {
			// the files below a linked directory, by the link's path
			entries, _ := os.ReadDir(p)
			for _, e := range entries {
				paths = append(paths, filepath.Join(p, e.Name()))
			}
		}
		return nil
	})
	read, walked := &manifest.Kustomizations{}, &manifest.Kustomizations{}
	answered := 0
	known := func(d string) (doc *yaml.Node, ok bool) {
		doc, ok = g.KustomizationDoc(d)
		if ok {
			answered++
		}
		return doc, ok
	}
	for _, p := range paths {
		want := read.ForListed(p, g.Listed)
		if got := walked.ForWalked(p, g.Listed, known); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: from the graph's documents %+v, read %+v", p, got, want)
		}
	}
	if answered == 0 {
		t.Errorf("%s: the graph answered for no directory: the test compares nothing", dir)
	}
}
