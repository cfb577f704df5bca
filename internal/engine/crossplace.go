package engine

import "github.com/shipshape-dev/shipshape/internal/analysis"

// Placing a tree's cross-resource findings. A finding about a rendered
// object needs its root's objects whole (the root was cut to skeletons
// once judged: releaseObjects), so the root is rendered again. Rendered
// as each finding comes, and kept, every root with a finding stayed whole
// until the run ended: over the 11 × corpus the heap grew by tens of MB
// during Finish, the run's peak. So the findings are held as the rules
// report them, located root by root (each root rendered once, then cut
// to skeletons again), and then reported in the order the rules reported
// them: the output is the one of placing each finding as it came.

// placesRendered reports whether f is a finding about a rendered object
// that is placed at its source (see Engine.place).
func placesRendered(t *renderState, f analysis.Finding) bool {
	if !f.Rendered || t.charts.about(f) != nil {
		return false
	}
	if _, ok := t.substituted[f.File]; ok {
		return false
	}
	r := t.judged[f.File]
	return r != nil && !r.optOuts[objectKey{f.Doc, -1}].Has(f.Rule)
}

// locateHeld locates the held findings about rendered objects, root by
// root in the order of their first finding: the i-th finding's places are
// placed[i].
func (e *Engine) locateHeld(t *renderState, held []analysis.Finding) [][]placedFinding {
	placed := make([][]placedFinding, len(held))
	byRoot := map[string][]int{}
	var roots []string
	for i, f := range held {
		if !placesRendered(t, f) {
			continue
		}
		if byRoot[f.File] == nil {
			roots = append(roots, f.File)
		}
		byRoot[f.File] = append(byRoot[f.File], i)
	}
	for _, root := range roots {
		released, cut := t.released[root], t.byRoot[root]
		t.whole(root)
		for _, i := range byRoot[root] {
			placed[i] = e.locate(t, t.byRoot[root], held[i], nil)
		}
		if released {
			// The skeletons again: the rendering made whole is garbage.
			t.byRoot[root], t.released[root] = cut, true
		}
	}
	return placed
}
