package rules

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/selector"
)

var workloadSelectorOverlap = Register(&analysis.Rule{
	ID:       "workload-selector-overlap",
	Severity: analysis.Warning,
	Summary:  "Two controllers in one application select the same pods",
	Targets:  analysis.Objects,
	Cross:    analysis.Summaries(summarizeOverlap, finishOverlap),
})

// overlapSummary is a controller: its selector and the pods it makes.
type overlapSummary struct {
	ID       string // Deployment/rng
	NS       string
	Selector *selector.Selector // no nodes kept
	At       analysis.Locator   // at the selector
	Pods     []*pods
	Owner    string // the controller that owns this one (Deployment/web), or ""
	// defaulted is set for a ReplicationController without spec.selector:
	// the API gives it its template's labels.
	Defaulted bool
}

func summarizeOverlap(p *analysis.Pass) (overlapSummary, bool) {
	obj := p.Object
	s := overlapSummary{ID: obj.Kind + "/" + obj.Name, NS: obj.EffectiveNamespace(), Pods: podsOf(p)}
	if len(s.Pods) == 0 || obj.Kind == "Pod" || obj.Kind == "CronJob" {
		return s, false
	}
	spec := manifest.MapGet(obj.Node, "spec")
	if manifest.ScalarValue(manifest.MapGet(spec, "replicas")) == "0" {
		// Scaled to zero (an old controller kept so that applying the
		// release scales it down): it makes no pods, and adopts none
		// that another controller owns.
		return s, false
	}
	selKey, selNode := manifest.MapEntry(spec, "selector")
	var sel *selector.Selector
	switch {
	case isLWS(obj):
		// Its StatefulSets select the pods by the LWS's name.
		sel = &selector.Selector{Requirements: []selector.Requirement{{Key: lwsNameLabel, Op: selector.In, Values: []string{obj.Name}}}}
		selKey, _ = manifest.MapEntry(manifest.MapGet(obj.Node, "metadata"), "name")
	case obj.Kind == "ReplicationController":
		sel, _ = selector.FromMap(selNode)
		if manifest.IsNull(selNode) { // defaults to the template's labels
			var labels *yaml.Node
			selKey, labels = manifest.MapEntry(manifest.Path(spec, "template", "metadata"), "labels")
			sel, _ = selector.FromMap(labels)
			s.Defaulted = true
		}
	case obj.Kind == "Job":
		if manifest.ScalarValue(manifest.MapGet(spec, "manualSelector")) != "true" {
			return s, false
		}
		sel, _ = selector.FromLabelSelector(selNode)
	default:
		sel, _ = selector.FromLabelSelector(selNode)
	}
	// A nil or empty selector is the API's to reject (selector rules).
	if sel == nil || sel.Empty || selKey == nil {
		return s, false
	}
	if len(obj.SelectorLabels) > 0 {
		sel.Requirements = append(sel.Requirements, equalities(obj.SelectorLabels).Requirements...)
	}
	for i := range sel.Requirements {
		sel.Requirements[i].Node = nil
	}
	s.Selector = sel
	field := "spec.selector"
	if s.Defaulted {
		field = "spec.template.metadata.labels"
	}
	s.At = p.Locate(selKey, field)
	s.Owner = controllerOwner(obj)
	return s, true
}

// controllerOwner is the controller named by obj's ownerReferences
// (Kind/name), as a ReplicaSet saved from a cluster names the Deployment
// or Rollout that made it, or "".
func controllerOwner(obj *manifest.Object) string {
	refs := manifest.Path(obj.Node, "metadata", "ownerReferences")
	if refs == nil || refs.Kind != yaml.SequenceNode {
		return ""
	}
	for _, r := range refs.Content {
		if manifest.ScalarValue(manifest.MapGet(r, "controller")) == "true" {
			return manifest.ScalarValue(manifest.MapGet(r, "kind")) + "/" + manifest.ScalarValue(manifest.MapGet(r, "name"))
		}
	}
	return ""
}

// equalities is the selector of labels m.
func equalities(m map[string]string) *selector.Selector {
	s := &selector.Selector{Empty: len(m) == 0}
	for _, k := range sortedKeys(m) {
		s.Requirements = append(s.Requirements, selector.Requirement{Key: k, Op: selector.In, Values: []string{m[k]}})
	}
	return s
}

func finishOverlap(p *analysis.CrossPass, summaries []overlapSummary) {
	// A controller whose selector misses its own template is rejected by
	// the API (selector-template-mismatch says so): it makes no pods.
	var valid []overlapSummary
	for _, s := range summaries {
		for _, pp := range s.Pods {
			if ok, _ := s.Selector.MatchesSet(pp.Fixed); ok {
				valid = append(valid, s)
				break
			}
		}
	}
	summaries = valid
	for i, a := range summaries {
		// One finding per controller, naming every other whose pods it
		// selects: six Deployments on one selector get six, not thirty.
		var others, labels []string
		told := map[string]bool{} // the same object in two files is told once
		for j, b := range summaries {
			if i == j || a.NS != b.NS || a.ID == b.ID || told[b.ID] || a.Owner == b.ID || b.Owner == a.ID {
				continue // the same object, or one made by the other: its pods are the owner's
			}
			for _, pb := range b.Pods {
				if ok, _ := a.Selector.MatchesSet(pb.Fixed); ok {
					others, labels = append(others, b.ID), append(labels, why(a.Selector, pb.Fixed))
					told[b.ID] = true
					break
				}
			}
		}
		if len(others) == 0 {
			continue
		}
		f := a.At.Finding()
		sel := a.Selector.String()
		if a.Defaulted {
			sel += ", taken from its template's labels: it sets no spec.selector"
		}
		if len(others) == 1 {
			// The cause and the fix in the message; why it matters in the
			// detail, for text output's lines to stay short.
			f.Message = fmt.Sprintf("%s's selector (%s) also selects the pods of %s (its template has %s): give each its own label, or delete the one left over",
				a.ID, sel, others[0], labels[0])
			f.Detail = "A Service or PodDisruptionBudget over these labels spans the pods of both" + adopts(a.ID, others) + "."
		} else {
			same := allSame(labels)
			named := slices.Clone(others)
			if !same {
				for k := range named {
					named[k] += " (" + labels[k] + ")"
				}
			}
			list := strings.Join(named, ", ")
			if len(named) > 3 {
				list = strings.Join(named[:3], ", ") + fmt.Sprintf(" and %d more", len(named)-3)
			}
			have := ""
			if same {
				have = " (their templates have " + labels[0] + ")"
			}
			f.Message = fmt.Sprintf("%s's selector (%s) also selects the pods of %s%s: give each its own label, or delete those left over",
				a.ID, sel, list, have)
			f.Detail = "A Service or PodDisruptionBudget over these labels spans the pods of all" + adopts(a.ID, others) + "."
		}
		p.Report(f)
	}
}

// adopts says what controller a does with what the controllers bs make
// when theirs are orphaned (deleted with --cascade=orphan, or an owner
// reference lost): the controllers that own pods adopt orphans their
// selector matches, a Deployment adopts ReplicaSets (which carry the
// labels of their Deployment's template), a StatefulSet only pods named
// after it.
func adopts(a string, bs []string) string {
	ak, _, _ := strings.Cut(a, "/")
	var deployments []string
	for _, b := range bs {
		if bk, _, _ := strings.Cut(b, "/"); bk == "Deployment" {
			deployments = append(deployments, b)
		}
	}
	whose := "their"
	if len(bs) == 1 {
		whose = bs[0] + "'s"
	}
	switch {
	case ak == "ReplicaSet" || ak == "ReplicationController" || ak == "DaemonSet" || ak == "Job":
		return ", and " + a + " adopts " + whose + " pods if they are ever orphaned"
	case ak == "Deployment" && len(deployments) == len(bs):
		return ", and " + a + " adopts " + whose + " ReplicaSets if they are ever orphaned"
	case ak == "Deployment" && len(deployments) > 0:
		return ", and " + a + " adopts the ReplicaSets of " + strings.Join(deployments, ", ") + " if they are ever orphaned"
	}
	return ""
}

// allSame reports whether every string of ss is the first.
func allSame(ss []string) bool {
	for _, s := range ss {
		if s != ss[0] {
			return false
		}
	}
	return true
}

// why says what of labels m each requirement of sel looks at: "app=rng,
// no legacy".
func why(sel *selector.Selector, m selector.Set) string {
	var parts []string
	seen := map[string]bool{}
	for _, r := range sel.Requirements {
		if seen[r.Key] {
			continue
		}
		seen[r.Key] = true
		if v, ok := m.Get(r.Key); ok {
			parts = append(parts, r.Key+"="+v)
		} else {
			parts = append(parts, "no "+r.Key)
		}
	}
	return strings.Join(parts, ", ")
}
