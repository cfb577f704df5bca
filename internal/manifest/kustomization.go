package manifest

import (
	"path/filepath"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/scope"
)

var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// Context is what the kustomizations around a file say about it.
type Context struct {
	// Patch: the file is listed under patches, patchesStrategicMerge or
	// patchesJson6902, so its objects are partial.
	Patch bool
	// SelectorLabels are labels kustomize adds to the selectors and pod
	// templates of the file's objects (commonLabels, labels with
	// includeSelectors): a base without a selector is completed by them.
	SelectorLabels map[string]string
	// Kustomize names the kustomize roots that read the file when they
	// are rendered: its objects are sources (bases, patches), read by
	// kustomize, not applied as written.
	Kustomize []string
	// Unrendered: the file is read by kustomize roots that did not render
	// (a remote base, a missing file). It is judged as written, but what
	// GitOps applies of it is what kustomize makes of its values.
	Unrendered bool
	// Beside: the file's directory holds a kustomization that does not
	// list it: a GitOps engine pointed at the directory applies what
	// kustomize builds, so the file is not applied with the rest.
	Beside bool
	// Application is the directory whose files are applied together with
	// this one when it is not the file's own: the directory a Flux
	// Kustomization applies, whose tree Flux builds as one kustomization.
	Application string
}

// Kustomizations reads the kustomization files next to the inputs, once
// per directory. Safe for concurrent use: the lock only guards the cache,
// and each directory is read outside it, so workers do not queue behind
// each other's file reads.
type Kustomizations struct {
	mu   sync.Mutex
	dirs map[string]*kustomizationDir

	wd WorkDir
	// Scope bounds the directories read: a file's parents outside it are
	// not probed. Without one, a file's own repository (scope.RootOf)
	// bounds its lookups.
	Scope *scope.Scope
}

// kustomizationDir is one directory's cache entry, filled once.
type kustomizationDir struct {
	once sync.Once
	kz   *kustomization // nil: the directory has none
}

// get returns the kustomization of dir, reading it on first use (or
// taking the document known gives).
func (k *Kustomizations) get(dir string, known KnownDocs) *kustomization {
	k.mu.Lock()
	if k.dirs == nil {
		k.dirs = map[string]*kustomizationDir{}
	}
	d, ok := k.dirs[dir]
	if !ok {
		d = &kustomizationDir{}
		k.dirs[dir] = d
	}
	k.mu.Unlock()
	d.once.Do(func() {
		if known != nil {
			if doc, ok := known(dir); ok {
				d.kz = kustomizationOf(dir, doc)
				return
			}
		}
		d.kz = readKustomization(dir, k.Scope)
	})
	return d.kz
}

type kustomization struct {
	patches, resources map[string]bool // absolute paths
	selectorLabels     map[string]string
}

// Listed answers from a directory walk whether dir (absolute) holds a
// kustomization file; seen is false for a directory the walk did not
// list.
type Listed func(dir string) (has, seen bool)

// KnownDocs answers from a walk that already parsed it the document of
// dir's kustomization file: the root mapping of the bytes of its first
// name (kustomizationNames) that reads, as readKustomization would parse
// them; ok is false whenever the walk cannot say exactly that (then the
// file is read here).
type KnownDocs func(dir string) (doc *yaml.Node, ok bool)

// For returns the context of path: patches are looked up in the
// kustomizations of its directory and the two above it (a
// `patches/deploy.yaml` layout is common), selector labels only in its own
// directory's kustomization, when that lists the file as a resource.
func (k *Kustomizations) For(path string) Context { return k.ForListed(path, nil) }

// ForListed is For, where listed (when not nil) spares the reads of
// directories a walk saw without a kustomization file: they are most
// directories, and three failed opens each.
func (k *Kustomizations) ForListed(path string, listed Listed) Context {
	return k.ForWalked(path, listed, nil)
}

// ForWalked is ForListed, where known (when not nil) spares the reads and
// parses of the kustomizations the walk parsed (render.Discover).
func (k *Kustomizations) ForWalked(path string, listed Listed, known KnownDocs) Context {
	var ctx Context
	if path == Stdin {
		return ctx
	}
	abs, err := k.wd.Abs(path)
	if err != nil {
		return ctx
	}
	dir := filepath.Dir(abs)
	inScope := func(d string) bool { return k.Scope.Holds(d) }
	if k.Scope == nil {
		top := scope.RootOf(abs, false)
		inScope = func(d string) bool { return scope.Within(d, top) }
	}
	for i := 0; i < 3 && inScope(dir); i++ {
		if kz := k.near(dir, listed, known); kz != nil {
			if i == 0 && !kz.resources[abs] && !kz.patches[abs] {
				ctx.Beside = true
			}
			if kz.patches[abs] {
				ctx.Patch = true
			}
			if i == 0 && kz.resources[abs] {
				ctx.SelectorLabels = kz.selectorLabels
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ctx
}

// near is get, unless listed says dir holds no kustomization file.
func (k *Kustomizations) near(dir string, listed Listed, known KnownDocs) *kustomization {
	if listed != nil {
		if has, seen := listed(dir); seen && !has {
			return nil
		}
	}
	return k.get(dir, known)
}

// readKustomization reads dir's kustomization; one that links out of sc
// (when set) is never opened.
func readKustomization(dir string, sc *scope.Scope) *kustomization {
	for _, name := range kustomizationNames {
		file := filepath.Join(dir, name)
		if sc != nil && !sc.Contains(file) {
			return nil // a link out: kustomize would read it, not the next name
		}
		data, err := ReadRegular(file, NoSizeLimit)
		if err != nil {
			continue
		}
		// A kustomization we cannot read only loses these hints; the file
		// itself is linted on its own and reports its own errors.
		var doc yaml.Node
		_ = yaml.Unmarshal(data, &doc)
		var root *yaml.Node
		if len(doc.Content) > 0 {
			root = doc.Content[0]
		}
		return kustomizationOf(dir, root)
	}
	return nil
}

// kustomizationOf is what the kustomization document root (nil: none
// parsed) of dir says of the files it names.
func kustomizationOf(dir string, root *yaml.Node) *kustomization {
	var k struct {
		Resources []string `yaml:"resources"`
		Patches   []struct {
			Path string `yaml:"path"`
		} `yaml:"patches"`
		PatchesStrategicMerge []string `yaml:"patchesStrategicMerge"`
		PatchesJSON6902       []struct {
			Path string `yaml:"path"`
		} `yaml:"patchesJson6902"`
	}
	if root != nil {
		_ = root.Decode(&k)
	}
	kz := &kustomization{patches: map[string]bool{}, resources: map[string]bool{}}
	add := func(set map[string]bool, p string) {
		// Inline patches are YAML text, not paths.
		if p != "" && !strings.ContainsAny(p, "\n:") {
			set[filepath.Join(dir, p)] = true
		}
	}
	for _, p := range k.Resources {
		add(kz.resources, p)
	}
	for _, p := range k.Patches {
		add(kz.patches, p.Path)
	}
	for _, p := range k.PatchesStrategicMerge {
		add(kz.patches, p)
	}
	for _, p := range k.PatchesJSON6902 {
		add(kz.patches, p.Path)
	}
	kz.selectorLabels = SelectorLabelsOf(root)
	return kz
}

// SelectorLabelsOf returns the labels the kustomization doc adds to
// selectors and pod templates (commonLabels, and labels with
// includeSelectors), or nil.
func SelectorLabelsOf(doc *yaml.Node) map[string]string {
	var labels map[string]string
	add := func(m *yaml.Node) {
		if m == nil || m.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if labels == nil {
				labels = map[string]string{}
			}
			labels[m.Content[i].Value] = m.Content[i+1].Value
		}
	}
	add(MapGet(doc, "commonLabels"))
	if l := MapGet(doc, "labels"); l != nil && l.Kind == yaml.SequenceNode {
		for _, item := range l.Content {
			var include bool
			if v := MapGet(item, "includeSelectors"); v != nil && v.Decode(&include) == nil && include {
				add(MapGet(item, "pairs"))
			}
		}
	}
	return labels
}
