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
	Targets:  analysis.Objects,
	Cross:    analysis.Summaries(summarizePDBPods, finishPDBPods),
	Scope:    analysis.Repository,
})

func summarizePDBPods(p *analysis.Pass) (*servicePodsSummary, bool) {
	obj := p.Object
	if obj.Kind == "PodDisruptionBudget" && obj.Group() == "policy" {
		sel := manifest.Path(obj.Node, "spec", "selector")
		pdb := equalitySelector(p, sel, "spec.selector")
		if pdb == nil {
			return nil, false
		}
		return &servicePodsSummary{NS: obj.EffectiveNamespace(), Other: &servicePodsOther{Svc: pdb}}, true
	}
	m := podMakersOf(p)
	return m, m != nil
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
	pdb := &selectingService{Name: obj.Name, ExplicitNS: obj.Namespace != ""}
	labels := map[string]string{}
	for _, r := range parsed.Requirements {
		if r.Op != selector.In || len(r.Values) != 1 || r.Node == nil {
			return nil
		}
		if placeholder(r.Values[0]) {
			continue // filled in before the apply: any pod may carry it
		}
		if _, twice := labels[r.Key]; twice {
			return nil
		}
		labels[r.Key] = r.Values[0]
		// Report at a matchLabels key, as for a Service; an expression at
		// its item.
		node, field := r.Node, at+"."+r.Path
		if strings.HasPrefix(r.Path, "matchLabels.") {
			if k, _ := manifest.MapEntry(manifest.MapGet(n, "matchLabels"), r.Key); k != nil {
				node, field = k, at+"."+manifest.Keys("matchLabels", r.Key).String()
			}
		}
		pdb.Entries = append(pdb.Entries, entryAt{r.Key, node.Line, node.Column, field})
		if len(pdb.Entries) == 1 {
			pdb.At = p.Locate(node, "")
		}
	}
	if len(pdb.Entries) == 0 {
		return nil
	}
	for k, v := range obj.SelectorLabels {
		labels[k] = v // commonLabels: kustomize adds them to the budget's matchLabels too
	}
	pdb.Selector = selector.SetOf(labels)
	pdb.NsAt = namespaceLocator(p)
	return pdb
}

func finishPDBPods(p *analysis.CrossPass, summaries []*servicePodsSummary) {
	ev := gatherSelectionEvidence(p, len(summaries), func(i int) selectionPart {
		return summaries[i].selection()
	})
	for i, s := range summaries {
		pdb := s.svc()
		if pdb == nil || p.Unread(p.Application(i)) {
			continue
		}
		if f, ok := ev.judge(p.Application(i), s.NS, pdb, pdbSelects); ok {
			p.Report(f)
		}
	}
}
