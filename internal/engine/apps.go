package engine

// Applications: Argo CD, Flux and `kubectl apply -k` apply what kustomize
// renders, so a tree is read as applications. Every kustomize root (a
// kustomization no other kustomization in the tree lists) is rendered
// in-process (internal/render) and its objects are judged by the object
// rules and, as one application, by the cross-resource rules; each
// finding is then placed at the source byte that produced the value
// (render.Locate), and its fix carried there when the place is exact.
// The files a root reaches are read the way kustomize reads them: only the
// rules about how a file is read (analysis.Rule.Source: YAML 1.1 scalars,
// duplicate keys, syntax) judge them. Files no root reaches, and the files
// of a root that cannot be rendered (it would need the network or a
// process, or kustomize fails on it: one finding at its kustomization
// says so), are plain manifests, judged as written.

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// Rules the engine reports about kustomize roots.
const (
	RenderSkippedID = "render-skipped"
	RenderErrorID   = "render-error"
)

// tree is what rendering found, for one run.
type tree struct {
	// excluded: a file the config's exclude globs name gets no finding,
	// and a root whose kustomization they name is not rendered.
	excluded func(file string) bool
	graph    *render.Graph
	renderer *render.Renderer
	results  []*render.Result
	byRoot   map[string]*render.Result // renderedFile(root) -> result
	judged   map[string]*FileResult    // renderedFile(root) -> its objects judged (see judgeRendered)
	reached  map[string][]string       // abs file -> roots (relative dirs) that read it
	unread   map[string]bool           // abs file -> a root that reads it did not render
	// templated: abs file -> only roots that render a template's source
	// read it (see render.templateRoot): not judged at all.
	templated map[string]bool
	whole     map[string]bool // abs file -> a root reads it other than as a patch
	// components: abs file -> only Components no kustomization lists read
	// it (Flux's spec.components): read by kustomize, never rendered here.
	components map[string]bool
	// alone: the bases of roots that did not render, rendered on their own
	// (render.UnrenderedBases)
	alone map[*render.Kustomization]bool
	extra []*FileResult // files not named that findings were placed in
	// keepSource: the run keeps files' bytes (fix), those of extra too
	keepSource bool
	named      []namedDir // the paths named, longest first (see show)
	wd         namedDir   // the working directory, named ""
}

// namedDir is a path as the user named it, with the directories it stands
// for: its absolute path and, when that is or lies below a link, its real
// path (the graph's names). Computed once per run: show runs per file.
type namedDir struct {
	name string
	dirs []string
}

func (t *tree) nameDir(name, abs string) namedDir {
	d := namedDir{name: name, dirs: []string{abs}}
	if real := t.graph.Real(abs); real != abs {
		d.dirs = append(d.dirs, real)
	}
	return d
}

// renderedFile names, in findings not placed yet, the objects of a root.
func renderedFile(root string) string { return "\x00rendered:" + root }

// RunTree lints inputs as applications (see above); paths are what was
// named on the command line, for finding the kustomize roots.
func (e *Engine) RunTree(paths []string, inputs iter.Seq[manifest.Input]) *Result {
	// The kustomizations are found while the inputs are walked: both
	// read the same directories.
	graph := make(chan *render.Graph, 1)
	go func() { graph <- discover(paths) }()
	collected := slices.Collect(inputs)
	return e.runTree(paths, collected, nil, <-graph)
}

// namedPaths are the paths of a run that name files or directories: all
// but stdin, "." for none.
func namedPaths(paths []string) []string {
	if len(paths) == 0 {
		return []string{"."}
	}
	var named []string
	for _, p := range paths {
		if p != manifest.Stdin {
			named = append(named, p)
		}
	}
	return named
}

// discover finds the kustomizations of paths (see render.Discover).
func discover(paths []string) *render.Graph {
	g, _ := render.Discover(namedPaths(paths)) // paths that cannot be read are walk errors
	return g
}

// runTree is RunTree over collected inputs and the graph of their
// kustomizations, reading the files in overlay instead of the disk (the
// fix driver verifies so).
func (e *Engine) runTree(paths []string, inputs []manifest.Input, overlay map[string][]byte, g *render.Graph) *Result {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	defer silenceKustomize()()
	named := namedPaths(paths)
	t := &tree{graph: g, renderer: render.NewRenderer(g), byRoot: map[string]*render.Result{}, judged: map[string]*FileResult{}, reached: map[string][]string{}, whole: map[string]bool{}, keepSource: e.KeepSource}
	t.renderer.LoadRestrictionsNone = e.cfg.LoadRestrictor == "LoadRestrictionsNone"
	t.excluded = e.cfg.Excluder()
	for _, n := range named {
		if abs, err := filepath.Abs(n); err == nil {
			t.named = append(t.named, t.nameDir(n, abs))
		}
	}
	slices.SortStableFunc(t.named, func(a, b namedDir) int { return len(b.name) - len(a.name) })
	if wd, err := os.Getwd(); err == nil {
		t.wd = t.nameDir("", wd)
	}
	for path, data := range overlay {
		if abs, err := filepath.Abs(path); err == nil {
			t.renderer.Override(abs, data)
		}
	}
	// A Component is never applied on its own: one no kustomization of the
	// tree lists (Flux's spec.components names it) is not an application,
	// and its files are judged as kustomize reads them, not rendered.
	var roots, components []*render.Kustomization
	for _, r := range g.Roots {
		if t.excluded(r.File) {
			continue
		}
		if r.Kind != "Component" {
			roots = append(roots, r)
		} else {
			components = append(components, r)
		}
	}
	// Flux builds the roots its Kustomizations apply with the Components
	// they name, in their targetNamespace, and with LoadRestrictionsNone:
	// the tree's Flux Kustomizations are read when it has roots.
	changed := map[string][]byte{}
	for path, data := range overlay {
		changed[t.key(path)] = data
	}
	read := func(file string) []byte {
		if data, ok := changed[file]; ok {
			return data
		}
		data, _ := os.ReadFile(file)
		return data
	}
	flux := sync.OnceValue(func() map[*render.Kustomization]*render.FluxApply {
		files := make([]string, 0, len(inputs))
		for _, in := range inputs {
			if in.Path != manifest.Stdin {
				files = append(files, t.inputKey(in))
			}
		}
		// Every file is read, on all cores: the rendering waits for this.
		held := make([][]byte, len(files))
		e.parallel(len(files), func(i int) {
			if data := read(files[i]); render.MentionsFlux(data) {
				held[i] = data
			}
		})
		found := map[string][]byte{}
		for i, data := range held {
			if data != nil {
				found[files[i]] = data
			}
		}
		return g.FluxApplies(found)
	})
	if len(roots) > 0 {
		for file, data := range g.AddFluxSettings(flux(), read) {
			t.renderer.Override(file, data)
		}
	} else {
		// A tree without roots may still be built by Flux, which writes
		// a kustomization over a directory that has none (FluxApplication).
		flux()
	}
	roots = append(roots, render.TemplateBases(g, roots)...)
	// Files are linted while the roots render: those no root reaches
	// first, then those a root reaches, once the roots have rendered, as
	// kustomize reads them, or as written when every root reaching one
	// failed.
	for _, r := range roots {
		t.reach(r)
	}
	for _, c := range components {
		for _, f := range g.Reaches(c) {
			if len(t.reached[f]) == 0 {
				if t.components == nil {
					t.components = map[string]bool{}
				}
				t.components[f] = true
			}
		}
	}
	// The files a root reaches are its application's: those not named (a
	// base beside the overlay directory named) are read too, and reported
	// on, unless only files were named (pre-commit), whose roots' other
	// files are context.
	onlyFiles := true
	for _, p := range named {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			onlyFiles = false
		}
	}
	// A file reached under two names (a directory linked into another) is
	// read once, under the first: the named files come before those read
	// as context.
	have := map[string]bool{}
	inputs = slices.DeleteFunc(slices.Clone(inputs), func(in manifest.Input) bool {
		k := t.inputKey(in)
		dup := have[k]
		have[k] = true
		return dup
	})
	var more []string
	for f := range t.reached {
		if !have[f] && manifest.IsYAMLName(f) && filepath.Base(f) != "Kustomization" && !t.excluded(f) {
			more = append(more, f)
		}
	}
	slices.Sort(more)
	for _, f := range more {
		inputs = append(inputs, manifest.Input{Path: t.show(f), Context: onlyFiles})
	}
	// The roots render, and their objects are judged, while the files are
	// linted.
	type rendering struct {
		results []*render.Result
		judged  []*FileResult
	}
	reached := make([]bool, len(inputs)) // read before rendering ends
	var order, last []int                // the order files are linted in
	for i, in := range inputs {
		if reached[i] = in.Path != manifest.Stdin && len(t.reached[t.key(in.Path)]) > 0; reached[i] {
			last = append(last, i)
		} else {
			order = append(order, i)
		}
	}
	order = append(order, last...)
	// Without fix, each root's objects are judged as soon as it renders,
	// and then keep only what placing their findings needs: a tree of
	// many roots over a large CRD bundle (kserve's) is not held whole,
	// root after root.
	var early sync.Map // *render.Result -> *FileResult
	if !e.KeepSource {
		t.renderer.Rendered = func(res *render.Result) {
			fr := e.judgeRendered(t.renderer, res)
			early.Store(res, fr)
			keep := map[int]bool{}
			for _, f := range fr.own {
				keep[f.Doc] = true
			}
			for _, s := range fr.summaries {
				// A CustomResourceDefinition's summary only says that an
				// operator comes with the application: no finding is
				// placed at it, and it is most of a bundle's bytes.
				if o := res.Objects[s.obj.doc]; o.Kind != "CustomResourceDefinition" {
					keep[s.obj.doc] = true
				}
			}
			for i, o := range res.Objects {
				if !keep[i] {
					o.Node = render.Skeleton(o.Node)
				}
			}
		}
	}
	rendered := make(chan struct{}) // closed when t.reached holds only roots that rendered
	renders := make(chan rendering, 1)
	go func() {
		results := t.renderer.RenderAll(context.Background(), roots)
		for i, res := range results {
			if res.Problem != nil && res.Problem.OutsideRoot() && flux()[roots[i]] != nil {
				t.renderer.Unrestrict(roots[i])
				results[i] = t.renderer.Render(roots[i])
			}
		}
		// The bases a root that did not render lists are rendered on
		// their own; one that fails alone is judged as written, as the
		// root's files are, and says nothing of its own.
		if bases := render.UnrenderedBases(results); len(bases) > 0 {
			t.alone = map[*render.Kustomization]bool{}
			for _, res := range t.renderer.RenderAll(context.Background(), bases) {
				if res.Problem == nil {
					t.reach(res.Root)
					t.alone[res.Root] = true
					results = append(results, res)
				}
			}
		}
		t.dropFailed(results)
		close(rendered)
		judged := make([]*FileResult, len(results))
		e.parallel(len(results), func(i int) {
			if results[i].Problem == nil {
				if fr, ok := early.Load(results[i]); ok {
					judged[i] = fr.(*FileResult)
				} else {
					judged[i] = e.judgeRendered(t.renderer, results[i])
				}
				if t.alone[results[i].Root] {
					// What the root that lists it adds is not known:
					// its application is not read whole.
					judged[i].unreadApp = results[i].Root.Dir
				}
			}
		})
		renders <- rendering{results, judged}
	}()

	res := &Result{tree: &treeRun{paths: paths, inputs: inputs}}
	if e.KeepSource {
		res.tree.graph, res.tree.rendered = g, t
	}
	files := map[string]*FileResult{} // abs path -> result, for placing findings
	slots := make([]*FileResult, len(inputs))
	for i, in := range inputs {
		slots[i] = &FileResult{Input: in}
	}
	lint := func(i int) {
		in := slots[i].Input
		*slots[i] = *e.safely(in, func() *FileResult {
			data, ok := overlay[in.Path]
			if !ok {
				var err error
				if data, err = e.read(in); err != nil {
					return &FileResult{Input: in, own: []analysis.Finding{e.fileFinding(in.Path, InputErrorID, err.Error())}}
				}
			}
			if !reached[i] {
				ctx := e.context(in.Path, g.Listed)
				// A Component's files, and the manifests of a directory
				// Flux builds without a kustomization, are read by
				// kustomize, not applied as written.
				if in.Path != manifest.Stdin {
					ctx.Application = g.FluxApplication(t.key(in.Path))
					ctx.Unrendered = t.components[t.key(in.Path)] || ctx.Application != ""
				}
				return e.lintFile(in, data, ctx)
			}
			<-rendered
			ctx := t.readsAs(in.Path)
			if t.templated[t.key(in.Path)] {
				// Read (its lines count), but neither judged nor seen by
				// the cross-resource rules.
				fr := e.lintFile(in, data, ctx)
				fr.own, fr.summaries = nil, nil
				return fr
			}
			if ctx.Kustomize == nil { // every root reaching it failed
				ctx = e.context(in.Path, g.Listed)
				ctx.Unrendered = true
				// Its parents' labels complete its selectors, as they
				// would have had the root rendered.
				if labels := g.SelectorLabels(t.key(in.Path)); labels != nil {
					ctx.SelectorLabels = labels
				}
			}
			return e.lintFile(in, data, ctx)
		})
	}
	e.parallel(len(order), func(j int) { lint(order[j]) })

	done := <-renders
	t.results = done.results
	for i, res := range t.results {
		t.byRoot[renderedFile(res.Root.File)] = res
		if res.Problem == nil {
			t.judged[renderedFile(res.Root.File)] = done.judged[i]
		}
	}
	for _, fr := range slots {
		// A root that did not render may hold what its files lack (a
		// remote base's pods): the applications of its files are not
		// known whole.
		if fr.unreadApp == "" && fr.Input.Path != manifest.Stdin && t.unread[t.key(fr.Input.Path)] {
			fr.unreadApp = e.application(fr.Input.Path)
		}
		if fr.Input.Context {
			res.context = append(res.context, fr)
		} else {
			res.Files = append(res.Files, fr)
		}
		files[t.key(fr.Input.Path)] = fr
	}

	// The rendered objects, root by root: object rules now, cross-resource
	// rules at Finish, with the root as their application.
	for i, r := range t.results {
		if r.Problem != nil {
			e.reportProblem(t, files, r)
			continue
		}
		for _, f := range done.judged[i].own {
			e.place(t, files, f)
		}
		res.context = append(res.context, done.judged[i])
	}
	// A Flux Kustomization whose spec.components Flux cannot build with.
	if len(roots) > 0 {
		for _, a := range flux() {
			if p := a.Problem; p != nil && e.Enabled(RenderErrorID) {
				if fr := t.fileFor(files, p.File); fr != nil {
					f := e.fileFinding(fr.Input.Path, RenderErrorID, t.relPaths(p.Message))
					f.Line, f.Column = p.Line, p.Column
					fr.Findings = append(fr.Findings, f)
				}
			}
		}
	}
	// The files of an application that were not named come last. What
	// was placed so far stays through Finish, as each file's own.
	res.Files = append(res.Files, t.extra...)
	t.extra = nil
	for _, fr := range res.Files {
		fr.own = append(fr.own, fr.Findings...)
		fr.Findings = nil
	}
	res.tree.files = len(res.Files)
	e.finishTree(res, t, files)
	return res
}

// finishTree runs the cross-resource rules over a tree's files and
// rendered roots, placing the findings about rendered objects at their
// source; the files of an application that were not named and got a
// finding only now come last.
func (e *Engine) finishTree(res *Result, t *tree, files map[string]*FileResult) {
	e.finish(res, func(f analysis.Finding) *FileResult {
		if r := t.judged[f.File]; r != nil {
			if !r.optOuts[objectKey{f.Doc, -1}].Has(f.Rule) {
				e.place(t, files, f)
			}
			return nil
		}
		return files[t.key(f.File)]
	})
	for _, fr := range t.extra {
		analysis.Sort(fr.Findings)
		res.Files = append(res.Files, fr)
		res.Findings = append(res.Findings, fr.Findings...)
	}
}

// relintTree is Relint for a run of RunTree. When no kustomization reads
// a changed file (the usual fix: a plain manifest), what was rendered
// stands: only the changed files are linted again, and the cross-resource
// rules run again over everything. Otherwise the whole tree is read and
// rendered again with the new bytes.
func (e *Engine) relintTree(res *Result, changed map[string][]byte) *Result {
	rt := res.tree
	if rt.rendered == nil || !rt.unread(changed) {
		return e.runTree(rt.paths, rt.inputs, changed, discover(rt.paths))
	}
	t := *rt.rendered
	t.extra = nil
	// Read by no kustomization, a changed file is linted as written.
	plain := func(in manifest.Input, data []byte) *FileResult {
		return e.lintFile(in, data, e.context(in.Path, t.graph.Listed))
	}
	out := &Result{Files: e.relintFiles(res.Files[:rt.files], changed, plain), context: res.context, tree: rt}
	files := map[string]*FileResult{}
	for _, fr := range res.context {
		if fr.Input.Path != "" { // not a rendered root's objects
			files[t.key(fr.Input.Path)] = fr
		}
	}
	for _, fr := range out.Files {
		files[t.key(fr.Input.Path)] = fr
	}
	e.finishTree(out, &t, files)
	return out
}

// unread reports whether no kustomization of the run's graph reads any
// of the changed files (by real path), and none is a kustomization:
// changing them changes no rendered object.
func (rt *treeRun) unread(changed map[string][]byte) bool {
	reached := map[string]bool{}
	for _, r := range rt.graph.Roots {
		for _, f := range rt.graph.Reaches(r) {
			reached[f] = true
		}
	}
	for path := range changed {
		if slices.Contains(render.KustomizationNames, filepath.Base(path)) || reached[rt.graph.Real(path)] {
			return false
		}
	}
	return true
}

// reach records the files root r reaches (its bases' and patches', not
// those embedded in a kustomization).
func (t *tree) reach(r *render.Kustomization) {
	shown := t.show(r.Dir)
	embedded, patches := t.graph.Embedded(r), t.graph.Patches(r)
	for _, f := range t.graph.Reaches(r) {
		if !embedded[f] {
			t.reached[f] = append(t.reached[f], shown)
			if !patches[f] {
				t.whole[f] = true
			}
		}
	}
}

// dropFailed takes the roots that did not render out of t.reached: their
// files are read as written.
func (t *tree) dropFailed(results []*render.Result) {
	failed := map[string]bool{}    // root -> it did not render
	templated := map[string]bool{} // root -> it renders a template's source
	for _, res := range results {
		if res.Problem != nil {
			failed[t.show(res.Root.Dir)] = true
			templated[t.show(res.Root.Dir)] = res.Problem.Template
		}
	}
	if len(failed) == 0 {
		return
	}
	t.unread, t.templated = map[string]bool{}, map[string]bool{}
	for f, roots := range t.reached {
		ok := roots[:0:0]
		onlyTemplates := true
		for _, r := range roots {
			if !failed[r] {
				ok = append(ok, r)
			} else {
				t.unread[f] = true
			}
			onlyTemplates = onlyTemplates && templated[r]
		}
		if onlyTemplates {
			t.templated[f] = true
		}
		if len(ok) == 0 {
			delete(t.reached, f)
		} else {
			t.reached[f] = ok
		}
	}
}

// judgeRendered runs the object rules over the objects of a rendered root
// and returns them as a pseudo-file: its own findings (not placed yet) and
// what the cross-resource rules need, with the root's directory as the
// application, as Argo CD and Flux name it (their path).
func (e *Engine) judgeRendered(rd *render.Renderer, r *render.Result) *FileResult {
	objs := make([]*manifest.Object, len(r.Objects))
	for i, o := range r.Objects {
		objs[i] = &manifest.Object{Resource: o.Resource, File: renderedFile(r.Root.File), Doc: i, Node: o.Node, Item: -1, Root: r.Root.File}
	}
	jsonPatch := func(doc int, path string) *yaml.Node {
		p, err := render.ParsePath(path)
		if err != nil {
			return nil
		}
		if l := rd.Locate(r, r.Objects[doc], p); l.Source == render.FromJSONPatch {
			return l.Value
		}
		return nil
	}
	fr := &FileResult{own: e.checkObjects(objs, nil, jsonPatch)}
	for _, obj := range objs {
		e.observe(fr, obj, objectKey{obj.Doc, -1}, r.Root.Dir)
	}
	return fr
}

// fileFor is the result a finding at the file at abs goes to: the
// file's, or, for a file of the application that was not named (a base
// outside the directory named), a new one, which the run then reports;
// nil for a file read as context only.
func (t *tree) fileFor(files map[string]*FileResult, abs string) *FileResult {
	if fr := files[t.key(abs)]; fr != nil {
		if fr.Input.Context {
			return nil
		}
		return fr
	}
	if t.excluded(abs) {
		return nil
	}
	fr := &FileResult{Input: manifest.Input{Path: t.show(abs)}}
	if data, err := os.ReadFile(abs); err == nil {
		fr.ignores = scanIgnores(data)
		if t.keepSource { // fix edits it too
			f := manifest.Parse(fr.Input.Path, data, t.readsAs(abs))
			fr.File = &manifest.File{Path: f.Path, Src: f.Src, BOM: f.BOM, Docs: f.Docs, Context: f.Context}
		}
	}
	files[t.key(abs)] = fr
	t.extra = append(t.extra, fr)
	return fr
}

// key is how files are found again from a finding's File (relative as
// named) or a location's (absolute): by real path, as the graph names
// them, so that a file reached through a linked directory is one file.
func (t *tree) key(path string) string {
	if path == manifest.Stdin {
		return path
	}
	return t.graph.Real(path)
}

// inputKey is key for an input: a file a directory walk found (not named
// on the command line) is a regular file, not a link, so only its
// directories are resolved. Later lookups of the same path hit the
// graph's cache.
func (t *tree) inputKey(in manifest.Input) string {
	if in.Path == manifest.Stdin {
		return in.Path
	}
	if in.Explicit || in.Link {
		return t.graph.Real(in.Path)
	}
	return t.graph.RealFile(in.Path)
}

// readsAs says how the file at path is read: by kustomize, when a root
// that renders reaches it.
func (t *tree) readsAs(path string) manifest.Context {
	if path == manifest.Stdin {
		return manifest.Context{}
	}
	if roots := t.reached[t.key(path)]; len(roots) > 0 {
		return manifest.Context{Kustomize: roots, Patch: !t.whole[t.key(path)]}
	}
	return manifest.Context{}
}

// reportProblem reports a root that was not rendered at the entry that
// stops it (or its kustomization): once, naming every root it stops. Its
// files are judged as plain files.
func (e *Engine) reportProblem(t *tree, files map[string]*FileResult, r *render.Result) {
	for _, also := range r.Problem.Also {
		e.reportProblem(t, files, &render.Result{Root: r.Root, Problem: also})
	}
	fr := t.fileFor(files, r.Problem.File)
	if fr == nil {
		return // read as context for a file named alone: reported when it is
	}
	id := RenderErrorID
	switch {
	case r.Problem.Template:
		id = TemplateID
	case r.Problem.Refused:
		id = RenderSkippedID
	}
	if !e.Enabled(id) {
		return
	}
	root := t.show(r.Root.Dir)
	for i, g := range fr.Findings {
		if g.Rule == id && g.Line == r.Problem.Line && g.Column == r.Problem.Column {
			if !slices.Contains(g.Roots, root) {
				fr.Findings[i].Roots = append(g.Roots, root)
			}
			return
		}
	}
	msg := t.relPaths(strings.TrimPrefix(r.Problem.Message, "not rendered: "))
	if r.Problem.Hint != "" {
		msg += " (" + r.Problem.Hint + ")"
	}
	switch {
	case r.Problem.Template:
		msg += "; the files only it reads are not judged"
	case !strings.Contains(msg, "judged as written"):
		// Not said at a base's kustomization: it stops several roots,
		// whose bases differ.
		var alone []string
		if k := t.graph.ByDir[filepath.Dir(r.Problem.File)]; k == nil || k == r.Root || k.File != r.Problem.File {
			for _, ref := range r.Root.Refs {
				if t.alone[ref.Target] && !slices.Contains(alone, t.show(ref.Target.Dir)) {
					alone = append(alone, t.show(ref.Target.Dir))
				}
			}
		}
		switch len(alone) {
		case 0:
			msg += "; its files are judged as written"
		case 1:
			msg += "; " + alone[0] + ", which it lists, is rendered on its own, its other files are judged as written"
		default:
			msg += "; " + strings.Join(alone, ", ") + ", which it lists, are rendered on their own, its other files are judged as written"
		}
	}
	what := "kustomize cannot build the root: "
	if r.Problem.Refused {
		what = "the root is not rendered: "
	}
	f := e.fileFinding(fr.Input.Path, id, what+msg)
	f.Line, f.Column, f.Roots = r.Problem.Line, r.Problem.Column, []string{root}
	fr.Findings = append(fr.Findings, f)
}

// place puts a finding about a rendered object at its source: the file,
// line and column render.Locate finds, with its fix carried there when
// the place is exact; the same finding from several roots (a base
// rendered by three overlays) is reported once, naming them all.
func (e *Engine) place(t *tree, files map[string]*FileResult, f analysis.Finding) {
	f.Severity = e.severityOf(f)
	res := t.byRoot[f.File]
	if res == nil || f.Doc < 0 || f.Doc >= len(res.Objects) {
		return
	}
	o := res.Objects[f.Doc]
	root := t.show(res.Root.Dir)
	loc := render.Location{Source: render.FromRendered, File: res.Root.File, Root: res.Root.File, Why: "the finding names no field"}
	if p, err := render.ParsePath(f.Field); err == nil && len(p) > 0 {
		loc = t.renderer.Locate(res, o, p)
		// A field the object lacks (no spec.selector) is placed at the
		// nearest part it has, else at its name.
		if k, v := p.Get(o.Node); v != nil {
			loc = atValue(f, k, v, loc)
		} else if loc.Source == render.FromRendered {
			for q := p[:len(p)-1]; len(q) > 0; q = q[:len(q)-1] {
				if _, v := q.Get(o.Node); v != nil {
					loc = t.renderer.Locate(res, o, q)
					break
				}
			}
			if loc.Source == render.FromRendered {
				loc = t.renderer.Locate(res, o, render.Path{{Key: "metadata"}, {Key: "name"}})
			}
		}
	}
	// A value an overlay changed is the cause; the base it contradicts is
	// not (a template relabelled under a base selector), nor is a patch
	// that restates the base's value (minio's dev overlay repeats the
	// selector).
	if loc.Source == render.FromBase || loc.Source == render.FromPatch && t.restates(res, o, f.Field, loc) {
		for _, rp := range f.Related {
			if p, err := render.ParsePath(rp); err == nil {
				if l := t.renderer.Locate(res, o, p); l.Source == render.FromPatch || l.Source == render.FromJSONPatch || l.Source == render.FromKustomization {
					loc, f.Fix = l, nil
					break
				}
			}
		}
	}
	if e.source(f.Rule) && loc.Source != render.FromJSONPatch && loc.Source != render.FromPatch && loc.Block == nil {
		return // a file's value: judged in the file, as it is read
	}
	// A field a patch sets that the base sets too (an overlay's replicas
	// over a base's) is there twice: removing it from the patch alone
	// leaves the base's, so the base is reported, and fixed, as well.
	if loc.Source == render.FromPatch && deletesField(f) {
		if p, err := render.ParsePath(f.Field); err == nil {
			if bl, ok := t.renderer.BaseSets(res, o, p); ok {
				g := f
				g.Fix = &analysis.Fix{Message: f.Fix.Message, Edits: []analysis.Edit{{Op: analysis.Delete, Path: toFieldPath(bl.Path)}}}
				e.record(t, files, g, bl, root)
			}
		}
	}
	if f.Fix != nil && loc.Source != render.FromRendered {
		fix, why := t.carry(res, o, f.Fix, loc)
		if fix == nil {
			f.Message += " (not fixable here: " + t.relPaths(why) + ")"
		}
		f.Fix = fix
	}
	e.record(t, files, f, loc, root)
}

// restates reports whether the patch at loc sets field to the scalar its
// base already has.
func (t *tree) restates(res *render.Result, o *render.Object, field string, loc render.Location) bool {
	p, err := render.ParsePath(field)
	if err != nil || loc.Value == nil || loc.Value.Kind != yaml.ScalarNode {
		return false
	}
	bl, ok := t.renderer.BaseSets(res, o, p)
	return ok && bl.Value != nil && bl.Value.Kind == yaml.ScalarNode && bl.Value.Value == loc.Value.Value
}

// deletesField reports whether f's fix is removing the field it is about.
func deletesField(f analysis.Finding) bool {
	return f.Fix != nil && len(f.Fix.Edits) == 1 && f.Fix.Edits[0].Op == analysis.Delete && f.Fix.Edits[0].Path.String() == f.Field
}

// record adds f, about a rendered object of root and located at loc (its
// fix already carried there), to the file loc names.
func (e *Engine) record(t *tree, files map[string]*FileResult, f analysis.Finding, loc render.Location, root string) {
	f.Roots = []string{root}
	if loc.Source == render.FromRendered {
		f.Line, f.Column, f.Doc, f.Item = 1, 1, -1, -1
		f.Message += " (in what kustomize renders from " + root + ": " + t.relPaths(loc.Why) + ")"
		f.Fix = nil // loc.File is the root's kustomization
	} else {
		f.Line, f.Column, f.Doc, f.Item = loc.Line, loc.Column, loc.Doc, -1
	}
	fr := t.fileFor(files, loc.File)
	if fr == nil {
		return // read as context for a file named alone: reported when it is
	}
	f.File = fr.Input.Path
	if fr.ignores.suppresses(f.Line, f.Rule) {
		return
	}
	// The same finding from another root (a base several overlays
	// render) is one finding naming both; from the same root, at the
	// same place, it is about another object (one commonLabels entry
	// behind two selectors), unless it is the same object and field.
	// Another message is another finding: a controller that overlaps two
	// others, or another one in each root.
	for i, g := range fr.Findings {
		if g.Rule != f.Rule || g.Line != f.Line || g.Column != f.Column || g.Roots == nil || g.Message != f.Message {
			continue
		}
		if !slices.Contains(g.Roots, root) {
			fr.Findings[i].Roots = append(g.Roots, root)
			return
		}
		if g.Resource == f.Resource && g.Field == f.Field {
			return
		}
	}
	fr.Findings = append(fr.Findings, f)
}

// atValue moves loc from the source key to the source value when the
// rule reported the rendered value (a value of the wrong type, not a field
// that should not be there), so that the finding has the column it has
// when the file is judged as written. Inline patches are shifted alike:
// loc's position is already translated to the kustomization.
func atValue(f analysis.Finding, k, v *yaml.Node, loc render.Location) render.Location {
	if loc.Key == nil || loc.Value == nil {
		return loc
	}
	// A value kustomize made (an annotation it wrote back) has the
	// position of its key, none: a fix that quotes it says it is the value.
	// A list item (an op's value appended to args) has no key.
	made := k != nil && k.Line == v.Line && k.Column == v.Column
	if (f.Line != v.Line || f.Column != v.Column || made) && !quotesValue(f) {
		return loc
	}
	loc.Line += loc.Value.Line - loc.Key.Line
	loc.Column += loc.Value.Column - loc.Key.Column
	return loc
}

// carry moves a fix addressed by rendered object and field path to the
// source document loc found: every edit must land, exactly, in that one
// document (a base document or a strategic-merge patch file).
func (t *tree) carry(res *render.Result, o *render.Object, fix *analysis.Fix, loc render.Location) (*analysis.Fix, string) {
	out := &analysis.Fix{Message: fix.Message}
	for _, e := range fix.Edits {
		p := toRenderPath(e.Path)
		// Set may name fields the object lacks: carry the part it has.
		have := p
		for len(have) > 0 {
			if _, v := have.Get(o.Node); v != nil {
				break
			}
			have = have[:len(have)-1]
		}
		if len(have) == 0 {
			return nil, "the edit is outside the object"
		}
		l := t.renderer.Locate(res, o, have)
		switch {
		case !l.Exact:
			return nil, l.Why
		case l.Source != render.FromBase && l.Source != render.FromPatch && !quotesOpValue(l, e):
			return nil, "the value comes from " + l.Source.String() + " " + t.show(l.File) + ":" + fmt.Sprint(l.Line) + "; edit it there"
		case l.Block != nil:
			return nil, "the patch is written inline in " + t.show(l.File) + "; edit it there"
		case l.File != loc.File || l.Doc != loc.Doc:
			return nil, "the edits land in more than one source"
		}
		if e.Op == analysis.Delete || e.Op == analysis.Rename {
			if others := t.renderer.AlsoPatches(res, o, l); len(others) > 0 {
				return nil, "the patch applies to " + strings.Join(others, ", ") + " too; edit it by hand"
			}
		}
		if e.Op == analysis.Delete && inFlow(t.renderer.SourceDoc(l.File, l.Doc), l.Path) {
			// The appliers delete no entry of a flow mapping.
			return nil, "an entry of a flow mapping ({...}); edit it by hand"
		}
		at := l.Path
		if quotesOpValue(l, e) && at[1].Key == "path" {
			// The op sets the field whole: its value is what is quoted.
			at = render.Path{at[0], {Key: "value"}}
		}
		e.Path = append(toFieldPath(at), e.Path[len(have):]...)
		out.Edits = append(out.Edits, e)
	}
	return out, ""
}

// inFlow reports whether the entry at p of doc is in a flow mapping.
func inFlow(doc *yaml.Node, p render.Path) bool {
	parent, _, _, ok := manifest.Lookup(doc, toFieldPath(p))
	return ok && parent.Style&yaml.FlowStyle != 0
}

// quotesValue reports whether f's fix quotes the value of its field.
func quotesValue(f analysis.Finding) bool {
	if f.Fix == nil {
		return false
	}
	for _, e := range f.Fix.Edits {
		if e.Op == analysis.Quote && !e.OnKey && e.Path.String() == f.Field {
			return true
		}
	}
	return false
}

// quotesOpValue reports whether e quotes a scalar inside the value of
// the JSON-patch op l found, or that value whole (l is then the op's
// path): the one edit an op takes in place (the entry an op sets is not
// there to delete or rename, and its path is no value).
func quotesOpValue(l render.Location, e analysis.Edit) bool {
	return l.Source == render.FromJSONPatch && e.Op == analysis.Quote && !e.OnKey &&
		len(l.Path) > 1 && (l.Path[1].Key == "value" || len(l.Path) == 2 && l.Path[1].Key == "path")
}

func toRenderPath(p manifest.FieldPath) render.Path {
	out := make(render.Path, len(p))
	for i, s := range p {
		if s.Index >= 0 {
			out[i] = render.Step{Index: s.Index, IsIndex: true}
		} else {
			out[i] = render.Step{Key: s.Key}
		}
	}
	return out
}

func toFieldPath(p render.Path) manifest.FieldPath {
	out := make(manifest.FieldPath, 0, len(p))
	for _, s := range p {
		if s.IsIndex {
			out = out.Index(s.Index)
		} else {
			out = out.Key(s.Key)
		}
	}
	return out
}

// relPaths writes the absolute paths in a message of kustomize's the way
// the user named them: below a path named, or else the working directory;
// a directory quoted alone ('/abs/dir') as its name. kustomize names files
// by their resolved paths, which the named dirs include.
func (t *tree) relPaths(msg string) string {
	type pair struct{ abs, as string }
	var ps []pair
	sep := string(filepath.Separator)
	for _, n := range append(slices.Clip(t.named), t.wd) {
		name := filepath.Clean(n.name)
		below := name + sep
		if n.name == "" || name == "." {
			name, below = ".", ""
		}
		for _, dir := range n.dirs {
			ps = append(ps, pair{dir + sep, below}, pair{"'" + dir + "'", "'" + name + "'"})
		}
	}
	// The longest first: a path named below the working directory wins.
	slices.SortStableFunc(ps, func(a, b pair) int { return len(b.abs) - len(a.abs) })
	for _, p := range ps {
		msg = strings.ReplaceAll(msg, p.abs, p.as)
	}
	return msg
}

// show writes an absolute path the way the user named the paths: below a
// path named, as that path and the rest; else relative to the working
// directory. The graph names files by real path, and a path named (or the
// working directory) may be, or lie below, a symbolic link: below its
// real path is below it.
func (t *tree) show(abs string) string {
	for _, n := range t.named {
		for _, dir := range n.dirs {
			if r, ok := below(dir, abs); ok {
				return filepath.Join(n.name, r)
			}
		}
	}
	if len(t.wd.dirs) == 0 {
		return abs
	}
	if r, ok := below(t.wd.dirs[len(t.wd.dirs)-1], abs); ok {
		return r
	}
	if r, err := filepath.Rel(t.wd.dirs[0], abs); err == nil {
		return r
	}
	return abs
}

// below returns path relative to dir, when path is dir or below it.
func below(dir, path string) (string, bool) {
	r, err := filepath.Rel(dir, path)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return r, true
}
