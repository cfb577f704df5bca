package engine

import (
	"fmt"
	"path/filepath"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// Findings on the objects of a kustomization's helmCharts (rendered by
// internal/render with helmrender, then transformed by kustomize): a
// value a kustomization field or a patch set is placed there, as for any
// rendered object (render.Locate); a value the chart rendered is placed as
// a local chart's is (placeChart): at the values line it came from
// (valuesInline in the kustomization, the valuesFile, an additional
// values file, or the chart's values.yaml), else at the template line
// that writes it, else at the template.

// viaKustomize stands for a chart a kustomization's helmCharts renders:
// not an application of its own (renderCharts).
var viaKustomize = &chartApp{}

// locateHelmCharts locates f, about the rendered object o of res whose field
// loc (a render.FromHelm location) says a helmCharts chart rendered.
func (e *Engine) locateHelmCharts(t *renderState, res *render.Result, o *render.Object, f analysis.Finding, loc render.Location) (placedFinding, bool) {
	out, ok := t.renderer.IsHelmOutput(loc.File)
	if !ok || loc.Doc < 0 || loc.Doc >= len(out.Docs) {
		return placedFinding{}, false
	}
	d := out.Docs[loc.Doc]
	hc, chart := out.Charts[d.Chart], out.Results[d.Chart]
	namespace := hc.Namespace
	if namespace == "" {
		namespace = chartNamespace
	}
	app := &chartApp{dir: hc.ChartDir, chartFile: filepath.Join(hc.ChartDir, "Chart.yaml"), release: hc.Release, namespace: namespace,
		key: res.Root.File, res: chart,
		valuesNote: fmt.Sprintf("the values of helmCharts entry %q in %s, kustomize root %s", hc.Spec.Name, t.show(hc.Kust.File), t.show(res.Root.Dir))}
	g := f
	g.Doc, g.Field = d.Object, loc.Path.String()
	// At the key or at the value, as f is in the rendered object.
	g.Line, g.Column = 0, 0
	p, err := render.ParsePath(f.Field)
	if err == nil {
		k, v := p.Get(o.Node)
		hk, hv := loc.Path.Get(chart.Objects[d.Object].Node)
		if v != nil && hv != nil {
			made := k != nil && k.Line == v.Line && k.Column == v.Column
			switch {
			case f.Line == v.Line && f.Column == v.Column && !made || hk == nil:
				g.Line, g.Column = hv.Line, hv.Column
			default:
				g.Line, g.Column = hk.Line, hk.Column
			}
		}
	}
	return placedFinding{Finding: g, Root: t.variantName(res.Root), chart: app}, true
}
