package engine

import (
	"cmp"
	"slices"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/schemawalk"

	"go.yaml.in/yaml/v3"
)

// The per-object and per-file rules over one parsed file: which rule
// judges which object, and the suppressions applied to what they report.

// Lint runs the per-object and per-file rules over a parsed file and
// applies suppressions; cross-resource rules are left out.
func (e *Engine) Lint(f *manifest.File) []analysis.Finding {
	return e.lint(f, scanIgnores(f.Src))
}

// lint is Lint with the file's ignore comments already scanned.
func (e *Engine) lint(f *manifest.File, ig lineIgnores) []analysis.Finding {
	var out []analysis.Finding
	if f.Template != "" {
		if e.Enabled(TemplateID) {
			out = append(out, e.fileFinding(f.Path, TemplateID, templateNotice[f.Template]))
		}
		return out
	}
	if ig.all() {
		return nil
	}
	if e.Enabled(SyntaxID) {
		for _, se := range f.Errors {
			fd := e.fileFinding(f.Path, SyntaxID, se.Message)
			fd.Line, fd.Column = se.Line, se.Column
			if msg, l, c, ok := flowMappingCause(f.Src, se.Line); ok {
				fd.Message, fd.Detail, fd.Line, fd.Column = msg, "YAML: "+se.Message, l, c
			}
			out = append(out, fd)
		}
	}
	sink := func(fd analysis.Finding) { out = append(out, fd) }
	for _, r := range e.rules {
		if r.CheckFile != nil {
			r.CheckFile(analysis.NewFilePass(r, f, e.cfg, sink))
		}
	}
	out = e.checkObjects(f.Objects, out, nil)
	kept := out[:0]
	for _, fd := range out {
		if ig.suppresses(fd.Line, fd.Rule) {
			continue
		}
		fd.Severity = e.severityOf(fd)
		kept = append(kept, fd)
	}
	analysis.Sort(kept)
	return kept
}

// checkObjects runs the per-object rules over objs, appending to out,
// each object to the rules whose analysis.Targets include what it is (see
// judges). Rendered objects (jsonPatch not nil: it finds the JSON-patch op
// value behind a value of object doc, see Pass.JSONPatchValue) go to the
// Objects rules' Check and the RenderedValues rules' Rendered visitor.
//
// The rules that visit the typed walk share one walk of each object.
func (e *Engine) checkObjects(objs []*manifest.Object, out []analysis.Finding, jsonPatch func(doc int, path string) *yaml.Node) []analysis.Finding {
	rendered := jsonPatch != nil
	sink := func(fd analysis.Finding) { out = append(out, fd) }
	var buf [8]schemawalk.Visitor
	for _, obj := range objs {
		ignored := analysis.IgnoredRules(obj)
		visitors := buf[:0]
		for _, r := range e.rules {
			if r.Check == nil && r.Visit == nil || ignored.Has(r.ID) || !judges(r.Targets, obj, rendered) {
				continue
			}
			p := analysis.NewPass(r, obj, e.cfg, sink)
			if rendered && r.Targets.Has(analysis.RenderedValues) {
				doc := obj.Doc
				p.WithJSONPatch(func(path string) *yaml.Node { return jsonPatch(doc, path) })
				visitors = append(visitors, r.Rendered(p))
				continue
			}
			if r.Visit != nil {
				visitors = append(visitors, r.Visit(p))
				continue
			}
			r.Check(p)
		}
		if len(visitors) > 0 {
			schemawalk.Walk(obj, visitors)
		}
	}
	return out
}

// judges reports whether a rule with targets t judges obj: a patch needs
// Patches; a kustomize root's source (bases and patches) and an assert
// file of a kuttl or chainsaw test need SourceFiles, which judge files as
// read; a rendered object needs Objects or RenderedValues; an object of a
// plain manifest is judged both as an object and as read.
func judges(t analysis.Targets, obj *manifest.Object, rendered bool) bool {
	var need analysis.Targets
	if obj.Partial {
		need |= analysis.Patches
	}
	if obj.Kustomize != nil || obj.Assertion {
		need |= analysis.SourceFiles
	}
	if !t.Has(need) {
		return false
	}
	if rendered {
		return t.Has(analysis.Objects) || t.Has(analysis.RenderedValues)
	}
	return t.Has(analysis.Objects) || t.Has(analysis.SourceFiles)
}

// SortByItem orders findings of a ResourceList by item, then position.
func SortByItem(fs []analysis.Finding) {
	analysis.Sort(fs)
	slices.SortStableFunc(fs, func(a, b analysis.Finding) int { return cmp.Compare(a.Doc, b.Doc) })
}
