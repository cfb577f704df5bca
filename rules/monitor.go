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
	servicePodsSummary
	service *pods // a Service's metadata.labels
	monitor *selectingService
	// selectsServices: a ServiceMonitor, not a PodMonitor.
	selectsServices bool
}

var (
	serviceMonitorSelects = selectorKind{name: "ServiceMonitor", consequence: "scrapes nothing", selects: "Service", needsIntent: true}
	podMonitorSelects     = selectorKind{name: "PodMonitor", consequence: "scrapes nothing", needsIntent: true}
)

func summarizeMonitor(p *analysis.Pass) (monitorSummary, bool) {
	obj := p.Object
	s := monitorSummary{servicePodsSummary: servicePodsSummary{ns: obj.EffectiveNamespace()}}
	switch {
	case isService(obj):
		labels := selector.Labels(manifest.Path(obj.Node, "metadata", "labels"))
		if labels == nil {
			labels = map[string]string{}
		}
		s.service = &pods{owner: "Service/" + obj.Name, ns: s.ns, fixed: labels, varying: noLabels}
		return s, true
	case (obj.Kind == "ServiceMonitor" || obj.Kind == "PodMonitor") && obj.Group() == "monitoring.coreos.com":
		spec := manifest.MapGet(obj.Node, "spec")
		nsSel := manifest.MapGet(spec, "namespaceSelector")
		names := items(manifest.MapGet(nsSel, "matchNames"))
		switch {
		case manifest.ScalarValue(manifest.MapGet(nsSel, "any")) == "true" || len(names) > 1:
			return s, false // targets anywhere
		case len(names) == 1:
			s.ns = manifest.ScalarValue(names[0])
		}
		s.monitor = equalitySelector(p, manifest.MapGet(spec, "selector"), "spec.selector")
		if s.monitor == nil || s.ns == "" || placeholder(s.ns) {
			return s, false
		}
		// Looking in another namespace, the monitor's own is no mistake.
		s.monitor.explicitNS = s.monitor.explicitNS && len(names) == 0
		s.selectsServices = obj.Kind == "ServiceMonitor"
		return s, true
	}
	return s, summarizeMakers(p, &s.servicePodsSummary)
}

func finishMonitor(p *analysis.CrossPass, summaries []monitorSummary) {
	forPods := gatherSelectionEvidence(p, len(summaries), func(i int) selectionPart {
		s := summaries[i]
		return selectionPart{ns: s.ns, pods: s.pods, unknown: s.unknown, relabel: s.relabel}
	})
	// Services stand for the pods of the evidence; a role that may patch
	// pods says nothing of Services' labels.
	services := gatherSelectionEvidence(p, len(summaries), func(i int) selectionPart {
		s := summaries[i]
		part := selectionPart{ns: s.ns, unknown: s.unknown}
		if s.service != nil {
			part.pods = []*pods{s.service}
		}
		return part
	})
	for i, s := range summaries {
		if s.monitor == nil || p.Unread(p.Application(i)) {
			continue
		}
		ev, kind := forPods, podMonitorSelects
		if s.selectsServices {
			ev, kind = services, serviceMonitorSelects
		}
		if f, ok := ev.judge(p.Application(i), s.ns, s.monitor, kind); ok {
			p.Report(f)
		}
	}
}
