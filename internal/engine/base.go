package engine

// lint --base: judging the change an application applies. Head is
// rendered and judged as always; then the applications whose inputs
// differ between the base revision and the work tree (kustomize roots
// reaching a changed file, directories of plain manifests holding one)
// are rendered again at the base, with the same application logic, from
// the revision's git objects (Base.FS: no checkout, no process), and each
// enabled change rule (analysis.Rule.Change) sees one application's pair
// of object lists. Their findings are about head objects and are placed
// like any other: a rendered object's at the source line that made the
// value (the selector entry, the overlay's commonLabels line, the patch).

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// Base is the revision a change is judged against (lint --base REF).
type Base struct {
	// Revision names it in messages (a short commit).
	Revision string
	// FS is the repository's tree at the revision, read-only, under the
	// work tree's absolute paths (gittree.Repo.FS).
	FS filesys.FileSystem
	// Root is the work tree's top directory: an Argo CD Application's
	// source path is relative to it.
	Root string
	// Changed are the files (absolute) whose content differs between the
	// revision and the work tree (gittree.Repo.Changed).
	Changed []string
}

// changeRun is what a run under --base knows before rendering: which
// roots the change touches (their rendered objects are kept whole for
// the change rules) and which files changed.
type changeRun struct {
	changed map[string]bool // real absolute paths
	roots   map[*render.Kustomization]bool
}

// keeps reports whether root's rendered objects must be kept whole.
func (c *changeRun) keeps(root *render.Kustomization) bool {
	return c != nil && c.roots[root]
}

// changeRules are the enabled change rules.
func (e *Engine) changeRules() []*analysis.Rule {
	var out []*analysis.Rule
	for _, r := range e.rules {
		if r.Change != nil {
			out = append(out, r)
		}
	}
	return out
}

// planChange finds the planned roots whose inputs the change touches;
// nil without --base or without an enabled change rule.
func (e *Engine) planChange(t *renderState, plan rootPlan) *changeRun {
	if e.Base == nil || len(e.changeRules()) == 0 {
		return nil
	}
	c := &changeRun{changed: map[string]bool{}, roots: map[*render.Kustomization]bool{}}
	for _, f := range e.Base.Changed {
		c.changed[f] = true
		c.changed[t.graph.RealFile(f)] = true
	}
	for _, r := range plan.roots {
		if slices.ContainsFunc(t.graph.Reaches(r), func(f string) bool { return c.changed[f] }) {
			c.roots[r] = true
		}
	}
	return c
}

// judgeChange runs the change rules over every application the change
// touches, placing their findings in files.
func (e *Engine) judgeChange(t *renderState, files map[string]*FileResult, slots []*FileResult, plan rootPlan) {
	c := t.change
	if c == nil {
		return
	}
	appliers := e.appliers(t, slots, plan)
	e.judgeChangedRoots(t, files, plan, appliers)
	e.judgeChangedDirs(t, files, slots, appliers)
}

// judgeChangedRoots renders the changed roots at the base and runs the
// change rules over each pair.
func (e *Engine) judgeChangedRoots(t *renderState, files map[string]*FileResult, plan rootPlan, appliers *appliers) {
	var heads []*render.Result
	for _, res := range t.results {
		if res.Problem == nil && t.change.roots[res.Root] && !t.alone[res.Root] {
			heads = append(heads, res)
		}
	}
	if len(heads) == 0 {
		return
	}
	bg := t.graph.AtRevision(e.Base.FS)
	var baseRoots []*render.Kustomization
	baseOf := map[*render.Result]*render.Kustomization{}
	for _, res := range heads {
		if k := bg.Load(res.Root.Dir); k != nil && k.Kind != "Component" {
			baseRoots = append(baseRoots, k)
			baseOf[res] = k
		}
	}
	bg.SetRoots(baseRoots)
	br := render.NewRenderer(bg)
	br.LoadRestrictionsNone, br.Budget, br.Cache = t.renderer.LoadRestrictionsNone, t.renderer.Budget, t.renderer.Cache
	br.KubernetesVersion = t.renderer.KubernetesVersion
	e.fluxAtBase(bg, br, plan)
	rendered := map[*render.Kustomization]*render.Result{}
	for _, res := range br.RenderAll(context.Background(), baseRoots) {
		rendered[res.Root] = res
	}
	for _, head := range heads {
		var base *render.Result
		if k := baseOf[head]; k != nil {
			if base = rendered[k]; base.Problem != nil {
				// What the cluster holds is not known: nothing is
				// judged rather than everything taken as created, and
				// the run says so.
				e.reportBaseNotRendered(t, files, head, base.Problem)
				continue
			}
		}
		e.judgeRootChange(t, files, br, base, head, appliers.of(head.Root.Dir, plan.flux()[head.Root]))
	}
}

// reportBaseNotRendered says, at head's kustomization, that the change of
// a root was not judged because the root does not render at the base.
func (e *Engine) reportBaseNotRendered(t *renderState, files map[string]*FileResult, head *render.Result, p *render.Problem) {
	fr := t.fileFor(files, head.Root.File)
	if fr == nil || !e.Enabled(BaseNotRenderedID) {
		return
	}
	msg := strings.TrimPrefix(p.Message, "not rendered: ")
	f := e.fileFinding(fr.Input.Path, BaseNotRenderedID, fmt.Sprintf("the change was not judged: this root does not render at the base revision %s (%s)", e.Base.Revision, t.relPaths(firstLine(msg))))
	f.Line, f.Column, f.Roots = 1, 1, []string{t.show(head.Root.Dir)}
	fr.Findings = append(fr.Findings, f)
}

// firstLine is s up to its first newline: kustomize's errors run long.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// fluxAtBase gives the base renderer the settings the base revision's Flux
// Kustomizations add to the roots they apply (Components, namespace,
// patches), as planRoots does at head.
func (e *Engine) fluxAtBase(bg *render.Graph, br *render.Renderer, plan rootPlan) {
	found := map[string][]byte{}
	for _, f := range plan.fluxFiles() {
		if data, err := e.Base.FS.ReadFile(f); err == nil && render.MentionsFlux(data) {
			found[f] = data
		}
	}
	if len(found) == 0 {
		return
	}
	applies := bg.FluxApplies(found)
	for root := range applies {
		br.Unrestrict(root)
	}
	read := func(file string) []byte {
		data, _ := e.Base.FS.ReadFile(file)
		return data
	}
	for file, data := range bg.AddFluxSettings(applies, read) {
		br.Override(file, data)
	}
}

// judgeRootChange runs the change rules over one root's pair of
// renderings (base nil: the root is new) and places their findings.
func (e *Engine) judgeRootChange(t *renderState, files map[string]*FileResult, br *render.Renderer, base, head *render.Result, ap analysis.Applier) {
	headObjs := renderedObjects(head)
	var baseObjs []*manifest.Object
	if base != nil {
		baseObjs = renderedObjects(base)
	}
	where := func(o *manifest.Object, path manifest.FieldPath) string {
		p, err := render.ParsePath(path.String())
		if base == nil || err != nil || o.Doc < 0 || o.Doc >= len(base.Objects) {
			return ""
		}
		// A field the base lacks: where its nearest part was written.
		for len(p) > 1 {
			if _, v := p.Get(base.Objects[o.Doc].Node); v != nil {
				break
			}
			p = p[:len(p)-1]
		}
		l := br.Locate(base, base.Objects[o.Doc], p)
		if l.Source == render.FromRendered || l.Line == 0 {
			return t.show(base.Root.File)
		}
		return t.show(l.File) + ":" + itoa(l.Line)
	}
	judged := t.judged[head.Root.File]
	report := func(f analysis.Finding) {
		if judged != nil && judged.optOuts[objectKey{f.Doc, -1}].Has(f.Rule) {
			return
		}
		e.place(t, files, f)
	}
	app := analysis.AppID{Dir: head.Root.Dir}
	for _, r := range e.changeRules() {
		p := analysis.NewChangePass(r, app, baseObjs, headObjs, e.Base.Revision, ap, e.cfg, report)
		p.BaseWhere = where
		e.safeChange(r, p, t.fileFor(files, head.Root.File))
	}
}

// renderedObjects are a root's rendered objects as rules see them.
func renderedObjects(r *render.Result) []*manifest.Object {
	objs := make([]*manifest.Object, len(r.Objects))
	for i, o := range r.Objects {
		objs[i] = &manifest.Object{Resource: o.Resource, File: r.Root.File, Doc: i, Node: o.Node, Item: -1, Root: r.Root.File}
	}
	return objs
}

// judgeChangedDirs runs the change rules over the directories of plain
// manifests (files no root reaches) that hold a changed file: the
// directory's files at head against the same directory at the base.
func (e *Engine) judgeChangedDirs(t *renderState, files map[string]*FileResult, slots []*FileResult, appliers *appliers) {
	heads := map[string][]*FileResult{} // directory -> its plain files at head
	touched := map[string]bool{}
	for _, fr := range slots {
		in := fr.Input
		if in.Path == manifest.Stdin {
			continue
		}
		k := t.key(in.Path)
		if st := t.files[k]; st != nil && (len(st.readBy()) > 0 || st.component) {
			continue
		}
		dir := filepath.Dir(k)
		heads[dir] = append(heads[dir], fr)
		if t.change.changed[k] {
			touched[dir] = true
		}
	}
	// A file removed at head is a change of its directory too.
	for f := range t.change.changed {
		if manifest.IsYAMLName(f) && t.files[f] == nil && e.Base.FS.Exists(f) {
			touched[filepath.Dir(f)] = true
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(touched)) {
		if has, _ := t.graph.Listed(dir); has || len(heads[dir]) == 0 {
			continue // a kustomization's directory: its root is judged
		}
		e.judgeDirChange(t, files, dir, heads[dir], appliers.of(dir, nil))
	}
}

// judgeDirChange runs the change rules over one directory of plain
// manifests: as one application, unless the directory defines one object
// in two files (at head or at the base), which makes each of its files an
// application of its own (alternatives, as analysis.AppID.File says).
func (e *Engine) judgeDirChange(t *renderState, files map[string]*FileResult, dir string, heads []*FileResult, ap analysis.Applier) {
	head, base := map[string][]*manifest.Object{}, map[string][]*manifest.Object{} // file (absolute) -> objects
	for _, fr := range heads {
		if data, err := e.read(fr.Input); err == nil {
			head[t.key(fr.Input.Path)] = applied(manifest.Parse(fr.Input.Path, data, manifest.Context{}))
		}
	}
	names, _ := e.Base.FS.ReadDir(dir)
	for _, name := range names {
		path := filepath.Join(dir, name)
		if !manifest.IsYAMLName(name) || e.Base.FS.IsDir(path) {
			continue
		}
		if st := t.files[path]; st != nil && len(st.readBy()) > 0 {
			continue // a root's file: in its application, not this one
		}
		if data, err := e.Base.FS.ReadFile(path); err == nil {
			base[path] = applied(manifest.Parse(t.show(path), data, manifest.Context{}))
		}
	}
	report := func(f analysis.Finding) {
		fr := files[t.key(f.File)]
		if fr == nil || fr.Input.Context || fr.ignores.suppresses(f.Line, f.Rule) || fr.optOuts[objectKey{f.Doc, f.Item}].Has(f.Rule) {
			return
		}
		f.Severity = e.severityOf(f)
		fr.Findings = append(fr.Findings, f)
	}
	if !alternatives(head) && !alternatives(base) {
		e.runChange(analysis.AppID{Dir: dir}, flatten(base), flatten(head), ap, report, heads[0])
		return
	}
	for _, fr := range heads {
		f := t.key(fr.Input.Path)
		e.runChange(analysis.AppID{Dir: dir, File: f}, base[f], head[f], ap, report, fr)
	}
}

// runChange runs the change rules over one application of plain
// manifests, whose objects carry their own positions.
func (e *Engine) runChange(app analysis.AppID, base, head []*manifest.Object, ap analysis.Applier, report func(analysis.Finding), fallback *FileResult) {
	where := func(o *manifest.Object, path manifest.FieldPath) string {
		n := o.Node
		for _, el := range path {
			next := childAt(n, el)
			if next == nil {
				break
			}
			n = next
		}
		return o.File + ":" + itoa(n.Line)
	}
	for _, r := range e.changeRules() {
		p := analysis.NewChangePass(r, app, base, head, e.Base.Revision, ap, e.cfg, report)
		p.BaseWhere = where
		e.safeChange(r, p, fallback)
	}
}

// alternatives reports whether two files of byFile define one object.
func alternatives(byFile map[string][]*manifest.Object) bool {
	seen := map[analysis.ObjectKey]string{}
	for file, objs := range byFile {
		for _, o := range objs {
			k := analysis.KeyOf(o)
			if prev, ok := seen[k]; ok && prev != file {
				return true
			}
			seen[k] = file
		}
	}
	return false
}

// flatten is every object of byFile, files in name order.
func flatten(byFile map[string][]*manifest.Object) []*manifest.Object {
	var out []*manifest.Object
	for _, f := range slices.Sorted(maps.Keys(byFile)) {
		out = append(out, byFile[f]...)
	}
	return out
}

// applied are the objects of f an engine applies (no patches, no
// assertions, no kustomizations).
func applied(f *manifest.File) []*manifest.Object {
	var out []*manifest.Object
	for _, o := range f.Objects {
		if !o.Partial && !o.Assertion && !o.Implied && o.Resource.Kind != "" && o.Resource.Group() != "kustomize.config.k8s.io" {
			out = append(out, o)
		}
	}
	return out
}
