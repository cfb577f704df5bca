package engine

import (
	"runtime"
	"sync"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// parallelFrom is the number of objects from which a batch's per-object
// rules are shared among all cores (a ResourceList of a whole
// repository); below it, starting goroutines costs more than it saves.
const parallelFrom = 64

// LintObjects runs every enabled rule, cross-resource ones included, over
// objects that did not come from files (a KRM ResourceList, whose item
// index is each object's Doc). Comment suppressions need source text and
// do not apply; annotations do. Findings are by item, then position.
func (e *Engine) LintObjects(objs []*manifest.Object) []analysis.Finding {
	l := e.NewObjectLint()
	l.Add(objs)
	return l.Finish()
}

// ObjectLint is LintObjects batch by batch, for a ResourceList too large
// to hold as one node tree: Add judges a batch by the per-object rules
// and keeps what the cross-resource rules need of it (their summaries),
// never the objects, so the caller can drop each batch's nodes once Add
// returns. Finish then runs the cross-resource rules over every batch's
// summaries. Batches are added in item order; the findings are those
// LintObjects gives for all the objects at once, in the same order.
type ObjectLint struct {
	e *Engine
	// One pseudo-file holds them all, so that finish orders and
	// suppresses as for files.
	fr FileResult
}

// NewObjectLint starts a batched lint of a ResourceList's objects.
func (e *Engine) NewObjectLint() *ObjectLint { return &ObjectLint{e: e} }

// Add runs the per-object rules over objs and records their summaries.
func (l *ObjectLint) Add(objs []*manifest.Object) {
	e := l.e
	var out []analysis.Finding
	if n := runtime.GOMAXPROCS(0); n > 1 && len(objs) >= parallelFrom {
		// Contiguous shares, appended in order: the same findings in the
		// same order as one goroutine would give.
		parts := make([][]analysis.Finding, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				parts[i] = e.checkObjects(objs[i*len(objs)/n:(i+1)*len(objs)/n], nil, nil)
			})
		}
		wg.Wait()
		for _, p := range parts {
			out = append(out, p...)
		}
	} else {
		out = e.checkObjects(objs, nil, nil)
	}
	for _, obj := range objs {
		if obj.Partial {
			continue
		}
		e.observe(&l.fr, obj, objectKey{obj.Doc, obj.Item}, e.application(obj.File))
	}
	for i := range out {
		out[i].Severity = e.severityOf(out[i])
	}
	l.fr.own = append(l.fr.own, out...)
}

// Finish runs the cross-resource rules and returns every finding, by
// item, then position.
func (l *ObjectLint) Finish() []analysis.Finding {
	fr := &l.fr
	l.e.finish(&Result{Files: []*FileResult{fr}}, func(analysis.Finding) *FileResult { return fr })
	SortByItem(fr.Findings)
	return fr.Findings
}
