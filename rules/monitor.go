package rules

import (
	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/selector"
)

var monitorSelectsNothing = Register(&analysis.Rule{
	ID:       "monitor-selects-nothing",
	Severity: analysis.Warning,
	Summary:  "A Prometheus ServiceMonitor or PodMonitor selects labels that no Service or pod template carries",
	Targets:  analysis.Objects,
	Cross:    analysis.Summaries(summarizeMonitor, finishMonitor),
	Scope:    analysis.Repository,
})

// monitorSummary is a monitor's selector, a Service's labels (as the
// "pods" a ServiceMonitor selects), or what an object says of the pods of
// its namespace.
type monitorSummary struct {
	// Never nil; a workload's is shared (podMakersOf).
	Part    *servicePodsSummary
	Service *pods // a Service's metadata.labels
	Monitor *selectingService
	// selectsServices: a ServiceMonitor, not a PodMonitor.
	SelectsServices bool
}

var (
	serviceMonitorSelects = selectorKind{Name: "ServiceMonitor", Consequence: "scrapes nothing", Selects: "Service", NeedsIntent: true}
	podMonitorSelects     = selectorKind{Name: "PodMonitor", Consequence: "scrapes nothing", NeedsIntent: true}
)

func summarizeMonitor(p *analysis.Pass) (monitorSummary, bool) {
	obj := p.Object
	s := monitorSummary{Part: &servicePodsSummary{NS: obj.EffectiveNamespace()}}
	switch {
	case isService(obj):
		labels := selector.SetOf(selector.Labels(manifest.Path(obj.Node, "metadata", "labels")))
		s.Service = &pods{Owner: "Service/" + obj.Name, NS: s.Part.NS, Fixed: labels, Varying: noLabels}
		return s, true
	case (obj.Kind == "ServiceMonitor" || obj.Kind == "PodMonitor") && obj.Group() == "monitoring.coreos.com":
		spec := manifest.MapGet(obj.Node, "spec")
		nsSel := manifest.MapGet(spec, "namespaceSelector")
		names := items(manifest.MapGet(nsSel, "matchNames"))
		switch {
		case manifest.ScalarValue(manifest.MapGet(nsSel, "any")) == "true" || len(names) > 1:
			return s, false // targets anywhere
		case len(names) == 1:
			s.Part.NS = manifest.ScalarValue(names[0])
		}
		s.Monitor = equalitySelector(p, manifest.MapGet(spec, "selector"), "spec.selector")
		if s.Monitor == nil || s.Part.NS == "" || placeholder(s.Part.NS) {
			return s, false
		}
		// Looking in another namespace, the monitor's own is no mistake.
		s.Monitor.ExplicitNS = s.Monitor.ExplicitNS && len(names) == 0
		s.SelectsServices = obj.Kind == "ServiceMonitor"
		return s, true
	}
	m := podMakersOf(p)
	return monitorSummary{Part: m}, m != nil
}

func finishMonitor(p *analysis.CrossPass, summaries []monitorSummary) {
	forPods := gatherSelectionEvidence(p, len(summaries), func(i int) selectionPart {
		return summaries[i].Part.selection()
	})
	// Services stand for the pods of the evidence; a role that may patch
	// pods says nothing of Services' labels.
	services := gatherSelectionEvidence(p, len(summaries), func(i int) selectionPart {
		s := summaries[i]
		part := selectionPart{ns: s.Part.NS, unknown: s.Part.unknown()}
		if s.Service != nil {
			part.pods = []*pods{s.Service}
		}
		return part
	})
	for i, s := range summaries {
		if s.Monitor == nil || p.Unread(p.Application(i)) {
			continue
		}
		ev, kind := forPods, podMonitorSelects
		if s.SelectsServices {
			ev, kind = services, serviceMonitorSelects
		}
		if f, ok := ev.judge(p.Application(i), s.Part.NS, s.Monitor, kind); ok {
			p.Report(f)
		}
	}
}
