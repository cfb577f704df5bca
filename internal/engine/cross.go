package engine

import (
	"cmp"
	"path/filepath"
	"slices"

	"github.com/shipshape-dev/shipshape/internal/analysis"
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
	return analysis.AppID{Dir: dir}
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
	type key struct {
		app  analysis.AppID
		hash uint64
	}
	first := map[key]objectFile{}
	for _, list := range files {
		for _, fr := range list {
			for _, id := range fr.ids {
				for i := -1; i < len(fr.moreApps); i++ {
					app := fr.idApp
					if i >= 0 {
						app = fr.moreApps[i]
					}
					k := key{app, id.hash}
					if f, ok := first[k]; !ok {
						first[k] = id.file
					} else if f != id.file {
						split[app] = true
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

// placedSummary is a summary with its origin, for Finish to sort and group.
type placedSummary struct {
	*summary
	*summaryOrigin
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
	// Pointers, not copies: over a large tree the summaries are most of
	// what a run keeps.
	var all []placedSummary
	res.Resources = 0
	for _, fr := range res.Files {
		fr.Findings = append(fr.Findings[:0:0], fr.own...)
		res.Resources += fr.objects
	}
	unread := map[analysis.AppID]bool{}
	for _, files := range [][]*FileResult{res.Files, res.context} {
		for _, fr := range files {
			for i := range fr.summaries {
				s := &fr.summaries[i]
				all = append(all, placedSummary{s, &fr.origins[s.origin]})
			}
			if fr.unreadApp != (analysis.AppID{}) {
				unread[fr.unreadApp] = true
				for _, app := range fr.moreApps {
					unread[app] = true
				}
			}
		}
	}
	if len(e.cross) > 0 && len(all) > 0 {
		// File order, whatever order files were read in.
		slices.SortStableFunc(all, func(a, b placedSummary) int {
			return cmp.Or(a.file.compare(b.file), cmp.Compare(a.doc, b.doc), cmp.Compare(a.item, b.item))
		})
		reported := reportedOnce{}
		report := func(f analysis.Finding) {
			fr := fileOf(f)
			if fr == nil || fr.Input.Context || fr.ignores.suppresses(f.Line, f.Rule) || fr.optOuts[objectKey{f.Doc, f.Item}].Has(f.Rule) || !reported.first(fr, f) {
				return
			}
			f.Severity = e.severityOf(f)
			fr.Findings = append(fr.Findings, f)
		}
		// Each rule's summaries, by application in the order their first
		// summary comes: one pass, whatever the number of applications.
		type group struct {
			values []any
			apps   []analysis.AppID
		}
		byRule := make([]map[analysis.AppID]*group, len(e.cross))
		var apps []analysis.AppID
		seen := map[analysis.AppID]bool{}
		split := splitApps(res.Files, res.context)
		for _, s := range all {
			app := s.app
			if split[app] {
				app.File = s.file.path
			}
			if !seen[app] {
				seen[app] = true
				apps = append(apps, app)
			}
			if byRule[s.rule] == nil {
				byRule[s.rule] = map[analysis.AppID]*group{}
			}
			g := byRule[s.rule][app]
			if g == nil {
				g = &group{}
				byRule[s.rule][app] = g
			}
			g.values = append(g.values, s.value)
			g.apps = append(g.apps, app)
		}
		// The memos: one per application, and one for the Repository rules.
		shared := map[analysis.AppID]map[any]any{}
		repository := map[any]any{}
		memo := func(key analysis.AppID) map[any]any {
			if shared[key] == nil {
				shared[key] = map[any]any{}
			}
			return shared[key]
		}
		for i, r := range e.cross {
			if r.Scope == analysis.PerApplication {
				for _, a := range apps {
					if g := byRule[i][a]; g != nil {
						r.Cross.Finish(analysis.NewCrossPass(r, e.cfg, memo(a), g.apps, unread, report), g.values)
					}
				}
				continue
			}
			var all group
			for _, a := range apps {
				if g := byRule[i][a]; g != nil {
					all.values = append(all.values, g.values...)
					all.apps = append(all.apps, g.apps...)
				}
			}
			if len(all.values) > 0 {
				r.Cross.Finish(analysis.NewCrossPass(r, e.cfg, repository, all.apps, unread, report), all.values)
			}
		}
	}
	res.Findings = res.Findings[:0]
	linked := linkedFiles{}
	for _, fr := range res.Files {
		e.withoutLinkedContents(fr.Findings, linked)
		analysis.Sort(fr.Findings)
		res.Findings = append(res.Findings, fr.Findings...)
	}
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
