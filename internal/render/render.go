package render

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/shipshape-dev/shipshape/internal/cache"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/kyamlschema"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Rendering one root: krusty run in-process over a read-only view of the
// disk (fs.go), its objects copied out as yaml.v3 nodes (Result), or why it
// was not rendered (Problem, placed by failedat.go).

// Problem is a root that was not rendered: refused before kustomize ran,
// or failed in kustomize. It is reported at File:Line:Column.
type Problem struct {
	File         string
	Line, Column int
	// Refused is set when shipshape would not run kustomize (network or
	// process needed); else Message is kustomize's own error.
	Refused bool
	// Template is set, with Refused, for a root whose kustomization sets
	// template markers (see templateRoot): a template's source, not a
	// mistake to warn about.
	Template bool
	// Budget is set, with Refused, for a root not rendered (or abandoned)
	// because it would pass its render budget (see Budget).
	Budget bool
	// Unrendered is, for a refused root (not a template), what kind of
	// application it is that no rule judges.
	Unrendered analysis.Unrendered
	// Entry is the refused entry as written (a URL, a field name), or "".
	Entry   string
	Message string
	// Hint says what kustomize's Message likely means for this root, or
	// "": kept apart, as Message is kustomize's own words.
	Hint string
	// Cause is Message in one line that leads with the cause (causeOf),
	// for a failure of kustomize's; "" when Message says it plainly.
	Cause string
	// Also are the root's other remote entries, each reported where it
	// is written, so that none stays hidden behind the first.
	Also []*Problem
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
	// names the kustomization whose generator made it. Filled by
	// Renderer.Trace, nil before (Locate then derives it from the graph).
	Origin *resource.Origin
	// Transformations are the transformers that ran over the object,
	// first to last, each with the kustomization that configured it
	// (ConfiguredIn) and its kind (ConfiguredBy.Kind). Filled by Trace.
	Transformations []*resource.Origin
}

// Result is one root's rendering.
type Result struct {
	Root    *Kustomization
	Objects []*Object
	// Problem is set when the root was refused or failed; Objects is
	// then empty and the root's local files are judged as plain files.
	Problem *Problem

	traceOnce sync.Once
	traceErr  error

	deriveOnce sync.Once
	derived    []*derived // by object index; see derive.go

	helm *helmBuild // the root's rendered helmCharts, or nil
}

// Renderer renders roots in-process. One Renderer shares its file reads
// between the roots it renders; it is safe for concurrent use.
type Renderer struct {
	graph *Graph
	fs    *readOnlyFS
	// sources caches the source files Locate parses (absolute path ->
	// *sourceFile).
	sources sync.Map
	// patches caches patchEntries (patchKey -> []patchEntry), bases
	// caches baseDoc (baseKey -> *base).
	patches, bases sync.Map
	// configs caches transformer configs read as kustomizations
	// (configKey -> *Kustomization).
	configs sync.Map

	// GCPercent is the garbage collector's GOGC while RenderAll runs (0:
	// leave it alone). kustomize allocates about 140 bytes per byte of
	// YAML it reads (kyaml copies every mapping's subtree when it
	// resolves anchors), so at the default 100 the collector takes about
	// half the CPU of a render; at 400, measured on argo-cd's 7 roots,
	// the CPU time halves and the peak heap grows from about 190 MB to
	// 600 MB. NewRenderer sets 400. When internal/gcpace paces the
	// collector (the shipshape command), it is the ratio gcpace paces by
	// past its budget (1+GCPercent/100) that is raised.
	GCPercent int
	// Rendered, when set, is called with each result Render returns that
	// has no Problem, from the goroutine that rendered it, before
	// RenderAll has rendered the others: a caller that judges a root's
	// objects at once need not hold every root's at the same time.
	Rendered func(*Result)
	// LoadRestrictionsNone renders as `kustomize build --load-restrictor
	// LoadRestrictionsNone` (and Flux) do: a kustomization may list files
	// outside its directory. Unset, LoadRestrictionsRootOnly refuses them.
	LoadRestrictionsNone bool
	// Budget bounds each root's rendering; zero fields are
	// DefaultBudget's.
	Budget Budget
	// Cache, when set, keeps roots' renderings between runs
	// (rendercache.go).
	Cache *cache.Store
	// unrestricted holds the roots (by directory) rendered as if
	// LoadRestrictionsNone were set: those Flux applies (see Unrestrict).
	unrestricted sync.Map
	// KubernetesVersion is the cluster version helmCharts are rendered
	// for when an entry names none ("": helmrender's default).
	KubernetesVersion string
	// helm caches each kustomization's rendered helmCharts (*helmOnce),
	// helmOut their in-memory files (file -> *HelmOutput).
	helm, helmOut sync.Map
}

// Unrestrict renders root from now on with LoadRestrictionsNone, as Flux
// builds every root it applies.
func (r *Renderer) Unrestrict(root *Kustomization) { r.unrestricted.Store(root.Dir, true) }

// restricted reports whether root renders with LoadRestrictionsRootOnly.
func (r *Renderer) restricted(root *Kustomization) bool {
	_, none := r.unrestricted.Load(root.Dir)
	return !r.LoadRestrictionsNone && !none
}

// outsideRoot is how kustomize says a file is outside the root's
// directory, which LoadRestrictionsRootOnly refuses.
const outsideRoot = "' is not in or below '"

// OutsideRoot reports whether the root failed because it lists a file
// outside its directory, which LoadRestrictionsRootOnly refuses.
func (p *Problem) OutsideRoot() bool { return strings.Contains(p.Message, outsideRoot) }

// NewRenderer returns a Renderer for the roots of g. A Renderer reads
// each file once and keeps it: to verify a fix by rendering again, make a
// new Renderer (and Discover again when a kustomization changed).
func NewRenderer(g *Graph) *Renderer {
	return &Renderer{graph: g, fs: newReadOnlyFS(g.scope, g.src), GCPercent: 400}
}

// Options are the krusty options of `kustomize build` v5.8.2 run with no
// flags (build.HonorKustomizeFlags over krusty.MakeDefaultOptions):
// Reorder "unspecified" (legacy order unless the kustomization has
// sortOptions), LoadRestrictionsRootOnly, no managed-by label (unless
// KUSTOMIZE_ENABLE_MANAGEDBY_LABEL, which shipshape ignores), builtin
// plugins only and Helm disabled. krusty.MakeDefaultOptions differs in
// Reorder ("none"). lr is the --load-restrictor (RootOnly by default).
func Options(lr types.LoadRestrictions) *krusty.Options {
	o := krusty.MakeDefaultOptions()
	o.Reorder = krusty.ReorderOptionUnspecified
	o.LoadRestrictions = lr
	o.AddManagedbyLabel = false
	o.PluginConfig = types.DisabledPluginConfig()
	o.PluginConfig.HelmConfig.Enabled = false
	o.PluginConfig.HelmConfig.Command = ""
	return o
}

// Render renders one root. Refusal first: a root whose graph needs the
// network or a process is never handed to kustomize (see Refuse).
func (r *Renderer) Render(root *Kustomization) *Result {
	res := &Result{Root: root}
	if p := Refuse(r.graph, root); p != nil {
		res.Problem = p
		if k, ref := missingFile(root); ref != nil && !p.Template {
			// The root cannot build, whatever the refused entry holds.
			res.Problem = &Problem{File: k.File, Line: ref.Node.Line, Column: ref.Node.Column, Entry: ref.Value,
				Message: fmt.Sprintf("%s entry %q names no file: kustomize fails on it whatever %s holds (not fetched)", ref.Field, ref.Value, p.Entry)}
		}
		return res
	}
	if res.Problem = r.overBudget(root); res.Problem != nil {
		return res
	}
	hb, err := r.prepareHelm(root)
	if err != nil {
		res.Problem = helmProblem(err)
		return res
	}
	res.helm = hb
	// Neither a root with helmCharts nor an Argo CD variant is cached: what
	// they read is not all read through kustomize's file system.
	objs, err := r.build(root, hb == nil && root.Argo == nil)
	if res.Problem = budgetFailure(root, err); res.Problem != nil {
		return res
	}
	if err != nil {
		res.Problem = r.failedAt(root, withoutContents(withoutAddresses(err.Error())))
		res.Problem.Hint = r.hint(root, res.Problem.Message)
		res.Problem.Cause = causeOf(root, res.Problem)
		return res
	}
	res.Objects = objs
	// kustomize build writes the objects through JSON, which has no
	// infinities or NaN: a value kustomize read as one (.inf) fails it.
	for _, o := range res.Objects {
		if p, v := nonFinite(o.Node, nil); p != nil {
			l := r.Locate(res, o, p)
			res.Objects, res.Problem = nil, &Problem{File: l.File, Line: l.Line, Column: l.Column,
				Message: fmt.Sprintf("json: unsupported value: %s (kustomize cannot write %s: JSON has no infinities or NaN)", v, o.Label())}
			if l.Source == FromRendered {
				res.Problem.File, res.Problem.Line, res.Problem.Column = root.File, 1, 1
			}
			return res
		}
	}
	if r.Rendered != nil {
		r.Rendered(res)
	}
	return res
}

// Trace fills the Origin and Transformations of res's objects, once: it
// builds the root again with kustomize's origin and transformer
// annotations on (buildMetadata, added in memory to the root
// kustomization; krusty hands it down to every base and component), reads
// them, and checks that the objects are the same, in the same order.
//
// Why a second build: with buildMetadata on, kustomize re-encodes the
// list of transformations into an annotation of every resource after
// every transformer, a third of the build time on argo-cd's manifests.
// Locate does not need it (it derives the same facts from the graph);
// Trace is there to check that derivation (TestCorpusLocate) and for a
// caller that wants kustomize's own word.
func (r *Renderer) Trace(res *Result) error {
	res.traceOnce.Do(func() {
		if res.Problem != nil {
			res.traceErr = res.Problem
			return
		}
		m, err := r.run(res.Root, true, nil)
		if err != nil {
			res.traceErr = err
			return
		}
		rs := m.Resources()
		if len(rs) != len(res.Objects) {
			res.traceErr = fmt.Errorf("traced build of %s made %d objects, not %d", res.Root.Dir, len(rs), len(res.Objects))
			return
		}
		for i, rr := range rs {
			o := res.Objects[i]
			if rr.GetKind() != o.Kind || rr.GetName() != o.Name || rr.GetNamespace() != o.Namespace {
				res.traceErr = fmt.Errorf("traced build of %s differs at object %d (%s/%s, not %s)", res.Root.Dir, i, rr.GetKind(), rr.GetName(), o.Label())
				return
			}
			if o.Origin, err = rr.GetOrigin(); err != nil {
				res.traceErr = err
				return
			}
			if o.Transformations, err = rr.GetTransformations(); err != nil {
				res.traceErr = err
				return
			}
		}
	})
	return res.traceErr
}

// objectsOf makes the Objects of rendered resources.
func objectsOf(rs []*resource.Resource) []*Object {
	objs := make([]*Object, len(rs))
	for i, r := range rs {
		objs[i] = newObject(i, r)
	}
	return objs
}

// newObject makes the Object of a rendered resource.
func newObject(i int, rs *resource.Resource) *Object {
	return &Object{
		Resource: manifest.Resource{
			APIVersion: rs.GetApiVersion(), Kind: rs.GetKind(),
			Name: rs.GetName(), Namespace: rs.GetNamespace(),
		},
		Node:  deepCopy(rs.YNode()),
		Index: i,
	}
}

// run builds root with krusty; with trace, the root kustomization is read
// with buildMetadata (origin and transformer annotations kept).
func (r *Renderer) run(root *Kustomization, trace bool, log *readLog) (m resmap.ResMap, err error) {
	dir := root.Dir // real (Graph.Load), as kustomize reads it
	var fs filesys.FileSystem = r.fs
	if trace {
		fs = tracingFS{r.fs, filepath.Clean(root.File)}
	}
	if root.Argo != nil {
		data := root.Argo.data
		if trace {
			data, _ = withBuildMetadata(data)
		}
		fs = variantFS{fs, filepath.Clean(root.File), data}
	}
	if log != nil { // a build for the cache (rendercache.go)
		fs = loggingFS{fs, log}
	}
	hb, err := r.prepareHelm(root) // rendered already by Render: cached
	if err != nil {
		return nil, err
	}
	if hb != nil {
		fs = helmFS{FileSystem: fs, disk: r.fs, build: hb}
	}
	guard := &guardedFS{FileSystem: fs, costs: r.fs, data: r.graph.Embedded(root)}
	fs = guard
	defer func() {
		if refused := guard.first(); refused != nil {
			m, err = nil, refused
		}
	}()
	custom := usesOpenAPI(r.graph, root)
	if custom {
		openapiMu.Lock()
		// As a fresh kustomize process has it: no schema until the
		// root's own is read.
		openapi.ResetOpenAPI()
		schemaReady.Store(false)
		defer func() {
			// Put kyaml's global schema back to its default for the next
			// root, as a fresh kustomize process would have it.
			openapi.ResetOpenAPI()
			schemaReady.Store(false)
			openapiMu.Unlock()
		}()
	} else {
		defaultSchema()
		openapiMu.RLock()
		defer openapiMu.RUnlock()
	}
	defer func() {
		// kustomize panics on some malformed input; a panic is this
		// root's failure, not the whole run's.
		if p := recover(); p != nil {
			m, err = nil, fmt.Errorf("kustomize panicked: %v", p)
		}
	}()
	lr := types.LoadRestrictionsRootOnly
	if !r.restricted(root) {
		lr = types.LoadRestrictionsNone
	}
	return krusty.MakeKustomizer(Options(lr)).Run(fs, dir)
}

// kyaml keeps the OpenAPI schema in a global. openapiMu serialises the
// roots that set a custom one (the `openapi:` field): they run alone
// (write lock), the others share it (read lock). schemaReady is set while
// the default schema is initialised.
var (
	openapiMu   sync.RWMutex
	schemaReady atomic.Bool
)

// defaultSchema installs kyaml's default schema, alone, before roots
// render with it side by side: kyaml reads the schema without its lock
// (openapi.IsNamespaceScoped) while the first root to need it fills it in
// under the lock, and two roots rendering at once raced there (go test
// -race, one run in many). kyamlschema installs it without decoding
// kyaml's bundle, so roots that never needed it pay about a millisecond.
func defaultSchema() {
	if schemaReady.Load() {
		return
	}
	openapiMu.Lock()
	defer openapiMu.Unlock()
	if !schemaReady.Load() {
		kyamlschema.Install()
		schemaReady.Store(true)
	}
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
