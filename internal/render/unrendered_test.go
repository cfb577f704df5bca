package render

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// The bases a root that did not render lists, no rendered root reaches,
// and that are not Components, are rendered on their own.
func TestUnrenderedBases(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"manifests/kustomization.yaml": "resources:\n- bases/csv.yaml\n- ../default\n- ../samples\ncomponents:\n- ../comp\n",
		"default/kustomization.yaml":   "resources:\n- ../manager\n",
		"manager/kustomization.yaml":   "resources:\n- m.yaml\n",
		"manager/m.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n",
		"samples/kustomization.yaml":   "resources:\n- s.yaml\n",
		"samples/s.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\n",
		"comp/kustomization.yaml":      "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n",
		"other/kustomization.yaml":     "resources:\n- ../samples\n",
	})
	g, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRenderer(g)
	var results []*Result
	for _, root := range g.Roots {
		results = append(results, r.Render(root))
	}
	var got []string
	for _, b := range UnrenderedBases(results) {
		rel, _ := filepath.Rel(dir, b.Dir)
		got = append(got, filepath.ToSlash(rel))
	}
	// samples: other renders it; comp: a Component; manager: not listed
	// by the root that failed.
	if want := []string{"default"}; !slices.Equal(got, want) {
		t.Errorf("UnrenderedBases = %q, want %q (roots %q)", got, want, rootDirs(g, dir))
	}
}
