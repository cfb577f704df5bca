package render

import (
	"context"
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// A graph AtRevision reads and renders only through its file system: the
// directory on disk is empty, the overlay, its base and a patch exist
// only in the in-memory file system, and the root renders from them
// (with a remote base refused there as on disk, before kustomize sees it).
func TestAtRevisionReadsOnlyItsFileSystem(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	head, err := Discover([]string{dir})
	if err != nil || len(head.Roots) != 0 {
		t.Fatalf("the empty directory on disk: %v roots, %v", head.Roots, err)
	}
	mem := filesys.MakeFsInMemory()
	files := map[string]string{
		"overlay/kustomization.yaml": "resources:\n  - ../base\nlabels:\n  - pairs: {tier: front}\n    includeSelectors: true\npatches:\n  - path: replicas.yaml\n",
		"overlay/replicas.yaml":      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
		"base/kustomization.yaml":    "resources:\n  - deploy.yaml\n",
		"base/deploy.yaml":           "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers: [{name: web, image: nginx}]\n",
		"remote/kustomization.yaml":  "resources:\n  - https://github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v1.0.6\n",
	}
	for name, content := range files {
		if err := mem.WriteFile(filepath.Join(dir, name), []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	g := head.AtRevision(mem)
	overlay, remote := g.Load(filepath.Join(dir, "overlay")), g.Load(filepath.Join(dir, "remote"))
	if overlay == nil || remote == nil {
		t.Fatal("the kustomizations of the file system were not loaded")
	}
	g.SetRoots([]*Kustomization{overlay, remote})
	if got := g.Reaches(overlay); len(got) != 4 {
		t.Errorf("the overlay reaches %v; want its kustomization, the patch, the base's kustomization and deploy.yaml", got)
	}
	results := NewRenderer(g).RenderAll(context.Background(), g.Roots)
	res := results[0]
	if res.Problem != nil || len(res.Objects) != 1 {
		t.Fatalf("overlay: %v, %d objects", res.Problem, len(res.Objects))
	}
	sel := mapGet(mapGet(mapGet(res.Objects[0].Node, "spec"), "selector"), "matchLabels")
	if v := mapGet(sel, "tier"); v == nil || v.Value != "front" {
		t.Errorf("the overlay's selector labels are not in the rendered selector")
	}
	if v := mapGet(mapGet(res.Objects[0].Node, "spec"), "replicas"); v == nil || v.Value != "3" {
		t.Errorf("the patch read from the file system was not applied")
	}
	if p := results[1].Problem; p == nil || !p.Refused {
		t.Errorf("a remote base at the revision: %v; want it refused", p)
	}
}
