package render

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// Discovery from the inputs' walk (DiscoverListed) must find what its own
// walk finds: the same kustomizations, entries resolved the same, the
// same roots in the same order, the same directories listed.

// describeGraph is everything of g that discovery decided, as text.
func describeGraph(g *Graph) string {
	var b strings.Builder
	for _, r := range g.Roots {
		fmt.Fprintf(&b, "root %s %s\n", r.Dir, r.Kind)
	}
	dirs := make([]string, 0, len(g.ByDir))
	for d := range g.ByDir {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	for _, d := range dirs {
		k := g.ByDir[d]
		if k == nil {
			fmt.Fprintf(&b, "dir %s: none\n", d)
			continue
		}
		fmt.Fprintf(&b, "dir %s: %s %s err=%v\n", d, k.File, k.Kind, k.Err)
		for _, r := range k.Refs {
			target := ""
			if r.Target != nil {
				target = r.Target.Dir
			}
			fmt.Fprintf(&b, "  %s %q -> %s target=%s outside=%v regular=%v\n", r.Field, r.Value, r.Path, target, r.Outside, r.regular)
		}
	}
	listed := make([]string, 0, len(g.listed))
	for d, has := range g.listed {
		listed = append(listed, fmt.Sprintf("listed %s %v", d, has))
	}
	for d := range g.fleet {
		listed = append(listed, "fleet "+d)
	}
	slices.Sort(listed)
	b.WriteString(strings.Join(listed, "\n"))
	return b.String()
}

// discoverWalked runs DiscoverListed beside the walk of paths (and of the
// repository of a file named alone), as the engine does; stopAfter > 0
// stops the walk after that many inputs. It returns the graph, and
// whether the walk's record of each tree discovery scanned was whole
// (replayed, not walked again).
func discoverWalked(t *testing.T, paths []string, stopAfter int) (*Graph, bool) {
	t.Helper()
	walked := manifest.NewListing()
	done := make(chan *Graph, 1)
	go func() {
		g, _ := DiscoverListed(paths, nil, walked)
		done <- g
	}()
	var errs []manifest.WalkError
	var seen []manifest.Input
	n := 0
	for in := range manifest.WalkListed(paths, &errs, walked) {
		seen = append(seen, in)
		if n++; n == stopAfter {
			break
		}
	}
	if stopAfter == 0 {
		manifest.ContextForListed(seen, walked)
	}
	walked.Close()
	g := <-done
	replayed := len(g.scanned) > 0
	for tree := range g.scanned {
		replayed = replayed && walked.Replay(tree, func(manifest.ListedEntry) {})
	}
	return g, replayed
}

// wantSameDiscovery compares discovery from the walk with its own walk;
// replay says whether the walk's record must have been used.
func wantSameDiscovery(t *testing.T, paths []string, stopAfter int, replay bool) {
	t.Helper()
	own, _ := Discover(paths)
	listed, replayed := discoverWalked(t, paths, stopAfter)
	if replayed != replay {
		t.Errorf("%v: the walk's record replayed: %v, want %v", paths, replayed, replay)
	}
	if got, want := describeGraph(listed), describeGraph(own); got != want {
		t.Errorf("%v: discovery from the walk differs from its own walk:\n%s\nwant:\n%s", paths, got, want)
	}
	if len(own.ByDir) == 0 {
		t.Errorf("%v: nothing discovered: the comparison proves nothing", paths)
	}
}

func TestDiscoverListedSame(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, repo)
	// A link to a directory holding a kustomization (not followed by the
	// walk, resolved by discovery), a fleet.yaml, a cycle.
	if err := os.Symlink(filepath.Join(dir, "apps", "base"), filepath.Join(dir, "apps", "linked")); err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, dir, map[string]string{
		"apps/viaLink/kustomization.yaml": "resources: [../linked]\n",
		"fleet/fleet.yaml":                "helm: {}\n",
		"fleet/app/kustomization.yaml":    "resources: [cm.yaml]\n",
		"fleet/app/cm.yaml":               "kind: ConfigMap\n",
		"cycle/a/kustomization.yaml":      "resources: [../b]\n",
		"cycle/b/kustomization.yaml":      "resources: [../a]\n",
		// Entries the walk's listing answers: missing, in a hidden
		// directory (listed, not entered), a link to a file, a directory.
		"apps/odd/kustomization.yaml": "resources: [missing.yaml, .hidden, .hidden/cm.yaml, .hidden/kustomization.yaml, linkfile.yaml, cm.yaml, sub, sub/gone]\n" +
			"configMapGenerator: [{name: x, files: [data.txt, nothere.txt]}]\n",
		"apps/odd/.hidden/cm.yaml":            "kind: ConfigMap\n",
		"apps/odd/.hidden/kustomization.yaml": "resources: [cm.yaml]\n",
		"apps/odd/cm.yaml":                    "kind: ConfigMap\n",
		"apps/odd/data.txt":                   "x\n",
		"apps/odd/sub/kustomization.yaml":     "resources: []\n",
	})
	// A kustomization file that is a link, and a directory holding two
	// names (the first kustomize recognises is read).
	testtree.Write(t, dir, map[string]string{
		"apps/twonames/kustomization.yml": "resources: [a.yaml]\n",
		"apps/twonames/Kustomization":     "resources: [b.yaml]\n",
		"apps/linkkust/cm.yaml":           "kind: ConfigMap\n",
	})
	outside := filepath.Join(t.TempDir(), "kustomization.yaml")
	testtree.Write(t, filepath.Dir(outside), map[string]string{"kustomization.yaml": "resources: []\n"})
	testtree.Write(t, dir, map[string]string{"apps/dangling/Kustomization": "resources: []\n"})
	for link, target := range map[string]string{
		"apps/odd/linkfile.yaml":           "cm.yaml",
		"apps/linkkust/kustomization.yaml": "../odd/sub/kustomization.yaml",
		"apps/dangling/kustomization.yaml": "nowhere.yaml", // the next name is read
		"apps/out/kustomization.yaml":      outside,        // out of the scope: not read
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("directory", func(t *testing.T) { wantSameDiscovery(t, []string{dir}, 0, true) })
	t.Run("subdirectory", func(t *testing.T) { wantSameDiscovery(t, []string{filepath.Join(dir, "apps")}, 0, true) })
	t.Run("file alone", func(t *testing.T) {
		wantSameDiscovery(t, []string{filepath.Join(dir, "apps", "base", "deploy.yaml")}, 0, true)
	})
	t.Run("relative", func(t *testing.T) {
		t.Chdir(dir)
		wantSameDiscovery(t, []string{"."}, 0, true)
		wantSameDiscovery(t, []string{"apps/"}, 0, true)
	})
	// A walk stopped early is not a listing of the tree: discovery walks.
	t.Run("stopped walk", func(t *testing.T) { wantSameDiscovery(t, []string{dir}, 2, false) })
	// No walk recorded the tree (a file outside any repository, whose
	// directory alone is read): discovery walks once the walk is over.
	t.Run("not walked", func(t *testing.T) {
		plain := t.TempDir()
		testtree.Write(t, plain, map[string]string{"a/kustomization.yaml": "resources: [cm.yaml]\n", "a/cm.yaml": "kind: ConfigMap\n"})
		t.Chdir(plain)
		wantSameDiscovery(t, []string{"a/cm.yaml"}, 0, false)
	})
}

// TestDiscoverListedUnreadable: a directory the walk cannot read makes
// its record incomplete; discovery walks itself, and finds what it found.
func TestDiscoverListedUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory (scripts/test-unprivileged runs this without root)")
	}
	dir := t.TempDir()
	testtree.Write(t, dir, repo)
	locked := filepath.Join(dir, "apps", "xf")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
	wantSameDiscovery(t, []string{dir}, 0, false)
}

// TestDiscoverListedCorpus compares the two over the kustomize corpus's
// trees.
func TestDiscoverListedCorpus(t *testing.T) {
	for _, tree := range corpusTrees(t, corpus.KustomizeDir(t)) {
		wantSameDiscovery(t, []string{tree}, 0, true)
	}
}
