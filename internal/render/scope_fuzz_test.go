package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// recordingFS records every path the renderer's scope guard lets reach
// the disk.
type recordingFS struct {
	filesys.FileSystem
	mu    *sync.Mutex
	paths *[]string
}

func (r recordingFS) note(p string) {
	r.mu.Lock()
	*r.paths = append(*r.paths, p)
	r.mu.Unlock()
}

func (r recordingFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	r.note(p)
	return r.FileSystem.CleanedAbs(p)
}
func (r recordingFS) IsDir(p string) bool  { r.note(p); return r.FileSystem.IsDir(p) }
func (r recordingFS) Exists(p string) bool { r.note(p); return r.FileSystem.Exists(p) }
func (r recordingFS) ReadDir(p string) ([]string, error) {
	r.note(p)
	return r.FileSystem.ReadDir(p)
}
func (r recordingFS) Open(p string) (filesys.File, error) { r.note(p); return r.FileSystem.Open(p) }

// FuzzScopeEntries writes a kustomization whose entries (resources,
// patches, components, a configMapGenerator file) and a link beside it
// are the fuzzer's, in a repository with a victim directory beside it,
// then discovers and renders it: nothing the graph loads, reaches or
// hands the disk through the renderer may be outside the repository, by
// the operating system's own resolution of the path.
func FuzzScopeEntries(f *testing.F) {
	for _, seed := range [][2]string{
		{"../../victim/x.yaml", ""},
		{"/VICTIM/x.yaml", ""},
		{"../../victim/base", ""},
		{"link/x.yaml", "../../victim"},
		{"link", "/VICTIM/base"},
		{"./../app/../../victim//base/", ""},
		{"deploy.yaml", "deploy.yaml"},
		{"link/ds.yaml", "../app"},
		{"loop/x.yaml", "loop"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, entry, link string) {
		if strings.ContainsAny(entry+link, "\x00\n\r") || len(entry) > 200 || len(link) > 200 {
			return
		}
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		repo, victim := filepath.Join(dir, "repo"), filepath.Join(dir, "victim")
		entry = strings.ReplaceAll(entry, "/VICTIM", victim)
		link = strings.ReplaceAll(link, "/VICTIM", victim)
		files := map[string]string{
			"repo/.git/HEAD":                 "x",
			"repo/app/deploy.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: in}\n",
			"victim/x.yaml":                  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: victim}\n",
			"victim/base/kustomization.yaml": "resources: [ds.yaml]\n",
			"victim/base/ds.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: victim-base}\n",
		}
		for name, data := range files {
			p := filepath.Join(dir, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(data), 0o644)
		}
		if link != "" {
			os.Symlink(link, filepath.Join(repo, "app", "link"))
		}
		k := map[string]any{
			"resources":          []string{"deploy.yaml", entry},
			"components":         []string{entry},
			"patches":            []map[string]string{{"path": entry}},
			"configMapGenerator": []map[string]any{{"name": "g", "files": []string{entry}}},
		}
		src, err := yaml.Marshal(k)
		if err != nil {
			return
		}
		os.WriteFile(filepath.Join(repo, "app", "kustomization.yaml"), src, 0o644)

		inside := func(p string) bool {
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				real = filepath.Clean(p)
			}
			return real == repo || strings.HasPrefix(real, repo+"/")
		}
		g, _ := Discover([]string{repo})
		for d := range g.ByDir {
			if !inside(d) {
				t.Errorf("entry %q, link %q: loaded the kustomization of %s", entry, link, d)
			}
		}
		r := NewRenderer(g)
		var mu sync.Mutex
		var touched []string
		r.fs.FileSystem = recordingFS{r.fs.FileSystem, &mu, &touched}
		for _, root := range g.Roots {
			for _, p := range g.Reaches(root) {
				if !inside(p) {
					t.Errorf("entry %q, link %q: root %s reaches %s", entry, link, root.Dir, p)
				}
			}
		}
		for _, res := range r.RenderAll(context.Background(), g.Roots) {
			for _, o := range res.Objects {
				if name := mapGet(mapGet(o.Node, "metadata"), "name"); name != nil && strings.HasPrefix(name.Value, "victim") {
					t.Errorf("entry %q, link %q: rendered %s from outside", entry, link, name.Value)
				}
			}
		}
		for _, p := range touched {
			if filepath.IsAbs(p) && !inside(p) {
				t.Errorf("entry %q, link %q: the renderer asked the disk about %s", entry, link, p)
			}
		}
	})
}
