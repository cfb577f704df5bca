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
	Doc: `The Prometheus operator turns a ServiceMonitor into scrape targets from the
Services its ` + "`spec.selector`" + ` matches (by their ` + "`metadata.labels`" + `), and a PodMonitor
from the pods its selector matches, in the monitor's namespace unless
` + "`spec.namespaceSelector`" + ` says otherwise. When nothing carries the selector, the
monitor scrapes nothing and no alert says so: the dashboards are empty. The usual
cause is a label the Service or pod template does not carry, or carries renamed.

The Services and pod templates are those of the rendered objects of the whole
repository in the namespace the monitor looks in; a PodMonitor is judged as
` + "`service-no-matching-pods`" + ` judges a Service, with the same evidence, and a
ServiceMonitor likewise against the labels of Services. The finding points at the
selector entry to blame and names the Service or template that comes closest.

Not reported:

- a monitor with ` + "`namespaceSelector.any: true`" + `, or with ` + "`matchNames`" + ` of more than
  one namespace: its targets may be anywhere;
- a selector that is ` + "`{}`" + `, or that has a ` + "`matchExpressions`" + ` entry other than ` + "`In`" + `
  with one value;
- a monitor whose application has no pods (PodMonitor) or Services
  (ServiceMonitor) in the namespace it looks in: they come from a Helm release, an
  operator or another repository (kube-prometheus's kubelet ServiceMonitor selects
  the Service the operator makes in ` + "`kube-system`" + `), unless the application's in
  another namespace carry the selector and the monitor looks in its own namespace:
  then its namespace is reported;
- a selector that a template (or Service) of the application carries but for some
  entries, when something may give them those labels at run time: for a PodMonitor,
  a Role (in that namespace) or ClusterRole of the application that may patch or
  update pods; for both, a custom resource of a kind shipshape does not know in that
  namespace, or a known operator's run-time label (minio's ` + "`operator: leader`" + `);
  CustomResourceDefinitions alone are no such evidence;
- a selector that shares less than half of its entries with every template (or
  Service) of its application (a value carried under another key counts: a renamed
  label), unless one carries it but for one entry misspelt: nothing says it was
  meant for what the repository shows (a Helm release's Services, an operator's:
  ` + "`prometheus-operated`" + `); this holds in ` + "`kube-system`" + ` too;
- a monitor in an application with a file skipped as a template or a kustomize root
  that did not render: its objects are unknown.`,
	Bad: `apiVersion: v1
kind: Service
metadata:
  name: api
  labels: {app.kubernetes.io/name: api}
spec:
  selector: {app.kubernetes.io/name: api}
  ports:
    - name: metrics
      port: 9090
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: api
spec:
  selector:
    matchLabels:
      app.kubernetes.io/name: api
      release: prometheus
  endpoints:
    - port: metrics
`,
	Good: `apiVersion: v1
kind: Service
metadata:
  name: api
  labels: {app.kubernetes.io/name: api}
spec:
  selector: {app.kubernetes.io/name: api}
  ports:
    - name: metrics
      port: 9090
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: api
spec:
  selector:
    matchLabels:
      app.kubernetes.io/name: api
  endpoints:
    - port: metrics
`,
	Cross: analysis.Summaries(summarizeMonitor, finishMonitor),
	Scope: analysis.Repository,
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
	case obj.Kind == "Service" && obj.APIVersion == "v1":
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
