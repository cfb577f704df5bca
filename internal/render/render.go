package render

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/openapi"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Problem is a root that was not rendered: refused before kustomize ran,
// or failed in kustomize. It is reported at File:Line:Column.
type Problem struct {
	File         string
	Line, Column int
	// Refused is set when shipshape would not run kustomize (network or
	// process needed); else Message is kustomize's own error.
	Refused bool
	// Entry is the refused entry as written (a URL, a field name), or "".
	Entry   string
	Message string
}

func (p *Problem) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Column, p.Message)
}

// Object is one rendered object.
type Object struct {
	manifest.Resource
	// Node is the object's mapping node as kustomize holds it after the
	// build (a deep copy, independent of kustomize): keys in source
	// order, scalars with their resolved tags. Positions are not
	// meaningful; use Locate.
	Node *yaml.Node
	// Index is the object's place in the root's output.
	Index int
	// Origin is where kustomize says the object came from: Path is
	// relative to the root's directory (a resource file), or ConfiguredIn
	// names the kustomization whose generator made it.
	Origin *resource.Origin
	// Transformations are the transformers that ran over the object,
	// first to last, each with the kustomization that configured it
	// (ConfiguredIn) and its kind (ConfiguredBy.Kind).
	Transformations []*resource.Origin
}

// Result is one root's rendering.
type Result struct {
	Root    *Kustomization
	Objects []*Object
	// Problem is set when the root was refused or failed; Objects is
	// then empty and the root's local files are judged as plain files.
	Problem *Problem
}

// Renderer renders roots in-process. One Renderer shares its file reads
// between the roots it renders; it is safe for concurrent use.
type Renderer struct {
	graph *Graph
	fs    *readOnlyFS
	// openapiMu serialises roots that set a custom OpenAPI schema (the
	// `openapi:` field): kyaml keeps the schema in a global, so those
	// roots run alone (write lock) and the others share (read lock).
	openapiMu sync.RWMutex
	// sources caches the source files Locate parses (absolute path ->
	// *sourceFile).
	sources sync.Map
}

// NewRenderer returns a Renderer for the roots of g.
func NewRenderer(g *Graph) *Renderer {
	return &Renderer{graph: g, fs: newReadOnlyFS()}
}

// Options are the krusty options of `kustomize build` v5.8.2 run with no
// flags (build.HonorKustomizeFlags over krusty.MakeDefaultOptions):
// Reorder "unspecified" (legacy order unless the kustomization has
// sortOptions), LoadRestrictionsRootOnly, no managed-by label (unless
// KUSTOMIZE_ENABLE_MANAGEDBY_LABEL, which shipshape ignores), builtin
// plugins only and Helm disabled. krusty.MakeDefaultOptions differs in
// Reorder ("none").
func Options() *krusty.Options {
	o := krusty.MakeDefaultOptions()
	o.Reorder = krusty.ReorderOptionUnspecified
	o.LoadRestrictions = types.LoadRestrictionsRootOnly
	o.AddManagedbyLabel = false
	o.PluginConfig = types.DisabledPluginConfig()
	o.PluginConfig.HelmConfig.Enabled = false
	o.PluginConfig.HelmConfig.Command = ""
	return o
}

// RenderAll renders roots in parallel, GOMAXPROCS at a time, and returns
// their results in the order of roots.
func (r *Renderer) RenderAll(ctx context.Context, roots []*Kustomization) []*Result {
	results := make([]*Result, len(roots))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, root := range roots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i] = &Result{Root: root, Problem: &Problem{File: root.File, Line: 1, Column: 1, Message: ctx.Err().Error()}}
				return
			}
			defer func() { <-sem }()
			results[i] = r.Render(root)
		}()
	}
	wg.Wait()
	return results
}

// Render renders one root. Refusal first: a root whose graph needs the
// network or a process is never handed to kustomize (see Refuse).
func (r *Renderer) Render(root *Kustomization) *Result {
	res := &Result{Root: root}
	if p := Refuse(r.graph, root); p != nil {
		res.Problem = p
		return res
	}
	m, added, err := r.run(root)
	if err != nil {
		res.Problem = failedAt(root, err.Error())
		return res
	}
	objs, err := objects(m, added)
	if err != nil {
		res.Problem = &Problem{File: root.File, Line: 1, Column: 1, Message: err.Error()}
		return res
	}
	res.Objects = objs
	return res
}

// failedAt places kustomize's error message at the entry of root's
// kustomization it names first (kustomize's messages start from the root:
// "accumulating resources from 'service.yaml': ..."), or at the top of
// the file.
func failedAt(root *Kustomization, msg string) *Problem {
	p := &Problem{File: root.File, Line: 1, Column: 1, Message: msg}
	best := -1
	for _, r := range root.Refs {
		if r.Inline {
			continue
		}
		if i := strings.Index(msg, "'"+r.Value+"'"); i >= 0 && (best < 0 || i < best) {
			best, p.Line, p.Column = i, r.Node.Line, r.Node.Column
		}
	}
	return p
}

// run builds root with krusty and returns the resource map (with origin
// and transformer annotations) and the buildMetadata entries added.
func (r *Renderer) run(root *Kustomization) (m resmap.ResMap, added []string, err error) {
	dir := root.Dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // kustomize reads the root through its resolved path
	}
	added = r.fs.markRoot(root.File)
	r.fs.markRoot(filepath.Join(dir, filepath.Base(root.File)))
	custom := usesOpenAPI(r.graph, root)
	if custom {
		r.openapiMu.Lock()
		defer func() {
			// Put kyaml's global schema back to its default for the next
			// root, as a fresh kustomize process would have it.
			openapi.ResetOpenAPI()
			r.openapiMu.Unlock()
		}()
	} else {
		r.openapiMu.RLock()
		defer r.openapiMu.RUnlock()
	}
	defer func() {
		// kustomize panics on some malformed input; a panic is this
		// root's failure, not the whole run's.
		if p := recover(); p != nil {
			m, err = nil, fmt.Errorf("kustomize panicked: %v", p)
		}
	}()
	m, err = krusty.MakeKustomizer(Options()).Run(r.fs, dir)
	return m, added, err
}

// usesOpenAPI reports whether any kustomization root reaches sets the
// `openapi` field.
func usesOpenAPI(g *Graph, root *Kustomization) bool {
	found := false
	walkGraph(root, func(k *Kustomization) {
		if mapGet(k.Doc, "openapi") != nil {
			found = true
		}
	})
	return found
}

// walkGraph calls fn on every kustomization reachable from root, once,
// depth first in reference order.
func walkGraph(root *Kustomization, fn func(*Kustomization)) {
	seen := map[*Kustomization]bool{}
	var walk func(k *Kustomization)
	walk = func(k *Kustomization) {
		if k == nil || seen[k] {
			return
		}
		seen[k] = true
		fn(k)
		for _, ref := range k.Refs {
			walk(ref.Target)
		}
	}
	walk(root)
}

// objects turns the resource map into Objects: origins read, the
// annotations that buildMetadata added removed (the same calls krusty
// makes when buildMetadata is off), nodes deep-copied.
func objects(m resmap.ResMap, added []string) ([]*Object, error) {
	rs := m.Resources()
	objs := make([]*Object, len(rs))
	for i, res := range rs {
		o := &Object{Index: i}
		var err error
		if o.Origin, err = res.GetOrigin(); err != nil {
			return nil, err
		}
		ts, err := res.GetTransformations()
		if err != nil {
			return nil, err
		}
		o.Transformations = ts
		objs[i] = o
	}
	for _, a := range added {
		var err error
		switch a {
		case "originAnnotations":
			err = m.RemoveOriginAnnotations()
		case "transformerAnnotations":
			err = m.RemoveTransformerAnnotations()
		}
		if err != nil {
			return nil, err
		}
	}
	for i, res := range rs {
		o := objs[i]
		o.Node = deepCopy(res.YNode())
		o.APIVersion = res.GetApiVersion()
		o.Kind = res.GetKind()
		o.Name = res.GetName()
		o.Namespace = res.GetNamespace()
	}
	return objs, nil
}

// deepCopy copies a node tree (aliases are followed by copying their
// target once).
func deepCopy(n *yaml.Node) *yaml.Node {
	seen := map[*yaml.Node]*yaml.Node{}
	var cp func(n *yaml.Node) *yaml.Node
	cp = func(n *yaml.Node) *yaml.Node {
		if n == nil {
			return nil
		}
		if c, ok := seen[n]; ok {
			return c
		}
		c := *n
		seen[n] = &c
		if n.Content != nil {
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, ch := range n.Content {
				c.Content[i] = cp(ch)
			}
		}
		c.Alias = cp(n.Alias)
		return &c
	}
	return cp(n)
}
