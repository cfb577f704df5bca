package render

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"

	"github.com/shipshape-dev/shipshape/internal/gcpace"
	"github.com/shipshape-dev/shipshape/internal/kyamlschema"
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
	// Template is set, with Refused, for a root whose kustomization sets
	// template markers (see templateRoot): a template's source, not a
	// mistake to warn about.
	Template bool
	// Entry is the refused entry as written (a URL, a field name), or "".
	Entry   string
	Message string
	// Hint says what kustomize's Message likely means for this root, or
	// "": kept apart, as Message is kustomize's own words.
	Hint string
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
	// unrestricted holds the roots (by directory) rendered as if
	// LoadRestrictionsNone were set: those Flux applies (see Unrestrict).
	unrestricted sync.Map
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
	return &Renderer{graph: g, fs: newReadOnlyFS(), GCPercent: 400}
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

// RenderAll renders roots in parallel, GOMAXPROCS at a time, and returns
// their results in the order of roots. The largest roots (by the bytes of
// the files they reach) start first, so that no core is left idle behind
// one long root at the end. While it runs, the garbage collector is set
// to r.GCPercent (see there).
func (r *Renderer) RenderAll(ctx context.Context, roots []*Kustomization) []*Result {
	results := make([]*Result, len(roots))
	r.parallel(ctx, roots, func(i int) { results[i] = r.Render(roots[i]) }, func(i int, err error) {
		results[i] = &Result{Root: roots[i], Problem: &Problem{File: roots[i].File, Line: 1, Column: 1, Message: err.Error()}}
	})
	return results
}

// TraceAll traces (see Trace) the results in parallel, as RenderAll
// renders: for a caller that will Locate findings on many roots.
func (r *Renderer) TraceAll(ctx context.Context, results []*Result) {
	roots := make([]*Kustomization, len(results))
	for i, res := range results {
		roots[i] = res.Root
	}
	r.parallel(ctx, roots, func(i int) { _ = r.Trace(results[i]) }, func(int, error) {})
}

// parallel runs do(i) for every root on GOMAXPROCS workers, largest
// roots first; cancelled(i, err) for those not started before ctx ends.
func (r *Renderer) parallel(ctx context.Context, roots []*Kustomization, do func(int), cancelled func(int, error)) {
	defer raiseGC(r.GCPercent)()
	order := make([]int, len(roots))
	cost := make([]int64, len(roots))
	for i, root := range roots {
		order[i] = i
		for _, f := range r.graph.Reaches(root) {
			if st, err := os.Stat(f); err == nil {
				cost[i] += st.Size()
			}
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return cost[order[a]] > cost[order[b]] })
	next := make(chan int)
	go func() {
		defer close(next)
		for _, i := range order {
			next <- i
		}
	}()
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(roots)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := ctx.Err(); err != nil {
					cancelled(i, err)
					continue
				}
				do(i)
			}
		}()
	}
	wg.Wait()
}

// The garbage collector setting is process-wide: the first RenderAll to
// start raises it, the last to end puts back what was there.
var (
	gcMu    sync.Mutex
	gcUsers int
	gcSaved int
)

// raiseGC sets GOGC to percent (when that is higher than the current
// setting, and the collector is on) until the returned func is called.
func raiseGC(percent int) func() {
	if percent <= 0 {
		return func() {}
	}
	// GOGC=percent keeps a heap of 1+percent/100 times the live one.
	if restore, ok := gcpace.Raise(1 + float64(percent)/100); ok {
		return restore
	}
	gcMu.Lock()
	defer gcMu.Unlock()
	if gcUsers == 0 {
		gcSaved = debug.SetGCPercent(percent)
		if gcSaved < 0 || gcSaved >= percent {
			debug.SetGCPercent(gcSaved) // off, or already higher: keep it
		}
	}
	gcUsers++
	return func() {
		gcMu.Lock()
		defer gcMu.Unlock()
		if gcUsers--; gcUsers == 0 {
			debug.SetGCPercent(gcSaved)
		}
	}
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
	m, err := r.run(root, false)
	if err != nil {
		res.Problem = r.failedAt(root, withoutAddresses(err.Error()))
		res.Problem.Hint = r.hint(root, res.Problem.Message)
		return res
	}
	for i, rs := range m.Resources() {
		res.Objects = append(res.Objects, newObject(i, rs))
	}
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

// Skeleton is what the rendered object n keeps once its root is judged
// and no finding of it is left to place: its apiVersion, kind and
// metadata (which patch targets select by), without the rest (a CRD's
// schema is most of a bundle's bytes).
func Skeleton(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return n
	}
	out := *n
	out.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case "apiVersion", "kind", "metadata":
			out.Content = append(out.Content, n.Content[i], n.Content[i+1])
		}
	}
	return &out
}

// nonFinite is the path below n (at p) of the first float that is an
// infinity or NaN, and how JSON would name it; nil when there is none.
func nonFinite(n *yaml.Node, p Path) (Path, string) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() == "!!float" {
			switch strings.ToLower(strings.TrimPrefix(n.Value, "+")) {
			case ".inf":
				return p, "+Inf"
			case "-.inf":
				return p, "-Inf"
			case ".nan":
				return p, "NaN"
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if q, v := nonFinite(n.Content[i+1], p.Key(n.Content[i].Value)); q != nil {
				return q, v
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if q, v := nonFinite(c, p.Idx(i)); q != nil {
				return q, v
			}
		}
	}
	return nil, ""
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
		m, err := r.run(res.Root, true)
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

// missingFile is the first entry of root's graph (and its
// kustomization) that names a local file that does not exist: kustomize
// fails on it whatever the entries Refuse stops hold.
func missingFile(root *Kustomization) (*Kustomization, *Ref) {
	var in *Kustomization
	var missing *Ref
	walkGraph(root, func(k *Kustomization) {
		for _, r := range k.Refs {
			if missing != nil || r.Path == "" || r.Remote || r.Inline || r.Target != nil || r.Node == nil {
				continue
			}
			if _, err := os.Stat(r.Path); errors.Is(err, fs.ErrNotExist) {
				in, missing = k, r
			}
		}
	})
	return in, missing
}

// address is a pointer kustomize prints with %v in some messages
// ("merging from generator &{0x24a01c58ca90 <nil>}").
var address = regexp.MustCompile(`\b0x[0-9a-f]{6,}\b`)

// withoutAddresses is msg with its pointers written 0x…: the same failure
// reads the same from run to run (CI diffs, baselines).
func withoutAddresses(msg string) string {
	return address.ReplaceAllString(msg, "0x…")
}

// failedAt places kustomize's error message at the entry of root's
// kustomization it names first (kustomize's messages start from the root:
// "accumulating resources from 'service.yaml': ..."), else at the entry
// whose file it could not read (generators and patches name only the
// path: "evalsymlink failure on '/abs/.env'"), or at the top of the file.
func (r *Renderer) failedAt(root *Kustomization, msg string) *Problem {
	// A base's kustomization kustomize could not decode: at its value, as
	// when that base is the root.
	if k, n := undecoded(root, msg); k != nil {
		return &Problem{File: k.File, Line: n.Line, Column: n.Column, Message: msg}
	}
	// A base (or a base's base) that failed on one of its own entries
	// (a file it lists that is missing): at that entry, the line to edit,
	// once for every root that reaches it.
	if k, r := deepestNamed(root, msg); k != root && r != nil {
		return &Problem{File: k.File, Line: r.Node.Line, Column: r.Node.Column, Message: msg}
	}
	// A failure named by what the entry holds, in root or below it.
	if file, n := r.namedEntry(root, msg); n != nil {
		return &Problem{File: file, Line: n.Line, Column: n.Column, Message: msg}
	}
	p := &Problem{File: root.File, Line: 1, Column: 1, Message: msg}
	for _, name := range []func(*Ref) string{
		func(r *Ref) string { return r.Value },
		func(r *Ref) string { return r.Path },
	} {
		best := -1
		for _, r := range root.Refs {
			if r.Inline || name(r) == "" {
				continue
			}
			// 'service.yaml', or a patch it cannot parse: [path: "patch.yaml"].
			for _, quoted := range []string{"'" + name(r) + "'", `[path: "` + name(r) + `"]`} {
				if i := strings.Index(msg, quoted); i >= 0 && (best < 0 || i < best) {
					best, p.Line, p.Column = i, r.Node.Line, r.Node.Column
				}
			}
		}
		if best >= 0 {
			return p
		}
	}
	// A strategic-merge patch that matches nothing is named by the
	// object it patches: "no resource matches strategic merge patch
	// \"Deployment.v1.apps/velero.[noNs]\"".
	if kind, name, ok := unmatchedPatch(msg); ok {
		for _, r := range root.Refs {
			if r.Kind == RefPatch && patchNames(r, kind, name) {
				p.Line, p.Column = r.Node.Line, r.Node.Column
				return p
			}
		}
		if file, at := inlinePatchNaming(root, kind, name); at != nil {
			p.File, p.Line, p.Column = file, at.Line, at.Column
			return p
		}
	}
	if n := decodeErrorAt(root.Doc, msg); n != nil {
		p.Line, p.Column = n.Line, n.Column
	}
	return p
}

var (
	// evanphx/json-patch: "add operation does not apply: doc is missing
	// path: \"/metadata/labels/x\": missing value".
	jsonPatchMissing = regexp.MustCompile(`operation does not apply: doc is missing (?:path|key): "?(/[^"\s:]*)`)
	unmappedVar      = regexp.MustCompile(`var '\{(\S+) `)
	unscalable       = regexp.MustCompile(`resource with name (\S+) does not match a config with the following GVK`)
)

// namedEntry finds, in the kustomizations root reaches, the entry a
// failure names only by what it holds: the JSON patch op on a path the
// object lacks (in its patch file, or inline), the var kustomize cannot
// map, the replicas entry of an object it cannot scale; nil when the
// message is none of these.
func (r *Renderer) namedEntry(root *Kustomization, msg string) (file string, at *yaml.Node) {
	op, v, rep := jsonPatchMissing.FindStringSubmatch(msg), unmappedVar.FindStringSubmatch(msg), unscalable.FindStringSubmatch(msg)
	if op == nil && v == nil && rep == nil {
		return "", nil
	}
	entry := func(k *Kustomization, field, name string) *yaml.Node {
		for _, e := range seq(mapGet(k.Doc, field)) {
			if scalarOf(e, "name") == name {
				return e
			}
		}
		return nil
	}
	walkGraph(root, func(k *Kustomization) {
		switch {
		case at != nil || k.Doc == nil:
		case v != nil:
			file, at = k.File, entry(k, "vars", v[1])
		case rep != nil:
			file, at = k.File, entry(k, "replicas", rep[1])
		default:
			r.jsonOps(k, func(e patchEntry, o *yaml.Node) bool {
				if scalarOf(o, "path") == op[1] {
					file, at = e.file, o
				}
				return at != nil
			})
		}
	})
	return file, at
}

// deepestNamed follows the entries kustomize's message names one after
// the other ("accumulating resources from '../crd': ... accumulating
// resources from 'bases/quota.yaml': ... no such file") from root down
// through the kustomizations they are, and returns the last one named and
// the kustomization that lists it; r is nil when the message names no
// entry of root, or the entries go round a cycle.
func deepestNamed(root *Kustomization, msg string) (owner *Kustomization, r *Ref) {
	owner, k, rest := root, root, msg
	seen := map[*Kustomization]bool{root: true}
	for {
		var next *Ref
		best, after := -1, 0
		for _, c := range k.Refs {
			if c.Inline {
				continue
			}
			// As listed, or by the absolute path of a file it could not
			// read ("evalsymlink failure on '/abs/config.yaml'").
			for _, name := range []string{c.Value, c.Path} {
				if i := strings.Index(rest, "'"+name+"'"); name != "" && i >= 0 && (best < 0 || i < best) {
					best, after, next = i, i+len(name)+2, c
				}
			}
		}
		if next == nil {
			return owner, r
		}
		owner, r = k, next
		if next.Target == nil {
			return owner, r
		}
		if seen[next.Target] { // a cycle: the root's entry starts it
			return root, nil
		}
		seen[next.Target] = true
		k, rest = next.Target, rest[after:]
	}
}

// undecoded is the kustomization below root, along the entries kustomize's
// message names one after the other ("accumulating resources from
// '../base': ... couldn't make target for path 'base': invalid
// Kustomization: json: cannot unmarshal ..."), that it could not decode,
// and where in it; nil when that is root itself, or the message says
// nothing of the kind.
func undecoded(root *Kustomization, msg string) (*Kustomization, *yaml.Node) {
	const invalid = "invalid Kustomization: "
	end := strings.Index(msg, invalid)
	if end < 0 {
		return nil, nil
	}
	_, r := deepestNamed(root, msg[:end])
	if r == nil || r.Target == nil {
		return nil, nil
	}
	if n := decodeErrorAt(r.Target.Doc, msg); n != nil {
		return r.Target, n
	}
	return nil, nil
}

// hint explains two failures whose message does not say their likely
// cause: a file outside the root refused by the load restrictor Flux
// does not use, and patches with nothing to patch.
func (r *Renderer) hint(root *Kustomization, msg string) string {
	switch {
	case r.restricted(root) && strings.Contains(msg, outsideRoot):
		return "kustomize build and Argo CD refuse a file outside the root's directory by default; Flux loads it: set loadRestrictor: LoadRestrictionsNone in .shipshape.yaml if your engine does"
	case root.listsNothing() && (strings.Contains(msg, "no matches for Id") || strings.Contains(msg, "no resource matches")):
		return "the kustomization lists no resources, bases, components or generators: its patches have nothing to patch; is `resources: [../base]` missing?"
	}
	return ""
}

// run builds root with krusty; with trace, the root kustomization is read
// with buildMetadata (origin and transformer annotations kept).
func (r *Renderer) run(root *Kustomization, trace bool) (m resmap.ResMap, err error) {
	dir := root.Dir // real (Graph.Load), as kustomize reads it
	var fs filesys.FileSystem = r.fs
	if trace {
		fs = tracingFS{r.fs, filepath.Clean(root.File)}
	}
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

// unmatchedPatch reads the kind and name of the object a strategic-merge
// patch kustomize could not apply names: its resource id is
// KIND.VERSION.GROUP/NAME.NAMESPACE, a namespace having no dot.
func unmatchedPatch(msg string) (kind, name string, ok bool) {
	var id string
	for _, lead := range []string{
		`no resource matches strategic merge patch "`, // patchesStrategicMerge
		`failed to find unique target for patch `,     // patches: a path's object
	} {
		if i := strings.Index(msg, lead); i >= 0 {
			id = msg[i+len(lead):]
			if j := strings.IndexAny(id, "\" ;\n"); j >= 0 {
				id = id[:j]
			}
			break
		}
	}
	gvk, nn, found := strings.Cut(id, "/")
	j := strings.LastIndexByte(nn, '.')
	if !found || j <= 0 {
		return "", "", false
	}
	kind, _, _ = strings.Cut(gvk, ".")
	return kind, nn[:j], true
}

// inlinePatchNaming finds the `patches` entry written inline (`- patch:
// |`), in root or a kustomization below it, or in the spec.patches a Flux
// Kustomization adds to root, that holds a document of kind and name: its
// patch key.
func inlinePatchNaming(root *Kustomization, kind, name string) (file string, at *yaml.Node) {
	find := func(f string, list *yaml.Node) {
		for _, e := range seq(list) {
			key, v := manifest.MapEntry(e, "patch")
			if at == nil && v != nil && v.Kind == yaml.ScalarNode && patchNames(&Ref{Inline: true, Value: v.Value}, kind, name) {
				file, at = f, key
			}
		}
	}
	walkGraph(root, func(k *Kustomization) { find(k.File, mapGet(k.Doc, "patches")) })
	if at == nil && root.Flux != nil {
		find(root.Flux.File, root.Flux.List)
	}
	return file, at
}

// patchNames reports whether the patch entry r holds a document of kind
// and name: in its file, or written inline.
func patchNames(r *Ref, kind, name string) bool {
	var src []byte
	if r.Inline {
		src = []byte(r.Value)
	} else if data, err := os.ReadFile(r.Path); err == nil {
		src = data
	}
	docs, _ := manifest.DocumentRoots(src) // those before an error count
	for _, doc := range docs {
		if doc != nil && scalarOf(doc, "kind") == kind && scalarOf(mapGet(doc, "metadata"), "name") == name {
			return true
		}
	}
	return false
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
