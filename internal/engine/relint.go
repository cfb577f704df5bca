package engine

import (
	"path/filepath"
	"slices"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// Linting a tree again after a fix: only the changed files when no
// kustomization reads them, else the whole tree rendered again.

// relintTree is Relint for a run of RunTree. When no kustomization reads
// a changed file (the usual fix: a plain manifest), what was rendered
// stands: only the changed files are linted again, and the cross-resource
// rules run again over everything. Otherwise the whole tree is read and
// rendered again with the new bytes.
func (e *Engine) relintTree(res *Result, changed map[string][]byte) *Result {
	rt := res.tree
	if rt.state == nil || !rt.unread(changed) {
		return e.runTree(rt.paths, rt.inputs, changed, e.discover(rt.paths))
	}
	t := *rt.state
	t.extra = nil
	// Read by no kustomization, a changed file is linted as written.
	plain := func(in manifest.Input, data []byte) *FileResult {
		return e.lintFileIn(in, data, e.context(in.Path, t.graph), t.argoApps[in.Path])
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
