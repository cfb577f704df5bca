package engine

// Applications: Argo CD, Flux and `kubectl apply -k` apply what kustomize
// renders, so a tree is read as applications. Every kustomize root (a
// kustomization no other kustomization in the tree lists) is rendered
// in-process (internal/render) and its objects are judged by the object
// rules and, as one application, by the cross-resource rules; each
// finding is then placed at the source byte that produced the value
// (render.Locate), and its fix carried there when the place is exact.
// The files a root reaches are read the way kustomize reads them: only the
// rules about how a file is read (analysis.SourceFiles: YAML 1.1 scalars,
// duplicate keys, syntax) judge them. Files no root reaches, and the files
// of a root that cannot be rendered (it would need the network or a
// process, or kustomize fails on it: one finding at its kustomization
// says so), are plain manifests, judged as written.

import (
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// Rules the engine reports about kustomize roots.
const (
	RenderSkippedID = "render-skipped"
	RenderErrorID   = "render-error"
	RenderBudgetID  = "render-budget"
	// BaseNotRenderedID: under lint --base, a changed root that does not
	// render at the base revision, whose change is not judged.
	BaseNotRenderedID = "base-not-rendered"
)

// renderState is the run's render state: the graph, the renderer, what each
// root rendered, and how each file a root reaches is read.
type renderState struct {
	// excluded: a file the config's exclude globs name gets no finding,
	// and a root whose kustomization they name is not rendered.
	excluded func(file string) bool
	graph    *render.Graph
	renderer *render.Renderer
	results  []*render.Result
	byRoot   map[string]*render.Result // root's kustomization file -> result
	judged   map[string]*FileResult    // root's kustomization file -> its objects judged (see judgeRendered)
	// released: root's kustomization file -> its objects were released
	// once judged (see whole)
	released map[string]bool
	files    map[string]*fileState // abs real path -> how the roots read it
	// alone: the bases of roots that did not render, rendered on their own
	// (render.UnrenderedBases)
	alone map[*render.Kustomization]bool
	extra []*FileResult // files not named that findings were placed in
	// keepSource: the run keeps files' bytes (fix), those of extra too
	keepSource bool
	// maxFileSize is --max-file-size, and contains the scope's test (links
	// followed), for the files a finding sends the run back to (fileFor).
	maxFileSize int64
	contains    func(path string) bool
	named       []namedDir // the paths named, longest first (see show)
	charts      *chartRun  // the local Helm charts rendered (charts.go)
	wd          namedDir   // the working directory, named ""
	// change: under --base, the roots the change touches (base.go)
	change *changeRun
	// substituted: what Flux Kustomizations apply after their post-build
	// substitution, by the File of its objects (postbuild.go)
	substituted map[string]substVariant
	// variants: the roots as Argo CD Applications build them with their
	// kustomize options, and the options they cannot build with
	// (argokustomize.go)
	variants        []*render.Kustomization
	variantProblems []*render.ArgoOptionsError
	// argoApps: the applications of the Argo CD Applications that apply
	// a plain file with directory options, by input path (argodirs.go)
	argoApps map[string][]analysis.AppID
	// scans: which of the scans' words each file holds (scanwords.go)
	scans *scanScreen
}

// RunTree lints inputs as applications (see above); paths are what was
// named on the command line, for finding the kustomize roots.
func (e *Engine) RunTree(paths []string, inputs iter.Seq[manifest.Input]) *Result {
	return e.RunTreeListed(paths, inputs, nil)
}

// RunTreeListed is RunTree where walking inputs records in walked what
// the walk saw (manifest.WalkListed): the
// kustomizations are found from that record as the walk goes, instead of
// a second walk of the same directories. It closes walked once inputs
// are read; nil walked is RunTree.
func (e *Engine) RunTreeListed(paths []string, inputs iter.Seq[manifest.Input], walked *manifest.Listing) *Result {
	// The kustomizations are found while the inputs are walked: both
	// read the same directories.
	graph := make(chan *render.Graph, 1)
	go func() { graph <- e.discoverListed(paths, walked) }()
	collected := slices.Collect(inputs)
	walked.Close() // a tree no walk listed is walked by discovery itself
	return e.runTree(paths, collected, nil, <-graph)
}

// discover finds the kustomizations of paths (see render.Discover), their
// parses kept in the run's cache.
func (e *Engine) discover(paths []string) *render.Graph { return e.discoverListed(paths, nil) }

// discoverListed is discover from the record of the run's walk (see
// render.DiscoverListed).
func (e *Engine) discoverListed(paths []string, walked *manifest.Listing) *render.Graph {
	g, _ := render.DiscoverListed(namedPaths(paths), e.Cache, walked) // paths that cannot be read are walk errors
	return g
}

// runTree is RunTree over collected inputs and the graph of their
// kustomizations, reading the files in overlay instead of the disk (the
// fix driver verifies so). It runs in phases: plan the roots, collect the
// inputs, then render the roots while the files are linted, and gather
// what both found into the run's result.
func (e *Engine) runTree(paths []string, inputs []manifest.Input, overlay map[string][]byte, g *render.Graph) *Result {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	defer silenceKustomize()()
	named := namedPaths(paths)
	t := e.newRenderState(named, overlay, g)
	files := e.openFileCache()
	defer files.saveIndex()
	scope, _ := e.wd.Abs(".")
	t.scans = newScanScreen(e.MaxFileSize, files, scope)
	defer t.scans.save()
	plan := e.planRoots(t, inputs, overlay)
	t.change = e.planChange(t, plan)
	if len(plan.roots) > 0 {
		t.variants, t.variantProblems = e.argoVariants(t, inputs, overlay, plan.roots)
	}
	argo := e.argoDirectories(t, inputs, overlay)
	in := t.collectInputs(inputs, named)
	t.argoApps = argo.assign(e, t, in)
	t.charts = e.renderCharts(t, in)
	r := e.renderRoots(t, plan)
	res := &Result{tree: &treeRun{paths: paths, inputs: in.list}}
	for _, app := range argo.unread {
		// Not a file: what the Application applies that shipshape does
		// not read (JSON, jsonnet) keeps its absence rules quiet.
		res.context = append(res.context, &FileResult{unreadApp: app})
	}
	if e.KeepSource {
		res.tree.graph, res.tree.state = g, t
	}
	slots := e.lintInputs(t, in, files, overlay, r.rendered)
	t.charts.quietTemplates(t, slots)
	e.gather(t, res, slots, <-r.done, plan)
	return res
}

// newRenderState is the render state of a run over the paths named.
func (e *Engine) newRenderState(named []string, overlay map[string][]byte, g *render.Graph) *renderState {
	t := &renderState{graph: g, renderer: render.NewRenderer(g), byRoot: map[string]*render.Result{}, judged: map[string]*FileResult{}, released: map[string]bool{}, files: map[string]*fileState{}, keepSource: e.KeepSource, maxFileSize: e.MaxFileSize, contains: e.contains}
	t.renderer.LoadRestrictionsNone = e.cfg.LoadRestrictor == "LoadRestrictionsNone"
	t.renderer.Budget = e.RenderBudget
	t.renderer.Cache = e.Cache
	t.renderer.KubernetesVersion = e.KubernetesVersion
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
	return t
}

// rootPlan is what will be rendered: the roots (with the template bases
// rendered for their parents' labels), and the Flux Kustomizations of the
// tree (read once, when first asked).
type rootPlan struct {
	roots []*render.Kustomization
	flux  func() map[*render.Kustomization]*render.FluxApply
	// fluxFiles are the files that mention Flux (read by flux).
	fluxFiles func() []string
	// postBuilds are the Flux Kustomizations that substitute variables
	// in roots (read by flux).
	postBuilds func() []*render.FluxPostBuild
}

// planRoots finds the roots to render and marks the files each reaches.
func (e *Engine) planRoots(t *renderState, inputs []manifest.Input, overlay map[string][]byte) rootPlan {
	g := t.graph
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
		data, _ := manifest.ReadRegular(file, e.MaxFileSize)
		return data
	}
	var fluxFiles []string
	var postBuilds []*render.FluxPostBuild
	flux := sync.OnceValue(func() map[*render.Kustomization]*render.FluxApply {
		files := make([]string, 0, len(inputs))
		var paths []string
		for _, in := range inputs {
			if in.Path != manifest.Stdin {
				files = append(files, t.inputKey(in))
				paths = append(paths, in.Path)
			}
		}
		// Every file is read (or screened), on all cores: the rendering
		// waits for this.
		held := make([][]byte, len(files))
		e.parallel(len(files), func(i int) {
			if _, over := changed[files[i]]; !over && !t.scans.mayHold(paths[i], files[i], wordFlux) {
				return
			}
			if data := read(files[i]); render.MentionsFlux(data) {
				held[i] = data
			}
		})
		found := map[string][]byte{}
		for i, data := range held {
			if data != nil {
				found[files[i]] = data
				fluxFiles = append(fluxFiles, files[i])
			}
		}
		applies := g.FluxApplies(found)
		postBuilds = g.FluxPostBuilds(found)
		return applies
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
	for _, r := range roots {
		t.reach(r)
	}
	for _, c := range components {
		for _, f := range g.Reaches(c) {
			if len(t.files[f].readBy()) == 0 {
				t.file(f).component = true
			}
		}
	}
	return rootPlan{roots: roots, flux: flux, fluxFiles: func() []string { flux(); return fluxFiles },
		postBuilds: func() []*render.FluxPostBuild { flux(); return postBuilds }}
}

// lintInputs lints the inputs on all cores, in.order's order: a file a
// root reaches waits for rendered, to be read as kustomize reads it.
func (e *Engine) lintInputs(t *renderState, in treeInputs, files *fileCache, overlay map[string][]byte, rendered <-chan struct{}) []*FileResult {
	g := t.graph
	slots := make([]*FileResult, len(in.list))
	for i, input := range in.list {
		slots[i] = &FileResult{Input: input}
	}
	lint := func(i int) {
		input := slots[i].Input
		*slots[i] = *e.safely(input, func() *FileResult {
			if !in.reached[i] {
				ctx := e.context(input.Path, g)
				// A Component's files, and the manifests of a directory
				// Flux builds without a kustomization, are read by
				// kustomize, not applied as written.
				if input.Path != manifest.Stdin {
					ctx.Application = g.FluxApplication(t.key(input.Path))
					ctx.Unrendered = in.component[i] || ctx.Application != ""
				}
				return e.lintInput(files, input, ctx, overlay, t.argoApps[input.Path])
			}
			<-rendered
			ctx := t.readsAs(input.Path)
			if t.files[t.key(input.Path)].isTemplated() {
				// Read (its lines count), but neither judged nor seen by
				// the cross-resource rules.
				fr := e.lintInput(files, input, ctx, overlay, nil)
				fr.own, fr.summaries, fr.origins = nil, nil, nil
				return fr
			}
			if ctx.Kustomize == nil { // every root reaching it failed
				ctx = e.context(input.Path, g)
				ctx.Unrendered = true
				// Its parents' labels complete its selectors, as they
				// would have had the root rendered.
				if labels := g.SelectorLabels(t.key(input.Path)); labels != nil {
					ctx.SelectorLabels = labels
				}
			}
			return e.lintInput(files, input, ctx, overlay, nil)
		})
	}
	e.parallel(len(in.order), func(j int) { lint(in.order[j]) })
	return slots
}

// gather puts the files linted and the roots rendered together in res:
// the findings about rendered objects placed at their sources, the roots
// that did not render reported, and then the cross-resource rules run.
func (e *Engine) gather(t *renderState, res *Result, slots []*FileResult, done renderedRoots, plan rootPlan) {
	files := map[string]*FileResult{} // abs path -> result, for placing findings
	t.results = done.results
	for i, res := range t.results {
		t.byRoot[res.Root.File] = res
		if res.Problem == nil {
			t.judged[res.Root.File] = done.judged[i].judged
			if done.judged[i].released {
				t.released[res.Root.File] = true
			}
		}
	}
	for _, fr := range slots {
		// A root that did not render may hold what its files lack (a
		// remote base's pods): the applications of its files are not
		// known whole.
		if fr.unreadApp == (analysis.AppID{}) && fr.Input.Path != manifest.Stdin && t.files[t.key(fr.Input.Path)].isUnread() {
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
		for _, p := range done.judged[i].placed {
			e.record(t, files, p)
		}
		res.context = append(res.context, done.judged[i].judged)
	}
	e.judgePostBuilds(t, files, res, slots, plan.postBuilds())
	e.renderVariants(t, files, res, t.variants, t.variantProblems)
	e.judgeChange(t, files, slots, plan)
	e.gatherCharts(t, files, res)
	// A Flux Kustomization whose spec.components Flux cannot build with.
	if len(plan.roots) > 0 {
		for _, a := range plan.flux() {
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
		t.unshareFixes(fr)
		fr.own = append(fr.own, fr.Findings...)
		fr.Findings = nil
		t.charts.dropRendered(t, fr)
	}
	res.tree.files = len(res.Files)
	e.finishTree(res, t, files)
}

// finishTree runs the cross-resource rules over a tree's files and
// rendered roots, placing the findings about rendered objects at their
// source; the files of an application that were not named and got a
// finding only now come last.
func (e *Engine) finishTree(res *Result, t *renderState, files map[string]*FileResult) {
	fileOf := func(f analysis.Finding) *FileResult { return files[t.key(f.File)] }
	e.finishPlacing(res, fileOf, func(held []analysis.Finding, report func(analysis.Finding)) {
		placed := e.locateHeld(t, held)
		for i, f := range held {
			if app := t.charts.about(f); app != nil {
				if !app.judged.optOuts[objectKey{f.Doc, -1}].Has(f.Rule) {
					e.placeChart(t, files, app, f)
				}
				continue
			}
			if v, ok := t.substituted[f.File]; ok {
				e.placeSubstituted(t, files, v.pb, v.vars, v.src, f)
				continue
			}
			if f.Rendered {
				for _, p := range placed[i] {
					e.record(t, files, p)
				}
				continue
			}
			report(f)
		}
	})
	for _, fr := range t.extra {
		analysis.Sort(fr.Findings)
		res.Files = append(res.Files, fr)
		res.Findings = append(res.Findings, fr.Findings...)
	}
}

type treeRun struct {
	paths  []string
	inputs []manifest.Input
	// For a run that keeps sources (fix), what Relint needs to lint only
	// the files a fix changed when no kustomization reads them: the
	// graph, the rendered roots, and how many of Files came before the
	// cross-resource rules ran (those after are the application files
	// their findings were placed in).
	graph *render.Graph
	state *renderState
	files int
}
