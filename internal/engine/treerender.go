package engine

import (
	"context"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// Rendering a tree's roots, on all cores while the files are linted, and
// judging each root's objects as one pseudo-file (judgeRendered).

// rendering is the roots rendering: rendered is closed once the files'
// states hold only roots that rendered, done then gets the results.
type rendering struct {
	rendered chan struct{}
	done     chan renderedRoots
}

// renderedRoots are the results of the roots rendered, and for each that
// rendered, its objects judged.
type renderedRoots struct {
	results []*render.Result
	judged  []judgedRoot
}

// judgedRoot is a rendered root judged: its objects as a pseudo-file (see
// judgeRendered) holding what the cross-resource rules need, and its own
// findings located at their sources.
type judgedRoot struct {
	judged *FileResult
	placed []placedFinding
	// released: its objects were reduced to skeletons (releaseObjects).
	released bool
}

// renderRoots renders the planned roots, and judges their objects, while
// the caller lints the files.
func (e *Engine) renderRoots(t *renderState, plan rootPlan) rendering {
	roots := plan.roots
	// Without fix, each root's objects are judged as soon as it renders,
	// its findings located, and its objects then released (placed.go):
	// a tree of many roots is not held whole, root after root; what a
	// run keeps grows with its summaries, not with its rendered objects.
	var early sync.Map // *render.Result -> judgedRoot
	// A root a Flux Kustomization substitutes is judged again, whole, after
	// its substitution (postbuild.go): its objects are kept.
	substituted := map[string]bool{}
	if !e.KeepSource && len(roots) > 0 {
		for _, pb := range plan.postBuilds() {
			for _, r := range pb.Roots {
				substituted[r.File] = true
			}
		}
	}
	if !e.KeepSource {
		t.renderer.Rendered = func(res *render.Result) {
			fr := e.judgeRendered(t.renderer, res)
			j := judgedRoot{judged: fr, placed: e.locateAll(t, res, fr.own)}
			fr.own = nil // located: placed holds them
			// The change rules judge it whole (base.go), and so does a
			// Flux Kustomization's substitution.
			if !t.change.keeps(res.Root) && !substituted[res.Root.File] {
				releaseObjects(res)
				j.released = true
			}
			early.Store(res, j)
		}
	}
	r := rendering{rendered: make(chan struct{}), done: make(chan renderedRoots, 1)}
	go func() {
		results := t.renderer.RenderAll(context.Background(), roots)
		for i, res := range results {
			if res.Problem != nil && res.Problem.OutsideRoot() && plan.flux()[roots[i]] != nil {
				t.renderer.Unrestrict(roots[i])
				results[i] = t.renderer.Render(roots[i])
			}
		}
		// The bases a root that did not render lists are rendered on
		// their own; one that fails alone is judged as written, as the
		// root's files are, and says nothing of its own.
		if bases := render.UnrenderedBases(results); len(bases) > 0 {
			t.alone = map[*render.Kustomization]bool{}
			for _, res := range t.renderer.RenderAll(context.Background(), bases) {
				if res.Problem == nil {
					t.reach(res.Root)
					t.alone[res.Root] = true
					results = append(results, res)
				}
			}
		}
		// Every root has rendered: a root rendered again to place a
		// cross-resource finding (renderState.whole) is not judged again.
		t.renderer.Rendered = nil
		t.dropFailed(results)
		close(r.rendered)
		judged := make([]judgedRoot, len(results))
		e.parallel(len(results), func(i int) {
			if results[i].Problem == nil {
				if j, ok := early.Load(results[i]); ok {
					judged[i] = j.(judgedRoot)
				} else {
					fr := e.judgeRendered(t.renderer, results[i])
					judged[i] = judgedRoot{judged: fr, placed: e.locateAll(t, results[i], fr.own)}
				}
				if t.alone[results[i].Root] {
					// What the root that lists it adds is not known:
					// its application is not read whole.
					judged[i].judged.unreadApp = analysis.AppID{Dir: results[i].Root.Dir}
				}
			}
		})
		r.done <- renderedRoots{results, judged}
	}()
	return r
}

// judgeRendered runs the object rules over the objects of a rendered root
// and returns them as a pseudo-file: its own findings (not placed yet) and
// what the cross-resource rules need, with the root's directory as the
// application, as Argo CD and Flux name it (their path).
func (e *Engine) judgeRendered(rd *render.Renderer, r *render.Result) *FileResult {
	objs := make([]*manifest.Object, len(r.Objects))
	for i, o := range r.Objects {
		objs[i] = &manifest.Object{Resource: o.Resource, File: r.Root.Key(), Doc: i, Node: o.Node, Item: -1, Root: r.Root.Key()}
	}
	jsonPatch := func(doc int, path string) *yaml.Node {
		p, err := render.ParsePath(path)
		if err != nil {
			return nil
		}
		if l := rd.Locate(r, r.Objects[doc], p); l.Source == render.FromJSONPatch {
			return l.Value
		}
		return nil
	}
	fr := &FileResult{own: e.checkObjects(objs, nil, jsonPatch)}
	for _, obj := range objs {
		e.observe(fr, obj, objectKey{obj.Doc, -1}, analysis.AppID{Dir: r.Root.Dir, Variant: variantOf(r.Root)})
	}
	return fr
}

// variantOf names root's variant for its AppID: "" for a root as written.
func variantOf(root *render.Kustomization) string {
	if root.Argo == nil {
		return ""
	}
	return root.Argo.Key
}
