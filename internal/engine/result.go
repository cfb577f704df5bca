package engine

import (
	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// What a run produces: one FileResult per input (its findings, and what
// the cross-resource rules kept of it), and the Result of the whole run.

// FileResult is what one input produced.
type FileResult struct {
	Input manifest.Input
	// File is nil when the file could not be read. After a run it holds
	// the path, the document count and (KeepSource) the bytes, never the
	// node tree.
	File     *manifest.File
	Findings []analysis.Finding

	own       []analysis.Finding // Findings without the cross-resource ones
	objects   int
	summaries []summary
	origins   []summaryOrigin // where the summarized objects are (see summary)
	// unreadApp is the application of a file skipped as a template, or
	// read by a kustomize root that did not render: what it would make
	// is unknown to the cross-resource rules.
	unreadApp analysis.AppID
	// ids identify the objects observed (group, kind, namespace, name),
	// all of application idApp: a directory that defines one object in
	// two files is not applied as a whole (see splitApps).
	ids   []objectID
	idApp analysis.AppID
	// moreApps: the other applications the file is judged in (Argo CD
	// Applications that apply it too): its objects are in each, and
	// a finding about it is reported once.
	moreApps []analysis.AppID
	ignores  lineIgnores
	optOuts  map[objectKey]analysis.RuleSet // objects with an ignore annotation
}

// Result is a whole run.
type Result struct {
	Files     []*FileResult
	Findings  []analysis.Finding // all findings, files in input order, then by position
	Resources int

	// context holds the files read for the cross-resource rules only
	// (manifest.Input.Context): never reported on, never counted.
	context []*FileResult
	// tree is set for a run of RunTree: what was named and read, for
	// Relint to render again.
	tree *treeRun
}

// RootsOf names the kustomize roots that rendered and read the file at
// path, as findings' Roots name them; nil when the run rendered none
// (or did not keep its sources: see Engine.KeepSource).
func (r *Result) RootsOf(path string) []string {
	if r.tree == nil || r.tree.state == nil {
		return nil
	}
	t := r.tree.state
	return t.files[t.key(path)].readBy()
}

// objectKey names an object within its file.
type objectKey struct{ doc, item int }
