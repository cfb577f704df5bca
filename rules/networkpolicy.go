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
	Targets:  analysis.Objects,
	Cross:    analysis.Summaries(summarizeNetworkPolicyPods, finishNetworkPolicyPods),
	Scope:    analysis.Repository,
})

// networkPolicyPodsSummary is a NetworkPolicy's pod selectors, or what an
// object says of the pods of its namespace.
type networkPolicyPodsSummary struct {
	// Never nil; a workload's is shared (podMakersOf).
	Part      *servicePodsSummary
	Selectors []policySelector
}

// policySelector is one pod selector of a policy and what it does.
type policySelector struct {
	Sel  *selectingService
	Kind selectorKind
}

var (
	policyApplies = selectorKind{Name: "NetworkPolicy", Consequence: "applies to no pod", NeedsIntent: true}
	policyAdmits  = selectorKind{Name: "NetworkPolicy", Consequence: "admits no pod through this peer", NeedsIntent: true}
)

func summarizeNetworkPolicyPods(p *analysis.Pass) (networkPolicyPodsSummary, bool) {
	obj := p.Object
	if obj.Kind != "NetworkPolicy" || obj.Group() != "networking.k8s.io" {
		m := podMakersOf(p)
		return networkPolicyPodsSummary{Part: m}, m != nil
	}
	s := networkPolicyPodsSummary{Part: &servicePodsSummary{NS: obj.EffectiveNamespace()}}
	spec := manifest.MapGet(obj.Node, "spec")
	if sel := equalitySelector(p, manifest.MapGet(spec, "podSelector"), "spec.podSelector"); sel != nil {
		s.Selectors = append(s.Selectors, policySelector{sel, policyApplies})
	}
	for _, dir := range [][2]string{{"ingress", "from"}, {"egress", "to"}} {
		for i, rule := range items(manifest.MapGet(spec, dir[0])) {
			for j, peer := range items(manifest.MapGet(rule, dir[1])) {
				if manifest.MapGet(peer, "namespaceSelector") != nil {
					continue // pods of other namespaces
				}
				at := fmt.Sprintf("spec.%s[%d].%s[%d].podSelector", dir[0], i, dir[1], j)
				if sel := equalitySelector(p, manifest.MapGet(peer, "podSelector"), at); sel != nil {
					s.Selectors = append(s.Selectors, policySelector{sel, policyAdmits})
				}
			}
		}
	}
	return s, len(s.Selectors) > 0
}

func finishNetworkPolicyPods(p *analysis.CrossPass, summaries []networkPolicyPodsSummary) {
	ev := gatherSelectionEvidence(p, len(summaries), func(i int) selectionPart {
		return summaries[i].Part.selection()
	})
	for i, s := range summaries {
		if len(s.Selectors) == 0 || p.Unread(p.Application(i)) {
			continue
		}
		for _, ps := range s.Selectors {
			if f, ok := ev.judge(p.Application(i), s.Part.NS, ps.Sel, ps.Kind); ok {
				p.Report(f)
			}
		}
	}
}
