package render

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/cache"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/scope"
)

// Discovery: the kustomizations under the paths named, read into a Graph
// of their references, and its roots (those no other kustomization lists).

// KustomizationNames are the file names kustomize recognises, in its order
// (konfig.RecognizedKustomizationFileNames).
var KustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// RefKind says which field of a kustomization a reference comes from, and
// so how kustomize loads it.
type RefKind int

const (
	// RefResource is a `resources:` or `bases:` entry: a file, or a
	// directory holding a kustomization.
	RefResource RefKind = iota
	// RefComponent is a `components:` entry: a directory holding a
	// kustomization of kind Component.
	RefComponent
	// RefPatch is a patch file (`patches[].path`, `patchesStrategicMerge`,
	// `patchesJson6902[].path`).
	RefPatch
	// RefConfig is a generator, transformer or validator entry: a file or
	// a directory whose objects configure plugins.
	RefConfig
	// RefData is any other file kustomize reads: replacements, openapi
	// schemas, configurations, crds.
	RefData
	// RefEmbed is a generator's file or env file: kustomize puts its
	// bytes in a ConfigMap or Secret and never parses them as objects.
	RefEmbed
)

// Ref is one path-like entry of a kustomization.
type Ref struct {
	Kind RefKind
	// Field is the kustomization field, e.g. "resources" or
	// "configMapGenerator.files".
	Field string
	// Value is the entry as written.
	Value string
	// Node is the scalar node of the entry in the kustomization (exact
	// line:column).
	Node *yaml.Node
	// Path is the absolute local path the entry names (links resolved);
	// "" for remote or inline entries, and for those Outside.
	Path string
	// Remote is set when kustomize would fetch the entry over the network
	// (http(s) URL or git repository spec).
	Remote bool
	// Inline is set for entries that are YAML text, not paths (inline
	// patches and plugin configs).
	Inline bool
	// Target is the kustomization at Path, when Path is a directory
	// holding one.
	Target *Kustomization
	// Outside is set when the entry leads out of the run's scope (by its
	// name or through a link): it has no Path, is never read, and its
	// root is not rendered (see Refuse).
	Outside bool
	// regular: Path is a regular file (links followed), as stat said when
	// the entry was resolved. Reaches asks it of every entry of every
	// root: shared bases made that a stat per entry per root reaching it.
	regular bool
}

// Kustomization is one kustomization file, read with exact positions.
type Kustomization struct {
	// Dir is the absolute directory; File the absolute path of the file.
	Dir, File string
	// Src is the file's bytes (BOM removed): node positions refer to it.
	Src []byte
	// Doc is the top-level mapping node; nil when the file does not parse
	// (Err says why: kustomize will fail on it, and says so itself).
	Doc *yaml.Node
	Err error
	// Kind is "Kustomization" or "Component".
	Kind string
	Refs []*Ref
	// Flux is the spec.patches a Flux Kustomization adds to this root's
	// patches (see AddFluxSettings), or nil.
	Flux *FluxPatches
	// Argo is set on the variant of a root that an Argo CD Application
	// builds with its kustomize options (see ArgoVariant): not a file of
	// the graph, but the root's kustomization as Argo CD edits it.
	Argo *ArgoVariant
	// src is where k and the files it names were read (Graph.src).
	src source
}

// listsNothing reports whether k lists no resource, base, component or
// generator: nothing to render of its own, so its patches have nothing
// to patch (an overlay whose `resources: [../base]` is missing).
func (k *Kustomization) listsNothing() bool {
	for _, field := range []string{"resources", "bases", "components", "configMapGenerator", "secretGenerator", "generators", "helmCharts"} {
		if n := mapGet(k.Doc, field); n != nil && len(n.Content) > 0 {
			return false
		}
	}
	return k.Doc != nil
}

// Graph is the kustomizations found under the scanned paths and the
// references between them.
type Graph struct {
	// ByDir holds every kustomization read, by real directory (see Real).
	ByDir map[string]*Kustomization
	// Roots are the kustomizations no other scanned kustomization lists,
	// sorted by directory.
	Roots []*Kustomization

	mu      sync.Mutex
	scanned map[string][]*Kustomization // scanned directory -> its roots
	// listed holds every directory the scans walked (absolute, as
	// walked, not resolved), true when it holds a kustomization file.
	listed map[string]bool
	fleet  map[string]bool // real directories holding a fleet.yaml (see fleetOverlay)
	// fluxGenerated holds the directories (real) Flux Kustomizations
	// apply without a kustomization: Flux generates one (see
	// FluxApplication).
	fluxGenerated map[string]bool
	reaches       map[*Kustomization][]string // Reaches, computed once per root
	// labelled are the kustomizations that add labels to selectors,
	// parents last (see SelectorLabels).
	labelled     []labelled
	labelledOnce sync.Once
	real         realPaths
	// src is where the kustomizations are read: the disk, or a
	// revision (AtRevision).
	src source
	// parses: the kustomizations' parses kept between runs (Discover
	// with a cache), nil to parse every file
	parses *parses
	// scope bounds every read (see scope.Scope): what a kustomization
	// names outside it is refused, never loaded.
	scope *scope.Scope
	// walked: the run's walk of its inputs, replayed by the scans
	// (walkTree); nil when there is none
	walked *manifest.Listing
	// types: every entry of the directories a replayed walk listed
	// (absolute, as walked), with its type bits as listed (see inWalked)
	types map[string]fs.FileMode
	// typed: the directories whose every entry is in types (those the
	// replayed walks entered)
	typed map[string]bool
}

// Discover finds the kustomizations under paths and returns the graph and
// its roots. A directory argument is scanned whole (hidden directories
// skipped, as manifest.Walk does) and is its own scanned tree: a
// kustomization listed only from outside it is a root here. A file
// argument is looked up from its repository (see scope.RootOf), and only the roots
// that reach it are kept, so that a file gets the same roots whether it is
// named alone (pre-commit) or its whole repository is scanned.
func Discover(paths []string) (*Graph, error) { return DiscoverCached(paths, nil) }

// DiscoverCached is Discover keeping the kustomizations' parses in store
// between runs (see parses); a nil store keeps none.
func DiscoverCached(paths []string, store *cache.Store) (*Graph, error) {
	return DiscoverListed(paths, store, nil)
}

// DiscoverListed is DiscoverCached taking the directories and the
// kustomization files under each tree it scans from walked, the run's
// walk of its inputs, where that walk listed the tree whole (see
// manifest.Listing), instead of listing the tree again; nil walks.
func DiscoverListed(paths []string, store *cache.Store, walked *manifest.Listing) (*Graph, error) {
	g := &Graph{ByDir: map[string]*Kustomization{}, scope: scope.Of(paths), walked: walked}
	g.real.scope = g.scope
	if store != nil {
		if wd, err := os.Getwd(); err == nil {
			g.parses = openParses(store, wd)
			defer g.parses.save()
		}
	}
	roots := map[string]*Kustomization{}
	var errs []error
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		st, err := os.Stat(abs)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if st.IsDir() {
			for _, r := range g.scan(abs) {
				roots[r.Dir] = r
			}
			continue
		}
		for _, r := range g.scan(scope.RootOf(abs, false)) {
			if slices.Contains(g.Reaches(r), g.Real(abs)) {
				roots[r.Dir] = r
			}
		}
	}
	for _, r := range roots {
		g.Roots = append(g.Roots, r)
	}
	sort.Slice(g.Roots, func(i, j int) bool { return g.Roots[i].Dir < g.Roots[j].Dir })
	return g, errors.Join(errs...)
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// scan reads every kustomization under dir and returns those of them no
// other kustomization under dir lists.
func (g *Graph) scan(dir string) []*Kustomization {
	g.mu.Lock()
	roots, ok := g.scanned[dir]
	g.mu.Unlock()
	if ok {
		return roots // many files named alone share one repository
	}
	roots = g.scanOnce(dir)
	g.mu.Lock()
	if g.scanned == nil {
		g.scanned = map[string][]*Kustomization{}
	}
	g.scanned[dir] = roots
	g.mu.Unlock()
	return roots
}

func (g *Graph) scanOnce(dir string) []*Kustomization {
	found := g.walkTree(dir)
	// A fleet.yaml above the scanned tree, up to its repository, may
	// name a directory in it.
	abs, _ := filepath.Abs(dir)
	top := scope.RootOf(abs, true)
	for a := filepath.Dir(abs); within(a, top) && a != filepath.Dir(a); a = filepath.Dir(a) {
		if _, err := os.Lstat(filepath.Join(a, "fleet.yaml")); err == nil {
			g.noteFleet(a)
		}
	}
	listed := map[*Kustomization]bool{}
	real := g.Real(dir)
	for _, k := range found {
		for _, r := range k.Refs {
			if r.Target != nil && within(r.Target.Dir, real) {
				listed[r.Target] = true
			}
		}
	}
	var roots []*Kustomization
	for _, k := range found {
		if !listed[k] {
			roots = append(roots, k)
		}
	}
	// Kustomizations that list each other in a cycle have no root, and
	// kustomize fails on every one of them ("cycle detected"): the first
	// of each such cycle in walk order stands as its root, so that the
	// failure is reported rather than nothing rendered.
	reached := map[*Kustomization]bool{}
	mark := func(k *Kustomization) { reached[k] = true }
	for _, r := range roots {
		walkGraph(r, mark)
	}
	for _, k := range found {
		if !reached[k] && k.Kind != "Component" {
			roots = append(roots, k)
			walkGraph(k, mark)
		}
	}
	return roots
}

// Listed says whether the scans of Discover saw a kustomization file in
// dir (absolute), and whether they walked dir at all (see
// manifest.Listed). Call it once Discover has returned.
func (g *Graph) Listed(dir string) (has, seen bool) {
	has, seen = g.listed[dir]
	return has, seen
}

// Load returns the kustomization in dir (read once, with the directories
// it references), or nil when dir has none. Its paths, and those of its
// entries, are real (see Real).
func (g *Graph) Load(dir string) *Kustomization {
	dir = g.Real(dir)
	g.mu.Lock()
	k, seen := g.ByDir[dir]
	g.mu.Unlock()
	if seen {
		return k
	}
	k = readKustomization(dir, g.src, g.scope, g.parses, g.listedFile)
	g.mu.Lock()
	if prev, ok := g.ByDir[dir]; ok {
		g.mu.Unlock()
		return prev
	}
	g.ByDir[dir] = k
	g.mu.Unlock()
	if k == nil {
		return nil
	}
	// A cycle stops here: the entry above is already in ByDir.
	g.resolveRefs(k)
	return k
}

// resolveRefs resolves the entries of k: real paths, those outside the
// scope cut off, and the kustomizations they name loaded.
func (g *Graph) resolveRefs(k *Kustomization) {
	for _, r := range k.Refs {
		if r.Path == "" {
			continue
		}
		real, isDir, regular, ok := g.inWalked(r.Path)
		if !ok {
			real = g.Real(r.Path)
		}
		if r.Path = real; !g.scope.Holds(r.Path) {
			// No path: nothing that reads entries can reach it.
			r.Path, r.Outside = "", true
			continue
		}
		if !ok {
			isDir, regular = g.src.kind(r.Path)
		}
		r.regular = regular
		if isDir && (r.Kind == RefResource || r.Kind == RefComponent || r.Kind == RefConfig) {
			r.Target = g.Load(r.Path)
		}
	}
}
