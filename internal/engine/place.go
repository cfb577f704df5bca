package engine

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// Placement: a finding about a rendered object is put at the source byte
// render.Locate finds for its field (a base document, a patch, a JSON-patch
// op, a kustomization field), its fix carried there when every edit lands
// exactly in that one source document; the same finding from several
// roots is one finding naming them all.

// place puts a finding about a rendered object at its source: the file,
// line and column render.Locate finds, with its fix carried there when
// the place is exact; the same finding from several roots (a base
// rendered by three overlays) is reported once, naming them all.
func (e *Engine) place(t *renderState, files map[string]*FileResult, f analysis.Finding) {
	for _, p := range e.locate(t, t.byRoot[f.File], f, nil) {
		e.record(t, files, p)
	}
}

// locate appends to out where the finding f about an object of res goes
// (see place): none, one place, or two when a patch restates a field
// its base sets. It reads only the rendering, never the files' results,
// so roots are located as they render, in any order.
func (e *Engine) locate(t *renderState, res *render.Result, f analysis.Finding, out []placedFinding) []placedFinding {
	f.Severity = e.severityOf(f)
	if res == nil || f.Doc < 0 || f.Doc >= len(res.Objects) {
		return out
	}
	o := res.Objects[f.Doc]
	root := t.variantName(res.Root)
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
	if loc.Source == render.FromBase || loc.Source == render.FromHelm || loc.Source == render.FromPatch && t.restates(res, o, f.Field, loc) {
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
		return out // a file's value: judged in the file, as it is read
	}
	if loc.Source == render.FromHelm {
		if p, ok := e.locateHelmCharts(t, res, o, f, loc); ok {
			out = append(out, p)
		}
		return out
	}
	// A field a patch sets that the base sets too (an overlay's replicas
	// over a base's) is there twice: removing it from the patch alone
	// leaves the base's, so the base is reported, and fixed, as well.
	if loc.Source == render.FromPatch && deletesField(f) {
		if p, err := render.ParsePath(f.Field); err == nil {
			if bl, ok := t.renderer.BaseSets(res, o, p); ok {
				g := f
				g.Fix = &analysis.Fix{Message: f.Fix.Message, Edits: []analysis.Edit{{Op: analysis.Delete, Path: toFieldPath(bl.Path)}}}
				out = append(out, placedFinding{Finding: g, At: placeOf(bl), Root: root})
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
	return append(out, placedFinding{Finding: f, At: placeOf(loc), Root: root})
}

// restates reports whether the patch at loc sets field to the scalar its
// base already has.
func (t *renderState) restates(res *render.Result, o *render.Object, field string, loc render.Location) bool {
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

// record adds p's finding, about a rendered object of p.Root and located
// at p.At (its fix already carried there), to the file p.At names.
func (e *Engine) record(t *renderState, files map[string]*FileResult, p placedFinding) {
	if p.chart != nil {
		e.placeChart(t, files, p.chart, p.Finding)
		return
	}
	f, loc, root := p.Finding, p.At, p.Root
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
	f.File, f.Rendered = fr.Input.Path, false
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
func (t *renderState) carry(res *render.Result, o *render.Object, fix *analysis.Fix, loc render.Location) (*analysis.Fix, string) {
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
