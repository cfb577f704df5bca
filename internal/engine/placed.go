package engine

import (
	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// What a rendered root leaves behind once it is judged: its findings
// already located at their sources, as plain data (no node, no rendered
// object), so that the root's objects are released as soon as it is
// judged instead of when the whole tree has rendered (issue 37: memory
// bounded by the largest application, not by the repository).

// placedFinding is a finding about a rendered object of root, located at
// the source byte that produced it (see Engine.locate), not yet recorded
// in that file: the files are linted while the roots render, and the
// findings are recorded in the roots' order, so that the output does not
// depend on which root finished first.
type placedFinding struct {
	Finding analysis.Finding
	At      sourcePlace
	// Root is the root's directory as shown.
	Root string
	// chart is set for a value a helmCharts entry's chart made: the
	// finding is placed in the chart's values or template (placeChart)
	// when it is recorded.
	chart *chartApp
}

// sourcePlace is where a rendered value came from: the part of a
// render.Location that recording a finding reads.
type sourcePlace struct {
	Source render.SourceKind
	File   string
	Line   int
	Column int
	Doc    int
	// Why says, for Source FromRendered, why no source byte was found.
	Why string
}

// placeOf is the plain part of l.
func placeOf(l render.Location) sourcePlace {
	return sourcePlace{Source: l.Source, File: l.File, Line: l.Line, Column: l.Column, Doc: l.Doc, Why: l.Why}
}

// locateAll locates the findings about res's objects, in their order.
func (e *Engine) locateAll(t *renderState, res *render.Result, findings []analysis.Finding) []placedFinding {
	var out []placedFinding
	for _, f := range findings {
		out = e.locate(t, res, f, out)
	}
	return out
}

// releaseObjects reduces the objects of a judged root to their skeletons
// (render.Skeleton): its findings are located, and its summaries hold no
// node. A cross-resource finding about one of its objects, rare, renders
// the root again (renderState.whole).
func releaseObjects(res *render.Result) {
	for _, o := range res.Objects {
		o.Node = render.Skeleton(o.Node)
	}
}

// whole makes the result of the root whose kustomization is file whole
// again if its objects were released: placing a cross-resource finding
// reads the object's fields. Rendering is deterministic, so the objects
// are the ones judged; should the root not render the same way again
// (a time budget under load), the finding is placed on the skeletons.
func (t *renderState) whole(file string) {
	if !t.released[file] {
		return
	}
	delete(t.released, file)
	old := t.byRoot[file]
	if fresh := t.renderer.Render(old.Root); fresh.Problem == nil && len(fresh.Objects) == len(old.Objects) {
		t.byRoot[file] = fresh
	}
}
