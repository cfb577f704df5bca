package rules

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

var notRendered = Register(&analysis.Rule{
	ID:       "not-rendered",
	Severity: analysis.Info,
	Summary:  "An application whose objects shipshape does not render: a Helm release, an ApplicationSet, a jsonnet or plugin source",
	Targets:  analysis.Objects,
	Check:    checkNotRendered,
})

// checkNotRendered reports the applications an object defines that no
// rule sees the objects of.
func checkNotRendered(p *analysis.Pass) {
	o := p.Object
	switch o.Resource.Group() + "/" + o.Resource.Kind {
	case "helm.toolkit.fluxcd.io/HelmRelease":
		reportHelmRelease(p, o)
	case "argoproj.io/Application":
		if src := manifest.Path(o.Node, "spec", "source"); src != nil {
			reportArgoSource(p, src, "spec.source")
		}
		if srcs := manifest.Path(o.Node, "spec", "sources"); srcs != nil && srcs.Kind == yaml.SequenceNode {
			for i, src := range srcs.Content {
				reportArgoSource(p, src, fmt.Sprintf("spec.sources[%d]", i))
			}
		}
	case "argoproj.io/ApplicationSet":
		n, path := firstOf(o.Node, "spec.generators", "spec", "generators")
		reportUnrendered(p, n, path, analysis.GeneratedApps, "the Applications its generators make in the cluster are not rendered, so no rule judges their objects")
	}
}

// reportHelmRelease reports a Flux HelmRelease, at the chart it names.
func reportHelmRelease(p *analysis.Pass, o *manifest.Object) {
	chart := manifest.ScalarValue(manifest.Path(o.Node, "spec", "chart", "spec", "chart"))
	from := ""
	if ref := manifest.Path(o.Node, "spec", "chart", "spec", "sourceRef"); ref != nil {
		from = sourceName(ref)
	} else if ref := manifest.Path(o.Node, "spec", "chartRef"); ref != nil {
		from = sourceName(ref)
	}
	what := "its chart"
	switch {
	case chart != "" && from != "":
		what = fmt.Sprintf("chart %q from %s", chart, from)
	case chart != "":
		what = fmt.Sprintf("chart %q", chart)
	case from != "":
		what = "the chart of " + from
	}
	n, path := firstOf(o.Node, "spec.chart.spec.chart", "spec", "chart", "spec", "chart")
	if manifest.Path(o.Node, "spec", "chart") == nil {
		n, path = firstOf(o.Node, "spec.chartRef", "spec", "chartRef")
	}
	reportUnrendered(p, n, path, analysis.HelmRelease, "%s is not rendered: shipshape renders a release only when its chart is a directory of this repository (a GitRepository path), an archive of that exact version in --charts DIR, or fetched with --fetch-charts, and its valuesFrom are found here; no rule judges the objects it installs (helm template … | shipshape lint -)", what)
}

// reportArgoSource reports an Argo CD Application's source that a tool
// renders at sync time: a Helm chart, jsonnet or a plugin. A plain
// directory or a kustomization is rendered where shipshape finds it.
func reportArgoSource(p *analysis.Pass, src *yaml.Node, path string) {
	if src.Kind != yaml.MappingNode {
		return
	}
	switch {
	case manifest.Path(src, "chart") != nil:
		n := manifest.Path(src, "chart")
		reportUnrendered(p, n, path+".chart", analysis.HelmRelease, "chart %q is not rendered: shipshape renders a chart of a chart repository only from an archive of that exact version in --charts DIR, or fetched with --fetch-charts; no rule judges the objects it installs (helm template … | shipshape lint -)", manifest.ScalarValue(n))
	case manifest.Path(src, "helm") != nil:
		reportUnrendered(p, entryKey(manifest.MapEntry(src, "helm")), path+".helm", analysis.HelmRelease, "the Helm chart at %q is not rendered with this Application's values: shipshape renders it only when the path is a chart directory of this repository and its value files are there; no rule judges the objects this release installs (helm template … | shipshape lint -)", manifest.ScalarValue(manifest.Path(src, "path")))
	case manifest.Path(src, "plugin") != nil:
		reportUnrendered(p, entryKey(manifest.MapEntry(src, "plugin")), path+".plugin", analysis.ToolSource, "its source is rendered by a config management plugin at sync time, which shipshape does not run; no rule judges its objects")
	case manifest.Path(src, "directory", "jsonnet") != nil:
		reportUnrendered(p, entryKey(manifest.MapEntry(manifest.Path(src, "directory"), "jsonnet")), path+".directory.jsonnet", analysis.ToolSource, "its source is jsonnet, rendered at sync time, which shipshape does not evaluate; no rule judges its objects")
	}
}

// sourceName is "HelmRepository podinfo" for a sourceRef or chartRef.
func sourceName(ref *yaml.Node) string {
	kind, name := manifest.ScalarValue(manifest.Path(ref, "kind")), manifest.ScalarValue(manifest.Path(ref, "name"))
	if kind == "" || name == "" {
		return ""
	}
	return kind + " " + name
}

// firstOf is where a finding about the field at steps of n sits: a
// scalar value, or the key of a mapping or list; n's kind when the object
// lacks the field.
func firstOf(n *yaml.Node, path string, steps ...string) (*yaml.Node, string) {
	last := len(steps) - 1
	k, v := manifest.MapEntry(manifest.Path(n, steps[:last]...), steps[last])
	switch {
	case v == nil:
		return manifest.Path(n, "kind"), "kind"
	case v.Kind == yaml.ScalarNode:
		return v, path
	}
	return k, path
}

// entryKey is the key of a mapping entry: a finding about a whole value sits
// at its key.
func entryKey(k, _ *yaml.Node) *yaml.Node { return k }

func reportUnrendered(p *analysis.Pass, n *yaml.Node, path string, kind analysis.Unrendered, format string, args ...any) {
	f := p.Finding(n, path, nil, format, args...)
	f.Unrendered = kind
	p.ReportFinding(f)
}
