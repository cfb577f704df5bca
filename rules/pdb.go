package rules

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/selector"
)

var pdbNoMatchingPods = Register(&analysis.Rule{
	ID:       "pdb-no-matching-pods",
	Severity: analysis.Warning,
	Summary:  "A PodDisruptionBudget selects labels that no pod template in its namespace carries",
	Doc: `A PodDisruptionBudget keeps voluntary evictions (a node drain, the cluster
autoscaler) from taking too many of the pods its selector matches. When no pod
carries the selector, the budget guards nothing: a drain evicts every replica at
once, and nobody is told. The usual cause is a label renamed in the pod template
(by an overlay or a component) but not in the budget, or an entry added to the
budget that the pods lack.

The pods are found as ` + "`service-no-matching-pods`" + ` finds them (built-in workloads,
LeaderWorkerSet, Argo Rollouts, DeploymentConfig, with the labels their controllers
add), in the rendered objects of the budget's application, and the budget is judged
with the same evidence. The finding points at the selector entry to blame and names
the template that comes closest.

Not reported:

- a budget whose selector is ` + "`{}`" + ` (every pod of the namespace) or absent, or that
  has a ` + "`matchExpressions`" + ` entry other than ` + "`In`" + ` with one value (what it matches
  depends on pods the repository does not show);
- a budget whose application makes no pods in its namespace (the pods come from a
  Helm release, an operator, another repository), unless the application's pods in
  another namespace carry the selector: then the namespace is reported;
- a budget that a template of its application carries but for some entries, when
  something may give the pods those labels at run time: a Role (in that namespace)
  or ClusterRole of the application that may patch or update pods, a custom
  resource of a kind shipshape does not know in that namespace (its operator may
  make the pods), or a known operator's run-time label (minio's ` + "`operator: leader`" + `);
  CustomResourceDefinitions alone are no such evidence;
- a budget that shares less than half of its entries with every template of its
  application (a value carried under another key counts: a renamed label), unless a
  template carries it but for one entry misspelt: nothing says it was meant for the
  pods the repository shows (budgets for a Helm release's pods, or an operator's,
  beside the application's own); this holds in ` + "`kube-system`" + ` too, where the
  cluster makes pods no repository holds;
- a budget in a file of a kustomize root that did not render, or beside a file
  skipped as a template: what they make is unknown.`,
	Bad: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app.kubernetes.io/name: storefront}
  template:
    metadata:
      labels: {app.kubernetes.io/name: storefront}
    spec:
      containers:
        - name: web
          image: nginx:1.27
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: 2
  selector:
    matchLabels:
      app: storefront
`,
	Good: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app.kubernetes.io/name: storefront}
  template:
    metadata:
      labels: {app.kubernetes.io/name: storefront}
    spec:
      containers:
        - name: web
          image: nginx:1.27
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: storefront
`,
	Cross: analysis.Summaries(summarizePDBPods, finishPDBPods),
	Scope: analysis.Repository,
})

func summarizePDBPods(p *analysis.Pass) (servicePodsSummary, bool) {
	obj := p.Object
	s := servicePodsSummary{ns: obj.EffectiveNamespace()}
	if obj.Kind == "PodDisruptionBudget" && obj.Group() == "policy" {
		sel := manifest.Path(obj.Node, "spec", "selector")
		s.svc = equalitySelector(p, sel, "spec.selector")
		return s, s.svc != nil
	}
	return s, summarizeMakers(p, &s)
}

// equalitySelector reads the label selector n, at the dotted path at of
// its object, as equalities, or nil when it is empty, has a problem, or
// holds an expression other than In with one value.
func equalitySelector(p *analysis.Pass, n *yaml.Node, at string) *selectingService {
	parsed, problems := selector.FromLabelSelector(n)
	if parsed == nil || parsed.Empty || len(problems) > 0 {
		return nil
	}
	obj := p.Object
	pdb := &selectingService{name: obj.Name, selector: map[string]string{}, explicitNS: obj.Namespace != ""}
	for _, r := range parsed.Requirements {
		if r.Op != selector.In || len(r.Values) != 1 || r.Node == nil {
			return nil
		}
		if placeholder(r.Values[0]) {
			continue // filled in before the apply: any pod may carry it
		}
		if _, twice := pdb.selector[r.Key]; twice {
			return nil
		}
		pdb.selector[r.Key] = r.Values[0]
		// Report at a matchLabels key, as for a Service; an expression at
		// its item.
		node, field := r.Node, at+"."+r.Path
		if strings.HasPrefix(r.Path, "matchLabels.") {
			if k, _ := manifest.MapEntry(manifest.MapGet(n, "matchLabels"), r.Key); k != nil {
				node, field = k, at+"."+manifest.Keys("matchLabels", r.Key).String()
			}
		}
		pdb.entries = append(pdb.entries, entryAt{r.Key, node.Line, node.Column, field})
		if len(pdb.entries) == 1 {
			pdb.at = p.Finding(node, "", nil, "")
		}
	}
	if len(pdb.entries) == 0 {
		return nil
	}
	for k, v := range obj.SelectorLabels {
		pdb.selector[k] = v // commonLabels: kustomize adds them to the budget's matchLabels too
	}
	pdb.nsAt = namespaceFinding(p, pdb.at)
	return pdb
}

func finishPDBPods(p *analysis.CrossPass, summaries []servicePodsSummary) {
	ev := gatherSelectionEvidence(p, len(summaries), func(i int) selectionPart {
		s := summaries[i]
		return selectionPart{ns: s.ns, pods: s.pods, unknown: s.unknown, relabel: s.relabel}
	})
	for i, s := range summaries {
		if s.svc == nil || p.Unread(p.Application(i)) {
			continue
		}
		if f, ok := ev.judge(p.Application(i), s.ns, s.svc, pdbSelects); ok {
			p.Report(f)
		}
	}
}
