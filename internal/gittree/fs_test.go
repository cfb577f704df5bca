package gittree

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// kustomizeTree is an overlay over a base, with a generator reading a
// file, a symbolic link to a directory and one to a file, and a hidden
// file.
var kustomizeTree = map[string]string{
	"base/kustomization.yaml": "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: conf\n  files:\n  - conf.properties\n",
	"base/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.25
`,
	"base/conf.properties":             "mode=base\n",
	"base/.hidden.yaml":                "hidden: true\n",
	"overlays/prod/kustomization.yaml": "resources:\n- ../../linked-base\nnamePrefix: prod-\nlabels:\n- pairs: {env: prod}\n  includeSelectors: true\npatches:\n- path: patch.yaml\n",
	"overlays/prod/real-patch.yaml":    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
}

// committedKustomizeTree commits kustomizeTree with its two links, then
// changes the work tree (image, generator file, patch) without
// committing, so the work tree and HEAD differ.
func committedKustomizeTree(t *testing.T) (dir string, r *Repo) {
	t.Helper()
	dir = testtree.GitRepo(t)
	testtree.Write(t, dir, kustomizeTree)
	if err := os.Symlink("base", filepath.Join(dir, "linked-base")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real-patch.yaml", filepath.Join(dir, "overlays/prod/patch.yaml")); err != nil {
		t.Fatal(err)
	}
	testtree.Commit(t, dir, "kustomize tree")
	return dir, open(t, dir)
}

func build(t *testing.T, fs filesys.FileSystem, dir string) string {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// kustomize renders a root from the tree at HEAD exactly as from the
// disk holding the same commit, under the same absolute paths; after the
// work tree changes, the tree still renders the commit.
func TestFSRendersAsDisk(t *testing.T) {
	dir, r := committedKustomizeTree(t)
	overlay := filepath.Join(dir, "overlays/prod")
	disk := build(t, filesys.MakeFsOnDisk(), overlay)
	head := r.FS(resolve(t, r, "HEAD"))
	if got := build(t, head, overlay); got != disk {
		t.Fatalf("rendered from the tree:\n%s\nfrom disk:\n%s", got, disk)
	}
	testtree.Write(t, dir, map[string]string{
		"base/conf.properties":          "mode=changed\n",
		"overlays/prod/real-patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 5\n",
	})
	if got := build(t, head, overlay); got != disk {
		t.Errorf("after the work tree changed, the tree renders:\n%s\nwant the commit's:\n%s", got, disk)
	}
	if build(t, filesys.MakeFsOnDisk(), overlay) == disk {
		t.Error("the work tree change did not change the disk's rendering: the test shows nothing")
	}
}

// The file system's answers equal the disk's for the committed tree.
func TestFSAnswersAsDisk(t *testing.T) {
	dir, r := committedKustomizeTree(t)
	tree := r.FS(resolve(t, r, "HEAD"))
	disk := filesys.MakeFsOnDisk()
	paths := []string{
		dir, filepath.Join(dir, "base"), filepath.Join(dir, "base/deploy.yaml"),
		filepath.Join(dir, "linked-base"), filepath.Join(dir, "linked-base/deploy.yaml"),
		filepath.Join(dir, "overlays/prod/patch.yaml"), filepath.Join(dir, "overlays/prod/../../base/conf.properties"),
		filepath.Join(dir, "missing.yaml"), filepath.Join(dir, "base/deploy.yaml/x"),
	}
	for _, p := range paths {
		if a, b := tree.Exists(p), disk.Exists(p); a != b {
			t.Errorf("Exists(%s) = %v, disk %v", p, a, b)
		}
		if a, b := tree.IsDir(p), disk.IsDir(p); a != b {
			t.Errorf("IsDir(%s) = %v, disk %v", p, a, b)
		}
		td, tf, terr := tree.CleanedAbs(p)
		dd, df, derr := disk.CleanedAbs(p)
		if td != dd || tf != df || (terr == nil) != (derr == nil) {
			t.Errorf("CleanedAbs(%s) = %q %q %v, disk %q %q %v", p, td, tf, terr, dd, df, derr)
		}
		ta, terr := tree.ReadFile(p)
		da, derr := disk.ReadFile(p)
		if string(ta) != string(da) || (terr == nil) != (derr == nil) {
			t.Errorf("ReadFile(%s) = %q %v, disk %q %v", p, ta, terr, da, derr)
		}
	}
	for _, p := range []string{dir, filepath.Join(dir, "base"), filepath.Join(dir, "linked-base")} {
		ta, _ := tree.ReadDir(p)
		da, _ := disk.ReadDir(p)
		da = without(da, ".git")
		sort.Strings(da)
		if !reflect.DeepEqual(ta, da) {
			t.Errorf("ReadDir(%s) = %v, disk %v", p, ta, da)
		}
	}
	for _, pattern := range []string{"base/*.yaml", "*/*.yaml", "base/.*.yaml", "overlays/*/kustom*", "nothing/*"} {
		p := filepath.Join(dir, pattern)
		ta, terr := tree.Glob(p)
		da, derr := disk.Glob(p)
		if !reflect.DeepEqual(ta, da) || terr != nil || derr != nil {
			t.Errorf("Glob(%s) = %v %v, disk %v %v", p, ta, terr, da, derr)
		}
	}
	var tw, dw []string
	walker := func(into *[]string) filepath.WalkFunc {
		return func(path string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			if info.Name() == ".git" {
				return filepath.SkipDir
			}
			*into = append(*into, path+" "+info.Mode().Type().String())
			return nil
		}
	}
	if err := tree.Walk(dir, walker(&tw)); err != nil {
		t.Fatal(err)
	}
	if err := disk.Walk(dir, walker(&dw)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tw, dw) {
		t.Errorf("Walk:\n%v\ndisk:\n%v", tw, dw)
	}
	f, err := tree.Open(filepath.Join(dir, "base/conf.properties"))
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := f.Stat(); st.Size() != int64(len("mode=base\n")) || st.IsDir() {
		t.Errorf("Stat: size %d dir %v", st.Size(), st.IsDir())
	}
	if _, err := f.Write([]byte("x")); err == nil {
		t.Error("an opened file of the tree was writable")
	}
}

func without(names []string, drop string) []string {
	var out []string
	for _, n := range names {
		if n != drop {
			out = append(out, n)
		}
	}
	return out
}

// Nothing is written, inside the repository or out.
func TestFSReadOnly(t *testing.T) {
	dir, r := committedKustomizeTree(t)
	tree := r.FS(resolve(t, r, "HEAD"))
	p := filepath.Join(dir, "base/new.yaml")
	for name, err := range map[string]error{
		"WriteFile": tree.WriteFile(p, []byte("x")),
		"Mkdir":     tree.Mkdir(p),
		"MkdirAll":  tree.MkdirAll(p),
		"RemoveAll": tree.RemoveAll(filepath.Join(dir, "base")),
	} {
		if err == nil {
			t.Errorf("%s succeeded", name)
		}
	}
	if _, err := tree.Create(p); err == nil {
		t.Error("Create succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "base/deploy.yaml")); err != nil {
		t.Errorf("RemoveAll removed something: %v", err)
	}
}

// Files outside the repository are not versioned: both sides read them
// from disk (a kustomization may list ../../shared outside the repo).
func TestFSOutsideRepository(t *testing.T) {
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	testtree.Write(t, outside, map[string]string{"shared.yaml": "outside\n"})
	_, r := committedKustomizeTree(t)
	tree := r.FS(resolve(t, r, "HEAD"))
	data, err := tree.ReadFile(filepath.Join(outside, "shared.yaml"))
	if err != nil || string(data) != "outside\n" {
		t.Errorf("outside the repository: %q %v", data, err)
	}
}

// Concurrent reads (the renderer's workers) are safe (run with -race).
func TestFSConcurrentReads(t *testing.T) {
	dir, r := committedKustomizeTree(t)
	testtree.Git(t, dir, "gc", "-q")
	tree := r.FS(resolve(t, r, "HEAD"))
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, rel := range []string{"base/deploy.yaml", "linked-base/conf.properties", "overlays/prod/patch.yaml"} {
				if _, err := tree.ReadFile(filepath.Join(dir, rel)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}
