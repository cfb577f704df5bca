package render

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

func rootDirs(g *Graph, base string) []string {
	var out []string
	for _, r := range g.Roots {
		rel, _ := filepath.Rel(base, r.Dir)
		out = append(out, filepath.ToSlash(rel))
	}
	sort.Strings(out)
	return out
}

// repo is a repository with two overlays over a base, a component, a
// kustomization in a hidden directory, a transformer directory and plain
// manifests.
var repo = map[string]string{
	".git/HEAD":                          "ref: refs/heads/main\n",
	".github/kustomization.yaml":         "resources: [x.yaml]\n",
	"apps/base/kustomization.yaml":       "resources:\n  - deploy.yaml\n  - svc.yaml\n",
	"apps/base/deploy.yaml":              "kind: Deployment\n",
	"apps/base/svc.yaml":                 "kind: Service\n",
	"apps/base/unused.yaml":              "kind: ConfigMap\n",
	"apps/comp/kustomization.yaml":       "kind: Component\npatches:\n  - path: p.yaml\n",
	"apps/comp/p.yaml":                   "kind: Deployment\n",
	"apps/dev/kustomization.yml":         "resources:\n  - ../base\ncomponents:\n  - ../comp\nconfigMapGenerator:\n  - name: c\n    files:\n      - k=settings.env\n",
	"apps/dev/settings.env":              "A=1\n",
	"apps/prod/Kustomization":            "resources:\n  - ../base\n  - https://example.com/x.yaml\ntransformers:\n  - ../xf\npatchesStrategicMerge:\n  - |-\n    kind: Deployment\n",
	"apps/xf/kustomization.yaml":         "resources:\n  - labels.yaml\n",
	"apps/xf/labels.yaml":                "apiVersion: builtin\nkind: LabelTransformer\n",
	"plain/cm.yaml":                      "kind: ConfigMap\n",
	"apps/dev/nested/kustomization.yaml": "resources: [../../base]\n",
}

func TestDiscoverRoots(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, repo)
	g, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	// base, comp and xf are listed; .github is hidden; nested lists base
	// but nothing lists it.
	want := []string{"apps/dev", "apps/dev/nested", "apps/prod"}
	if got := rootDirs(g, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("roots %v, want %v", got, want)
	}
	reach := func(root string) []string {
		var out []string
		for _, f := range g.Reaches(g.ByDir[filepath.Join(dir, root)]) {
			rel, _ := filepath.Rel(dir, f)
			out = append(out, filepath.ToSlash(rel))
		}
		return out
	}
	if got, want := reach("apps/dev"), []string{
		"apps/base/deploy.yaml", "apps/base/kustomization.yaml", "apps/base/svc.yaml",
		"apps/comp/kustomization.yaml", "apps/comp/p.yaml",
		"apps/dev/kustomization.yml", "apps/dev/settings.env",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("apps/dev reaches %v, want %v", got, want)
	}
	if got, want := reach("apps/prod"), []string{
		"apps/base/deploy.yaml", "apps/base/kustomization.yaml", "apps/base/svc.yaml",
		"apps/prod/Kustomization", "apps/xf/kustomization.yaml", "apps/xf/labels.yaml",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("apps/prod reaches %v, want %v", got, want)
	}
	prod := g.ByDir[filepath.Join(dir, "apps/prod")]
	var remote, inline int
	for _, r := range prod.Refs {
		if r.Remote {
			remote++
		}
		if r.Inline {
			inline++
		}
	}
	if remote != 1 || inline != 1 {
		t.Errorf("apps/prod: %d remote and %d inline entries, want 1 and 1", remote, inline)
	}
	plain := g.Plain([]string{
		filepath.Join(dir, "apps/base/unused.yaml"), filepath.Join(dir, "apps/base/svc.yaml"), filepath.Join(dir, "plain/cm.yaml"),
	})
	if len(plain) != 2 || !strings.HasSuffix(plain[0], "unused.yaml") || !strings.HasSuffix(plain[1], "cm.yaml") {
		t.Errorf("plain files %v", plain)
	}
}

// TestListed: the scan says which directories it walked and which of
// them hold a kustomization file, under any of kustomize's names; a hidden
// directory is not walked.
func TestListed(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, repo)
	g, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string][2]bool{
		".":         {false, true},
		"apps":      {false, true},
		"apps/base": {true, true},
		"apps/dev":  {true, true}, // kustomization.yml
		"apps/prod": {true, true}, // Kustomization
		"plain":     {false, true},
		".github":   {false, false},
		"elsewhere": {false, false},
	} {
		has, seen := g.Listed(filepath.Join(dir, rel))
		if [2]bool{has, seen} != want {
			t.Errorf("Listed(%s) = %v, %v; want %v", rel, has, seen, want)
		}
	}
}

// TestDiscoverFile: a file named alone (as pre-commit names staged files)
// gets the roots that reach it, found from the repository root, the same
// as when the whole repository is scanned, from any working directory.
func TestDiscoverFile(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, repo)
	whole, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string][]string{
		"apps/base/svc.yaml":      {"apps/dev", "apps/dev/nested", "apps/prod"},
		"apps/comp/p.yaml":        {"apps/dev"},
		"apps/dev/settings.env":   {"apps/dev"},
		"apps/xf/labels.yaml":     {"apps/prod"},
		"apps/base/unused.yaml":   nil,
		"plain/cm.yaml":           nil,
		"apps/prod/Kustomization": {"apps/prod"},
	} {
		for _, wd := range []string{dir, filepath.Join(dir, "apps"), os.TempDir()} {
			t.Chdir(wd)
			g, err := Discover([]string{filepath.Join(dir, file)})
			if err != nil {
				t.Fatal(err)
			}
			if got := rootDirs(g, dir); !reflect.DeepEqual(got, want) {
				t.Errorf("%s from %s: roots %v, want %v", file, wd, got, want)
			}
			// The same roots as the whole scan gives for that file.
			var fromWhole []string
			for _, r := range whole.Roots {
				for _, f := range whole.Reaches(r) {
					if f == filepath.Join(dir, file) {
						rel, _ := filepath.Rel(dir, r.Dir)
						fromWhole = append(fromWhole, rel)
					}
				}
			}
			if !reflect.DeepEqual(fromWhole, want) {
				t.Errorf("%s: the whole scan gives %v", file, fromWhole)
			}
		}
	}
}

func TestParsePath(t *testing.T) {
	for in, want := range map[string]Path{
		"spec.replicas": {{Key: "spec"}, {Key: "replicas"}},
		`spec.selector.matchLabels["app.kubernetes.io/name"]`: {{Key: "spec"}, {Key: "selector"}, {Key: "matchLabels"}, {Key: "app.kubernetes.io/name"}},
		"spec.template.spec.containers[0].image":              {{Key: "spec"}, {Key: "template"}, {Key: "spec"}, {Key: "containers"}, {Index: 0, IsIndex: true}, {Key: "image"}},
		`metadata.annotations['a[b]']`:                        {{Key: "metadata"}, {Key: "annotations"}, {Key: "a[b]"}},
		"[2].path":                                            {{Index: 2, IsIndex: true}, {Key: "path"}},
	} {
		got, err := ParsePath(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParsePath(%q) = %v, %v; want %v", in, got, err, want)
			continue
		}
		if back, _ := ParsePath(got.String()); !reflect.DeepEqual(back, want) {
			t.Errorf("%q: String() %q does not read back", in, got.String())
		}
	}
	for _, bad := range []string{"", "a[", "a[x]", `a["b]`, "a[-1]"} {
		if _, err := ParsePath(bad); err == nil {
			t.Errorf("ParsePath(%q) accepted", bad)
		}
	}
}

func TestRootsOf(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, repo)
	g, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got := rootDirs(&Graph{Roots: g.RootsOf(filepath.Join(dir, "apps/base/deploy.yaml"))}, dir)
	if want := []string{"apps/dev", "apps/dev/nested", "apps/prod"}; !reflect.DeepEqual(got, want) {
		t.Errorf("RootsOf(apps/base/deploy.yaml) = %v, want %v", got, want)
	}
	if got := g.RootsOf(filepath.Join(dir, "plain/cm.yaml")); len(got) != 0 {
		t.Errorf("RootsOf(plain/cm.yaml) = %v", got)
	}
}

// TestLinkedBase: a base listed through a linked directory is the
// directory the link points at, as kustomize loads it: one kustomization,
// listed (so not a root), whose files are reached under their real paths;
// a directory named through a link is scanned.
func TestLinkedBase(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir()) // real itself (macOS links /var)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(top, "repo")
	testtree.Write(t, dir, map[string]string{
		"real/base/kustomization.yaml": "resources: [ds.yaml]\n",
		"real/base/ds.yaml":            "kind: DaemonSet\n",
		"app/kustomization.yaml":       "resources: [base]\n",
	})
	if err := os.Symlink("../real/base", filepath.Join(dir, "app/base")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(top, "link")
	if err := os.Symlink("repo", link); err != nil {
		t.Fatal(err)
	}
	for _, named := range []string{dir, link} {
		g, err := Discover([]string{named})
		if err != nil {
			t.Fatal(err)
		}
		if got := rootDirs(g, dir); !reflect.DeepEqual(got, []string{"app"}) {
			t.Fatalf("Discover(%s) roots = %v, want [app]", named, got)
		}
		var reached []string
		for _, f := range g.Reaches(g.Roots[0]) {
			rel, _ := filepath.Rel(dir, f)
			reached = append(reached, filepath.ToSlash(rel))
		}
		if want := []string{"app/kustomization.yaml", "real/base/ds.yaml", "real/base/kustomization.yaml"}; !reflect.DeepEqual(reached, want) {
			t.Errorf("Discover(%s): app reaches %v, want %v", named, reached, want)
		}
		if plain := g.Plain([]string{filepath.Join(named, "app/base/ds.yaml"), filepath.Join(named, "real/base/ds.yaml")}); len(plain) != 0 {
			t.Errorf("Discover(%s): plain %v, want none", named, plain)
		}
	}
}

// TestCycleRoot: kustomizations that list each other have no root by the
// "listed by none" rule; the first of the cycle stands as one, so that
// kustomize's failure on them is reported. A cycle reached from a root,
// and one of Components (never applied alone), adds none.
func TestCycleRoot(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"a/kustomization.yaml":     "resources: [../b]\n",
		"b/kustomization.yaml":     "resources: [../a]\n",
		"top/kustomization.yaml":   "resources: [../c]\n",
		"c/kustomization.yaml":     "resources: [../d]\n",
		"d/kustomization.yaml":     "resources: [../c]\n",
		"comp1/kustomization.yaml": "kind: Component\ncomponents: [../comp2]\n",
		"comp2/kustomization.yaml": "kind: Component\ncomponents: [../comp1]\n",
	})
	g, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rootDirs(g, dir), []string{"a", "top"}; !reflect.DeepEqual(got, want) {
		t.Errorf("roots = %v, want %v", got, want)
	}
}
