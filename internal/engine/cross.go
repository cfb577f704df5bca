package engine

import (
	"cmp"
	"path/filepath"
	"slices"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/intern"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Cross-resource rules: each object's summaries are kept as files are
// read (observe), with the application the object belongs to; Finish
// groups them by application (a directory, a rendered root, a directory
// split per file when it defines an object twice) and runs each rule's
// Finish once per application, or once over all for Repository rules.

// summary is what a cross-resource rule kept of one object. A large
// tree keeps hundreds of thousands until Finish, so it is small: where the
// object is (its file and application, shared by the file's objects) is
// an index into its FileResult's origins, its place in the file two
// int32s.
type summary struct {
	value  any
	doc    int32
	item   int32
	rule   int32 // index in Engine.cross
	origin int32 // index in FileResult.origins
}

// summaryOrigin is the file and application of summarized objects: one
// per file, but for ResourceList items placed by their path annotation.
type summaryOrigin struct {
	file objectFile
	app  analysis.AppID // see application
}

// originOf returns the index in fr.origins of (file, app), adding it.
// The last one is tried first: a file's objects share one.
func (fr *FileResult) originOf(file objectFile, app analysis.AppID) int32 {
	o := summaryOrigin{file, app}
	for i := len(fr.origins) - 1; i >= 0; i-- {
		if fr.origins[i] == o {
			return int32(i)
		}
	}
	fr.origins = append(fr.origins, o)
	return int32(len(fr.origins) - 1)
}

// trimObserved gives fr's summaries, origins and object identities
// arrays of their own length: grown by appending, as objects were
// observed, they are up to twice that, and a large tree keeps them all
// until its run ends (a megabyte of the 11 x corpus's peak).
func (fr *FileResult) trimObserved() {
	fr.summaries = trimmed(fr.summaries)
	fr.origins = trimmed(fr.origins)
	fr.ids = trimmed(fr.ids)
}

// trimmed is s in an array of its own length; s when it already is.
func trimmed[T any](s []T) []T {
	if cap(s) == len(s) {
		return s
	}
	if len(s) == 0 {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

// application names the application a file belongs to, for the
// cross-resource rules of PerApplication scope: for plain manifests, the
// directory that holds the file (Argo CD and Flux apply a directory), so
// that two alternatives kept side by side in sibling directories are not
// judged together (nor, see splitApps, the files of a directory that
// defines one object twice). ResourceList items are placed by the file their
// config.kubernetes.io/path annotation names; items without one make one
// application.
func (e *Engine) application(path string) analysis.AppID {
	if path == manifest.Stdin || path == "" {
		return analysis.AppID{Dir: path}
	}
	dir, err := e.wd.Abs(filepath.Dir(path))
	if err != nil {
		return analysis.AppID{Dir: filepath.Dir(path)}
	}
	// One copy per directory: a file's result keeps its application
	// until the run ends, and a directory holds many files.
	return analysis.AppID{Dir: intern.String(dir)}
}

// observe records in fr what the cross-resource rules need of obj, the
// object k of application app: its opt-outs and its summaries.
func (e *Engine) observe(fr *FileResult, obj *manifest.Object, k objectKey, app analysis.AppID) {
	if ignored := analysis.IgnoredRules(obj); ignored != nil {
		if fr.optOuts == nil {
			fr.optOuts = map[objectKey]analysis.RuleSet{}
		}
		fr.optOuts[k] = ignored
	}
	e.summarize(fr, obj, k, app)
	fr.ids, fr.idApp = append(fr.ids, objectID{identity(obj), objectFile{obj.File, obj.Root != ""}}), app
}

// identity hashes obj's group, kind, namespace and name (FNV-1a, written
// out: no allocation per object).
func identity(obj *manifest.Object) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, part := range [...]string{obj.Group(), obj.Kind, obj.EffectiveNamespace(), obj.Name} {
		for i := 0; i < len(part); i++ {
			h = (h ^ uint64(part[i])) * prime
		}
		h *= prime // a zero byte between parts: ("ab", "c") is not ("a", "bc")
	}
	return h
}

// objectID is an object's identity (hashed) and the file it is in.
type objectID struct {
	hash uint64
	file objectFile
}

// objectFile is the file an object is in: a file as named, or, for an
// object kustomize rendered, its root's kustomization file.
type objectFile struct {
	path     string
	rendered bool
}

// splitApps returns the applications of files that define one object
// (group, kind, namespace and name) in two files: such a directory is a
// set of alternatives or samples (kuberay's config/samples, each file
// with its own Service/redis), which no engine applies as a whole (Argo
// CD refuses an object defined twice), so each of its files is an
// application of its own.
func splitApps(files ...[]*FileResult) map[analysis.AppID]bool {
	split := map[analysis.AppID]bool{}
	// Keyed by the application's number, not the AppID: one entry per
	// object of the run.
	type key struct {
		app  int32
		hash uint64
	}
	var apps crossApps
	first := map[key]objectFile{}
	var numbers []int32 // the file's applications
	for _, list := range files {
		for _, fr := range list {
			if len(fr.ids) == 0 {
				continue
			}
			numbers = append(numbers[:0], apps.index(fr.idApp))
			for _, app := range fr.moreApps {
				numbers = append(numbers, apps.index(app))
			}
			for _, id := range fr.ids {
				for _, n := range numbers {
					k := key{n, id.hash}
					if f, ok := first[k]; !ok {
						first[k] = id.file
					} else if f != id.file {
						split[apps.list[n]] = true
					}
				}
			}
		}
	}
	return split
}

// summarize appends to fr's summaries those of obj, the object k of
// application app.
func (e *Engine) summarize(fr *FileResult, obj *manifest.Object, k objectKey, app analysis.AppID) {
	// One pass per object, its rule set for each: summaries only read it.
	p := analysis.NewPass(nil, obj, e.cfg, nil)
	origin := int32(-1)
	for i, r := range e.cross {
		p.Rule = r
		if v, ok := r.Cross.Summarize(p); ok {
			if origin < 0 {
				origin = fr.originOf(objectFile{obj.File, obj.Root != ""}, app)
			}
			fr.summaries = append(fr.summaries, summary{v, int32(k.doc), int32(k.item), int32(i), origin})
		}
	}
}

// placedSummary is a summary with its origin and the index of its
// application (see crossApps), for Finish to sort and group.
type placedSummary struct {
	*summary
	*summaryOrigin
	app int32
}

// Finish runs the cross-resource rules over the summaries of res's files
// and merges their findings into each file's, in the one order. It can be
// called again after files were replaced (the fix driver verifies so).
func (e *Engine) Finish(res *Result) {
	byPath := map[string]*FileResult{}
	for _, fr := range res.Files {
		byPath[fr.Input.Path] = fr
	}
	e.finish(res, func(f analysis.Finding) *FileResult { return byPath[f.File] })
}

// finish is Finish with where each cross-resource finding goes (nil: not
// reported, a context file's).
func (e *Engine) finish(res *Result, fileOf func(analysis.Finding) *FileResult) {
	e.finishPlacing(res, fileOf, nil)
}

// finishPlacing is finish, with the rules' findings held until they have
// all run and then given, in the order reported, to place with the
// report of fileOf; a nil place reports each as it comes.
func (e *Engine) finishPlacing(res *Result, fileOf func(analysis.Finding) *FileResult, place func(held []analysis.Finding, report func(analysis.Finding))) {
	res.Resources = 0
	for _, fr := range res.Files {
		fr.Findings = append(fr.Findings[:0:0], fr.own...)
		res.Resources += fr.objects
	}
	if len(e.cross) == 0 {
		e.gatherFindings(res)
		return
	}
	// Before the list of summaries: its map of every object is garbage
	// by then.
	split := splitApps(res.Files, res.context)
	// Pointers, not copies: over a large tree the summaries are most of
	// what a run keeps, and Finish runs when the heap is at its largest.
	// Sized once: grown by appending, the list would be up to twice
	// itself, and its old arrays garbage, at the run's peak.
	n := 0
	for _, files := range [][]*FileResult{res.Files, res.context} {
		for _, fr := range files {
			n += len(fr.summaries)
		}
	}
	all := make([]placedSummary, 0, n)
	unread := map[analysis.AppID]bool{}
	for _, files := range [][]*FileResult{res.Files, res.context} {
		for _, fr := range files {
			for i := range fr.summaries {
				s := &fr.summaries[i]
				all = append(all, placedSummary{s, &fr.origins[s.origin], 0})
			}
			if fr.unreadApp != (analysis.AppID{}) {
				unread[fr.unreadApp] = true
				for _, app := range fr.moreApps {
					unread[app] = true
				}
			}
		}
	}
	if len(all) > 0 {
		report := e.reporter(fileOf)
		if place == nil {
			e.judgeAll(all, split, unread, report)
		} else {
			var held []analysis.Finding
			e.judgeAll(all, split, unread, func(f analysis.Finding) { held = append(held, f) })
			all = nil // garbage while the findings are placed
			place(held, report)
		}
	}
	e.gatherFindings(res)
}

// gatherFindings sorts each file's findings and lists them all in res.
func (e *Engine) gatherFindings(res *Result) {
	res.Findings = res.Findings[:0]
	linked := linkedFiles{}
	for _, fr := range res.Files {
		e.withoutLinkedContents(fr.Findings, linked)
		analysis.Sort(fr.Findings)
		res.Findings = append(res.Findings, fr.Findings...)
	}
}

// reporter is where Finish reports a cross-resource finding: to the file
// fileOf names, unless it is a context file's, suppressed there, opted
// out by its object, or already reported by another application.
func (e *Engine) reporter(fileOf func(analysis.Finding) *FileResult) func(analysis.Finding) {
	reported := reportedOnce{}
	return func(f analysis.Finding) {
		fr := fileOf(f)
		if fr == nil || fr.Input.Context || fr.ignores.suppresses(f.Line, f.Rule) || fr.optOuts[objectKey{f.Doc, f.Item}].Has(f.Rule) || !reported.first(fr, f) {
			return
		}
		f.Severity = e.severityOf(f)
		fr.Findings = append(fr.Findings, f)
	}
}

// judgeAll runs each cross-resource rule's Finish over all, the run's
// summaries: once per application, in the order the applications' first
// summaries come in file order, or once over all of them for Repository
// rules. split holds the directories judged file by file (splitApps).
//
// The summaries are grouped by sorting all in place by rule and then
// application, not by copying them into a group per rule and
// application: one index per summary instead of a value and an AppID.
func (e *Engine) judgeAll(all []placedSummary, split map[analysis.AppID]bool, unread map[analysis.AppID]bool, report func(analysis.Finding)) {
	// File order, whatever order files were read in.
	slices.SortStableFunc(all, func(a, b placedSummary) int {
		return cmp.Or(a.file.compare(b.file), cmp.Compare(a.doc, b.doc), cmp.Compare(a.item, b.item))
	})
	var apps crossApps
	for i := range all {
		app := all[i].summaryOrigin.app
		if split[app] {
			app.File = all[i].file.path
		}
		all[i].app = apps.index(app)
	}
	apps.numbers = nil // numbered: only the list is asked from here on
	// Applications numbered in order of first summary: sorting by rule
	// and number keeps file order within each group, and gives a
	// Repository rule its summaries grouped by application (the order
	// analysis.Cross promises).
	slices.SortStableFunc(all, func(a, b placedSummary) int {
		return cmp.Or(cmp.Compare(a.rule, b.rule), cmp.Compare(a.app, b.app))
	})
	// The memos: one per application, and one for the Repository rules.
	shared := make([]map[any]any, len(apps.list))
	repository := map[any]any{}
	var values []any // Finish's argument, reused: Summaries' Finish copies it
	for len(all) > 0 {
		rule := all[0].rule
		n := 1
		for n < len(all) && all[n].rule == rule {
			n++
		}
		group := all[:n]
		all = all[n:]
		r := e.cross[rule]
		appOf := func(i int) analysis.AppID { return apps.list[group[i].app] }
		if r.Scope != analysis.PerApplication {
			values = valuesOf(values, group)
			r.Cross.Finish(analysis.NewCrossPassOf(r, e.cfg, repository, appOf, unread, report), values)
			continue
		}
		for len(group) > 0 {
			app := group[0].app
			m := 1
			for m < len(group) && group[m].app == app {
				m++
			}
			if shared[app] == nil {
				shared[app] = map[any]any{}
			}
			values = valuesOf(values, group[:m])
			one := apps.list[app]
			r.Cross.Finish(analysis.NewCrossPassOf(r, e.cfg, shared[app], func(int) analysis.AppID { return one }, unread, report), values)
			group = group[m:]
		}
	}
}

// valuesOf is the summaries' values, in buf.
func valuesOf(buf []any, summaries []placedSummary) []any {
	buf = buf[:0]
	for _, s := range summaries {
		buf = append(buf, s.value)
	}
	return buf
}

// crossApps numbers applications in the order they are first asked for.
type crossApps struct {
	list    []analysis.AppID
	numbers map[analysis.AppID]int32
}

// index is app's number, numbering it if it has none.
func (a *crossApps) index(app analysis.AppID) int32 {
	if n := len(a.list); n > 0 && a.list[n-1] == app {
		return int32(n - 1) // a file's summaries come together
	}
	if i, ok := a.numbers[app]; ok {
		return i
	}
	if a.numbers == nil {
		a.numbers = map[analysis.AppID]int32{}
	}
	i := int32(len(a.list))
	a.numbers[app] = i
	a.list = append(a.list, app)
	return i
}

// compare orders the objects of rendered roots first (by root), then
// files by path: the order the cross-resource rules see summaries in.
func (f objectFile) compare(g objectFile) int {
	if f.rendered != g.rendered {
		if f.rendered {
			return -1
		}
		return 1
	}
	return cmp.Compare(f.path, g.path)
}

// reportedOnce: a file judged in several applications (applied by two
// Argo CD Applications) gets a finding once, the first application's.
type reportedOnce map[reportedAt]bool

type reportedAt struct {
	fr              *FileResult
	rule            string
	line, col, item int
}

// first reports whether f, about fr, is to be reported: not when fr is
// judged in several applications and one already reported it.
func (r reportedOnce) first(fr *FileResult, f analysis.Finding) bool {
	if len(fr.moreApps) == 0 {
		return true
	}
	k := reportedAt{fr, f.Rule, f.Line, f.Column, f.Item}
	if r[k] {
		return false
	}
	r[k] = true
	return true
}
