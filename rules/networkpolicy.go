package rules

import (
	"fmt"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

var networkPolicyNoMatchingPods = Register(&analysis.Rule{
	ID:       "networkpolicy-no-matching-pods",
	Severity: analysis.Warning,
	Summary:  "A NetworkPolicy's podSelector selects labels that no pod template in its namespace carries",
	Doc: `A NetworkPolicy applies to the pods of its namespace that its ` + "`spec.podSelector`" + `
matches, and an ingress ` + "`from`" + ` or egress ` + "`to`" + ` peer with a ` + "`podSelector`" + ` alone
admits the pods of the policy's namespace it matches. When no pod carries the
selector, the policy silently applies to nothing (the pods it was meant to isolate
stay open) or the peer admits nobody (the traffic it was meant to allow is
dropped). The usual cause is a label renamed in the pod template but not in the
policy, or a misspelt value.

The pods are found as ` + "`service-no-matching-pods`" + ` finds them, in the rendered objects
of the policy's application, and each selector is judged with the same evidence. The
finding points at the selector entry to blame and names the template that comes
closest.

Not reported:

- a selector that is ` + "`{}`" + ` (every pod of the namespace), or that has a
  ` + "`matchExpressions`" + ` entry other than ` + "`In`" + ` with one value (what it matches
  depends on pods the repository does not show);
- a peer with a ` + "`namespaceSelector`" + ` beside its ` + "`podSelector`" + `: it selects pods of
  other namespaces, which other applications make;
- a policy whose application makes no pods in its namespace (policies for a Helm
  release, an operator's pods, another repository's workloads), unless the
  application's pods in another namespace carry the selector: then the namespace is
  reported;
- a selector that a template of its application carries but for some entries, when
  something may give the pods those labels at run time: a Role (in that namespace)
  or ClusterRole of the application that may patch or update pods, a custom
  resource of a kind shipshape does not know in that namespace, or a known
  operator's run-time label (minio's ` + "`operator: leader`" + `); CustomResourceDefinitions
  alone are no such evidence;
- a selector that shares less than half of its entries with every template of its
  application (a value carried under another key counts: a renamed label), unless a
  template carries it but for one entry misspelt: nothing says it was meant for the
  pods the repository shows (a peer is often another install's pods: a Helm
  release's Prometheus, an operator's); this holds in ` + "`kube-system`" + ` too, where
  the cluster makes pods no repository holds;
- a policy in a file of a kustomize root that did not render, or beside a file
  skipped as a template: what they make is unknown.`,
	Bad: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
        - name: api
          image: example/api:1.0
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: api
spec:
  podSelector:
    matchLabels:
      app: apii
  policyTypes: [Ingress]
`,
	Good: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
        - name: api
          image: example/api:1.0
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: api
spec:
  podSelector:
    matchLabels:
      app: api
  policyTypes: [Ingress]
`,
	Cross: analysis.Summaries(summarizeNetworkPolicyPods, finishNetworkPolicyPods),
	Scope: analysis.Repository,
})

// networkPolicyPodsSummary is a NetworkPolicy's pod selectors, or what an
// object says of the pods of its namespace.
type networkPolicyPodsSummary struct {
	servicePodsSummary
	selectors []policySelector
}

// policySelector is one pod selector of a policy and what it does.
type policySelector struct {
	sel  *selectingService
	kind selectorKind
}

var (
	policyApplies = selectorKind{name: "NetworkPolicy", consequence: "applies to no pod", needsIntent: true}
	policyAdmits  = selectorKind{name: "NetworkPolicy", consequence: "admits no pod through this peer", needsIntent: true}
)

func summarizeNetworkPolicyPods(p *analysis.Pass) (networkPolicyPodsSummary, bool) {
	obj := p.Object
	s := networkPolicyPodsSummary{servicePodsSummary: servicePodsSummary{ns: obj.EffectiveNamespace()}}
	if obj.Kind != "NetworkPolicy" || obj.Group() != "networking.k8s.io" {
		return s, summarizeMakers(p, &s.servicePodsSummary)
	}
	spec := manifest.MapGet(obj.Node, "spec")
	if sel := equalitySelector(p, manifest.MapGet(spec, "podSelector"), "spec.podSelector"); sel != nil {
		s.selectors = append(s.selectors, policySelector{sel, policyApplies})
	}
	for _, dir := range [][2]string{{"ingress", "from"}, {"egress", "to"}} {
		for i, rule := range items(manifest.MapGet(spec, dir[0])) {
			for j, peer := range items(manifest.MapGet(rule, dir[1])) {
				if manifest.MapGet(peer, "namespaceSelector") != nil {
					continue // pods of other namespaces
				}
				at := fmt.Sprintf("spec.%s[%d].%s[%d].podSelector", dir[0], i, dir[1], j)
				if sel := equalitySelector(p, manifest.MapGet(peer, "podSelector"), at); sel != nil {
					s.selectors = append(s.selectors, policySelector{sel, policyAdmits})
				}
			}
		}
	}
	return s, len(s.selectors) > 0
}

func finishNetworkPolicyPods(p *analysis.CrossPass, summaries []networkPolicyPodsSummary) {
	ev := gatherSelectionEvidence(p, len(summaries), func(i int) selectionPart {
		s := summaries[i]
		return selectionPart{ns: s.ns, pods: s.pods, unknown: s.unknown, relabel: s.relabel}
	})
	for i, s := range summaries {
		if len(s.selectors) == 0 || p.Unread(p.Application(i)) {
			continue
		}
		for _, ps := range s.selectors {
			if f, ok := ev.judge(p.Application(i), s.ns, ps.sel, ps.kind); ok {
				p.Report(f)
			}
		}
	}
}
