package engine

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/render"
)

// Roots that did not render: one finding at the entry that stops each
// (render.Problem), naming every root it stops.

// reportProblem reports a root that was not rendered at the entry that
// stops it (or its kustomization): once, naming every root it stops. Its
// files are judged as plain files.
func (e *Engine) reportProblem(t *renderState, files map[string]*FileResult, r *render.Result) {
	for _, also := range r.Problem.Also {
		e.reportProblem(t, files, &render.Result{Root: r.Root, Problem: also})
	}
	fr := t.fileFor(files, r.Problem.File)
	if fr == nil {
		return // read as context for a file named alone: reported when it is
	}
	id := RenderErrorID
	switch {
	case r.Problem.Template:
		id = TemplateID
	case r.Problem.Budget:
		id = RenderBudgetID
	case r.Problem.Refused:
		id = RenderSkippedID
	}
	if !e.Enabled(id) {
		return
	}
	root := t.show(r.Root.Dir)
	for i, g := range fr.Findings {
		if g.Rule == id && g.Line == r.Problem.Line && g.Column == r.Problem.Column {
			if !slices.Contains(g.Roots, root) {
				fr.Findings[i].Roots = append(g.Roots, root)
			}
			return
		}
	}
	msg := t.relPaths(strings.TrimPrefix(r.Problem.Message, "not rendered: "))
	var tails []string // what follows the cause, as room allows (problemText)
	if r.Problem.Hint != "" {
		tails = append(tails, " ("+r.Problem.Hint+")")
	}
	switch {
	case r.Problem.Template:
		tails = append(tails, "; the files only it reads are not judged")
	case !strings.Contains(msg, "judged as written"):
		// Not said at a base's kustomization: it stops several roots,
		// whose bases differ.
		var alone []string
		if k := t.graph.ByDir[filepath.Dir(r.Problem.File)]; k == nil || k == r.Root || k.File != r.Problem.File {
			for _, ref := range r.Root.Refs {
				if t.alone[ref.Target] && !slices.Contains(alone, t.show(ref.Target.Dir)) {
					alone = append(alone, t.show(ref.Target.Dir))
				}
			}
		}
		switch len(alone) {
		case 0:
			tails = append(tails, "; its files are judged as written")
		case 1:
			tails = append(tails, "; "+alone[0]+", which it lists, is rendered on its own, its other files are judged as written")
		default:
			tails = append(tails, "; "+strings.Join(alone, ", ")+", which it lists, are rendered on their own, its other files are judged as written")
		}
	}
	message, detail := problemText(t.relPaths, r.Problem, msg, tails)
	f := e.fileFinding(fr.Input.Path, id, message)
	f.Detail = detail
	f.Line, f.Column, f.Roots = r.Problem.Line, r.Problem.Column, []string{root}
	f.Unrendered = r.Problem.Unrendered
	fr.Findings = append(fr.Findings, f)
}
