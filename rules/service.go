package rules

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

var serviceEmptySelector = Register(&analysis.Rule{
	ID:       "service-empty-selector",
	Severity: analysis.Warning,
	Summary:  "A Service has no selector and nothing else manages its endpoints",
	Targets:  analysis.Objects,
	Cross:    analysis.Summaries(summarizeEmptySelector, finishEmptySelector),
	Scope:    analysis.Repository,
})

// emptySelectorSummary is a Service without a selector (At set, What
// saying how), or the name of the Service an Endpoints or EndpointSlice
// serves (managed).
type emptySelectorSummary struct {
	Key     nsName
	Managed bool
	What    string // "no spec.selector", "an empty spec.selector {}"
	At      analysis.Locator
}

func summarizeEmptySelector(p *analysis.Pass) (emptySelectorSummary, bool) {
	obj := p.Object
	ns := obj.EffectiveNamespace()
	switch {
	case obj.Kind == "Endpoints" && obj.APIVersion == "v1":
		return emptySelectorSummary{Key: nsName{ns, obj.Name}, Managed: true}, true
	case obj.Kind == "EndpointSlice" && obj.Group() == "discovery.k8s.io":
		if svc := manifest.ScalarValue(manifest.Path(obj.Node, "metadata", "labels", "kubernetes.io/service-name")); svc != "" {
			return emptySelectorSummary{Key: nsName{ns, svc}, Managed: true}, true
		}
	case isService(obj):
		specKey, spec := manifest.MapEntry(obj.Node, "spec")
		// kustomize's commonLabels create the selector.
		if isExternalName(spec) || len(obj.SelectorLabels) > 0 {
			break
		}
		selKey, sel := manifest.MapEntry(spec, "selector")
		var at *yaml.Node
		var what string
		switch {
		case manifest.IsNull(sel):
			at, what = specKey, "no spec.selector"
			if selKey != nil {
				at = selKey
			}
		case sel.Kind == yaml.MappingNode && len(sel.Content) == 0:
			at, what = selKey, "an empty spec.selector {}"
		default:
			return emptySelectorSummary{}, false
		}
		if at == nil {
			at, _ = manifest.MapEntry(obj.Node, "kind")
		}
		return emptySelectorSummary{Key: nsName{ns, obj.Name}, What: what, At: p.Locate(at, "spec.selector")}, true
	}
	return emptySelectorSummary{}, false
}

func finishEmptySelector(p *analysis.CrossPass, summaries []emptySelectorSummary) {
	managed := map[nsName]bool{}
	for _, s := range summaries {
		if s.Managed {
			managed[s.Key] = true
		}
	}
	for _, s := range summaries {
		if !s.Managed && !managed[s.Key] {
			f := s.At.Finding()
			f.Message = fmt.Sprintf("Service %q has %s and no Endpoints or EndpointSlice for it is in the input: nothing will manage its endpoints (add a selector, or ship the Endpoints)",
				s.Key.Name, s.What)
			p.Report(f)
		}
	}
}
