package rules

// The two transitions of the container.training DaemonSet story, as a
// GitOps user commits them: rng.yaml turned from a Deployment into a
// DaemonSet (the Deployment keeps running when nothing prunes it), and
// `active: "yes"` added to the Service selector in the same change as to
// the pod template (the Service selects only the pods already replaced).

import (
	"fmt"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/selector"
)

var changeOldControllerKept = Register(&analysis.Rule{
	ID:       "change-old-controller-kept",
	Severity: analysis.Warning,
	Summary:  "A workload the change removes keeps running beside the one that now selects its pods, because nothing prunes it",
	Targets:  analysis.Changes,
	Change:   checkOldControllerKept,
})

func checkOldControllerKept(p *analysis.ChangePass) {
	if p.Applier.Prune {
		return
	}
	for _, old := range removedObjects(p) {
		if !isPodController(old) {
			continue
		}
		for _, h := range p.Head {
			if !isPodController(h) || !sameNamespace(h, old) {
				continue
			}
			labels, ok := selectsPodsOf(controllerSelector(h), old)
			if !ok {
				continue
			}
			if b := p.BaseOf(h); b != nil {
				if _, before := selectsPodsOf(controllerSelector(b), old); before {
					continue // it selected them at the base already: not this change's doing
				}
			}
			n, path, how := nameNode(h), "metadata.name", "is gone from head"
			if h.Name == old.Name {
				n, path, how = kindNode(h), "kind", "becomes "+objectLabel(h)+" under the same name"
			}
			p.Report(h, n, path, nil,
				"%s %s, but with %s nothing deletes it: it keeps running its pods (%s) beside %s, which selects them too: one too many pods, two controllers behind the Services that select them; delete %s in this change (%s), or prune",
				objectLabel(old), how, noPrune(p.Applier), formatLabels(labels), objectLabel(h), objectLabel(old), kubectlDelete(old))
			break
		}
	}
}

// kubectlDelete is the command that deletes obj.
func kubectlDelete(obj *manifest.Object) string {
	cmd := "kubectl delete " + strings.ToLower(obj.Kind) + " " + obj.Name
	if obj.Namespace != "" {
		cmd += " -n " + obj.Namespace
	}
	return cmd
}

var changeSelectorWithLabel = Register(&analysis.Rule{
	ID:       "change-selector-with-label",
	Severity: analysis.Warning,
	Summary:  "A Service selector entry is added in the same change as the pod label it needs",
	Targets:  analysis.Changes,
	Change:   checkSelectorWithLabel,
})

func checkSelectorWithLabel(p *analysis.ChangePass) {
	for _, svc := range p.Head {
		base := p.BaseOf(svc)
		if base == nil || !isSelectingService(svc) || !isSelectingService(base) {
			continue
		}
		selNode := manifest.Path(svc.Node, "spec", "selector")
		headSel, _ := selector.FromMap(selNode)
		baseSel, _ := selector.FromMap(manifest.Path(base.Node, "spec", "selector"))
		if headSel == nil || headSel.Empty || baseSel == nil || baseSel.Empty {
			continue
		}
		baseLabels := selector.Labels(manifest.Path(base.Node, "spec", "selector"))
		for i := 0; i+1 < len(selNode.Content); i += 2 {
			k, v := selNode.Content[i].Value, manifest.ScalarValue(selNode.Content[i+1])
			if bv, had := baseLabels[k]; had && bv == v {
				continue
			}
			w, was := servedWorkloadGainingLabel(p, svc, headSel, baseSel, k, v)
			if w == nil || anyBasePodCarries(p, svc, k, v) {
				continue
			}
			gap := labelGap(p, w, was)
			p.Report(svc, selNode.Content[i+1], "spec.selector."+k, nil,
				"selector entry %s=%s of %s is added in the same change as the label on the pods of %s, which no pod at the base carries: %s; add the label to the pod template in one change and the selector entry in a later one",
				k, v, objectLabel(svc), objectLabel(w), gap)
		}
	}
}

// isSelectingService is a Service that gets its endpoints from a selector.
func isSelectingService(obj *manifest.Object) bool {
	return obj.Kind == "Service" && obj.Group() == "" &&
		manifest.ScalarValue(manifest.Path(obj.Node, "spec", "type")) != "ExternalName"
}

// servedWorkloadGainingLabel is a workload whose pods the Service served
// at the base and whose pod template gains k=v in this change: the pods
// that lose the Service's endpoints until they are replaced. was is the
// base's workload those pods belong to: w's own base, or, when the change
// turns a workload into another kind under the same name, the removed one.
func servedWorkloadGainingLabel(p *analysis.ChangePass, svc *manifest.Object, headSel, baseSel *selector.Selector, k, v string) (w, was *manifest.Object) {
	removed := removedObjects(p)
	for _, w := range p.Head {
		if !sameNamespace(w, svc) || !templateGains(w, headSel, k, v) {
			continue
		}
		for _, wb := range baseWorkloadsOf(p, w, removed) {
			if _, served := selectsPodsOf(baseSel, wb); served {
				return w, wb
			}
		}
	}
	return nil, nil
}

// templateGains reports whether a pod template of w carries k=v and is
// selected by the head's selector.
func templateGains(w *manifest.Object, headSel *selector.Selector, k, v string) bool {
	for _, l := range templateLabels(w) {
		if got, has := l[k]; has && got == v {
			if ok, _ := headSel.Matches(l); ok {
				return true
			}
		}
	}
	return false
}

// baseWorkloadsOf is what ran w's pods at the base: w itself, else the
// pod controllers of w's name and namespace that the change removes (a
// Deployment turned into a DaemonSet).
func baseWorkloadsOf(p *analysis.ChangePass, w *manifest.Object, removed []*manifest.Object) []*manifest.Object {
	if wb := p.BaseOf(w); wb != nil {
		return []*manifest.Object{wb}
	}
	if !isPodController(w) {
		return nil
	}
	var out []*manifest.Object
	for _, r := range removed {
		if r.Name == w.Name && sameNamespace(r, w) && isPodController(r) {
			out = append(out, r)
		}
	}
	return out
}

// labelGap says how long the Service selects none or few of the pods.
func labelGap(p *analysis.ChangePass, w, was *manifest.Object) string {
	if p.BaseOf(w) == nil {
		return fmt.Sprintf("%s is replaced by %s in this change, so from the moment the Service is updated it selects none of the running pods, and %s's pods only as they start", objectLabel(was), objectLabel(w), objectLabel(w))
	}
	if r := refusedAtApply(was, w); len(r) > 0 {
		return fmt.Sprintf("the API server refuses the update of %s (%s: %s), so its pods never get the label and the Service selects none of them", objectLabel(w), r[0].Path, r[0].Reason)
	}
	return fmt.Sprintf("the Service is updated at once but the pods get the label only as %s, so until then it selects only the pods already replaced, none at first", rolloutPace(w))
}

// anyBasePodCarries reports whether a pod template at the base, in the
// Service's namespace, already carries k=v: then pods with the label run
// when the selector changes.
func anyBasePodCarries(p *analysis.ChangePass, svc *manifest.Object, k, v string) bool {
	for _, b := range p.Base {
		if !sameNamespace(b, svc) {
			continue
		}
		for _, l := range templateLabels(b) {
			if got, has := l[k]; has && got == v {
				return true
			}
		}
	}
	return false
}

// rolloutPace says how a workload's pods are replaced after a template
// change.
func rolloutPace(w *manifest.Object) string {
	switch w.Kind {
	case "DaemonSet":
		return fmt.Sprintf("%s replaces them, one node at a time by default", objectLabel(w))
	case "StatefulSet":
		return fmt.Sprintf("%s replaces them, one pod at a time", objectLabel(w))
	case "Deployment":
		return fmt.Sprintf("%s rolls out (maxSurge, maxUnavailable)", objectLabel(w))
	case "ReplicaSet", "ReplicationController":
		return fmt.Sprintf("pods are created anew: %s does not replace its running pods when its template changes", objectLabel(w))
	}
	return fmt.Sprintf("%s's pods are replaced", objectLabel(w))
}
