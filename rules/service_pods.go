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

var serviceNoMatchingPods = Register(&analysis.Rule{
	ID:       "service-no-matching-pods",
	Severity: analysis.Warning,
	Summary:  "A Service selects labels that no pod template in its namespace carries",
	Targets:  analysis.Objects,
	Cross:    analysis.Summaries(summarizeServicePods, finishServicePods),
	Scope:    analysis.Repository,
})

// servicePodsSummary is one object's part: a Service's selector, the pods
// a workload makes, an endpoints object's name, or a custom resource that
// may make pods.
type servicePodsSummary struct {
	NS string
	// The pods a workload makes.
	Pods []*pods
	// What another object says, nil for a workload: most summaries are
	// of workloads, and every repository's are kept until Finish (48
	// bytes with the pointer, 88 with its fields here).
	Other *servicePodsOther
}

// servicePodsOther is what an object that is not a workload says of
// the pods of its namespace.
type servicePodsOther struct {
	// A Service with a selector.
	Svc *selectingService
	// Endpoints or an EndpointSlice for the Service named.
	EndpointsFor string
	// A custom resource of a kind shipshape does not know.
	Unknown string
	// Where a Role or ClusterRole lets its subjects patch pods: an
	// operator that labels its own pods at run time (minio's leader).
	Relabel *relabelScope
}

// svc is the summary's Service (or other selector), nil when none.
func (s *servicePodsSummary) svc() *selectingService {
	if s.Other == nil {
		return nil
	}
	return s.Other.Svc
}

// unknown is the kind of the summary's custom resource shipshape does
// not know, "" when none.
func (s *servicePodsSummary) unknown() string {
	if s.Other == nil {
		return ""
	}
	return s.Other.Unknown
}

// selection is the summary's part of the evidence of pods.
func (s *servicePodsSummary) selection() selectionPart {
	part := selectionPart{ns: s.NS, pods: s.Pods}
	if o := s.Other; o != nil {
		part.endpointsFor, part.unknown, part.relabel = o.EndpointsFor, o.Unknown, o.Relabel
	}
	return part
}

// selectingService is a Service with a selector.
type selectingService struct {
	Name string
	// Selector is interned and sorted: a map per Service cost about
	// 300 bytes, kept until Finish.
	Selector selector.Set
	At       analysis.Locator // at the selector's first entry
	Entries  []entryAt        // where each key of the selector is written
	// explicitNS: the namespace is written (or set by a kustomization),
	// not left to the apply's default.
	ExplicitNS bool
	NsAt       *analysis.Locator // at metadata.namespace; nil: at the selector (At)
}

func summarizeServicePods(p *analysis.Pass) (*servicePodsSummary, bool) {
	obj := p.Object
	s := &servicePodsSummary{NS: obj.EffectiveNamespace()}
	switch {
	case isService(obj):
		spec := manifest.MapGet(obj.Node, "spec")
		sel := manifest.MapGet(spec, "selector")
		if isExternalName(spec) || sel == nil || sel.Kind != yaml.MappingNode {
			return s, false
		}
		svc := &selectingService{Name: obj.Name, ExplicitNS: obj.Namespace != ""}
		labels := map[string]string{}
		for i := 0; i+1 < len(sel.Content); i += 2 {
			k, v := sel.Content[i], sel.Content[i+1]
			if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
				return s, false // not a plain map: service rules of their own say so
			}
			if placeholder(v.Value) {
				continue // filled in before the apply: any pod may carry it
			}
			labels[k.Value] = v.Value
			svc.Entries = append(svc.Entries, entryAt{k.Value, k.Line, k.Column, manifest.Keys("spec", "selector", k.Value).String()})
		}
		if len(svc.Entries) == 0 {
			return s, false
		}
		svc.At = p.Locate(sel.Content[0], "")
		svc.NsAt = namespaceLocator(p)
		for k, v := range obj.SelectorLabels {
			labels[k] = v
		}
		svc.Selector = selector.SetOf(labels)
		s.Other = &servicePodsOther{Svc: svc}
		return s, true
	case obj.Kind == "Endpoints" && obj.APIVersion == "v1":
		s.Other = &servicePodsOther{EndpointsFor: obj.Name}
		return s, true
	case obj.Kind == "EndpointSlice" && obj.Group() == "discovery.k8s.io":
		name := manifest.ScalarValue(manifest.Path(obj.Node, "metadata", "labels", "kubernetes.io/service-name"))
		if name == "" {
			return s, false
		}
		s.Other = &servicePodsOther{EndpointsFor: name}
		return s, true
	}
	m := podMakersOf(p)
	return m, m != nil
}

// podMakersOf is what p's object says of the pods of its namespace
// (summarizeMakers), nil when nothing: one value per object, which the
// four rules that keep it share (their Finish only reads it). Most
// objects a repository's summaries are kept for are workloads.
func podMakersOf(p *analysis.Pass) *servicePodsSummary {
	return p.Memo("rules.podMakers", func() any {
		s := &servicePodsSummary{NS: p.Object.EffectiveNamespace()}
		if summarizeMakers(p, s) {
			return s
		}
		return (*servicePodsSummary)(nil)
	}).(*servicePodsSummary)
}

// summarizeMakers fills in what an object says of the pods of its
// namespace: those it makes, a role that may relabel them, or a custom
// resource whose operator may make some.
func summarizeMakers(p *analysis.Pass, s *servicePodsSummary) bool {
	if s.Pods = podsOf(p); len(s.Pods) > 0 {
		return true
	}
	if scope, ok := podRelabelScope(p.Object); ok {
		s.Other = &servicePodsOther{Relabel: &scope}
		return true
	}
	if mayMakePods(p.Object) {
		s.Other = &servicePodsOther{Unknown: p.Object.Kind}
		return true
	}
	return false
}

func finishServicePods(p *analysis.CrossPass, summaries []*servicePodsSummary) {
	// Pod templates and endpoints count from anywhere in the repository.
	// Whether the Service is judged at all is its own application's call:
	// one that makes no pods in the Service's namespace (a Service put in
	// front of a Helm release or another repository's workload) gets its
	// pods from elsewhere, unless its own pods in another namespace carry
	// the selector (the namespace is the mistake).
	ev := gatherSelectionEvidence(p, len(summaries), func(i int) selectionPart {
		return summaries[i].selection()
	})
	for i, s := range summaries {
		svc := s.svc()
		if svc == nil || ev.managed[nsName{s.NS, svc.Name}] {
			continue
		}
		app := p.Application(i)
		if p.Unread(app) {
			continue
		}
		if f, ok := ev.leftOut(app, s.NS, svc); ok {
			p.Report(f)
			continue
		}
		if f, ok := ev.judge(app, s.NS, svc, serviceSelects); ok {
			p.Report(f)
		}
	}
}

// noPodsFinding returns the finding for a Service none of the templates
// of its namespace carries all of whose selector, at the entry to blame.
// own, when not nil, is a template of the selector's application that
// carries most of it: the selector is judged even in kube-system.
func noPodsFinding(ns string, svc *selectingService, ix *podIndex, app analysis.AppID, own *pods, kind selectorKind) (analysis.Finding, bool) {
	if ix.carried(svc.Selector, app) {
		return analysis.Finding{}, false
	}
	closest := closestTemplate(ix, svc.Selector, app)
	// A controller that carries the selector in its own metadata.labels,
	// not in its template's, is the one meant: name it.
	ownOnly, c := carriedInOwnLabels(ix, svc.Selector, app)
	if c != nil {
		closest = c
	}
	var has []string
	for k, v := range svc.Selector.All() {
		if closest.has(k, v) {
			has = append(has, k+"="+v)
		}
	}
	if len(has) == 0 && own != nil {
		// Its own template, whose label the selector has under another
		// key, or a value one slip away, is the one meant.
		closest = own
		for k, v := range svc.Selector.All() {
			if closest.has(k, v) {
				has = append(has, k+"="+v)
			}
		}
	}
	if ns == "kube-system" && len(has) == 0 && own == nil {
		// The cluster makes pods in kube-system that no repository holds
		// (kubeadm's static control-plane pods, kube-proxy, DNS): a
		// Service there that shares no label with any template selects
		// those (kube-prometheus's kube-scheduler discovery Service).
		return analysis.Finding{}, false
	}
	lacks := closest.missing(svc.Selector)
	// Blame an entry no template carries, else one the closest lacks.
	blame := ""
	for k, v := range svc.Selector.All() {
		if !ix.anyHas(k, v) {
			blame = k
			break
		}
	}
	if blame == "" {
		blame, _, _ = strings.Cut(lacks[0], "=")
	}
	// An entry a kustomization added is not written: blame the first one.
	f, e := svc.At.Finding(), svc.Entries[0]
	for _, x := range svc.Entries {
		if x.Key == blame {
			e = x
		}
	}
	f.Line, f.Column, f.Field = e.Line, e.Column, e.Field
	carries := carriedInstead(closest, has, lacks)
	what := "has none of them"
	if len(carries) > 0 {
		what = "has " + strings.Join(carries, ", ") + " but not " + strings.Join(lacks, ", ")
	} else {
		what += " (" + strings.Join(lacks, ", ") + ")"
	}
	switch own := strings.Join(ownOnly, ", "); {
	case own == "":
	case len(has) == 0:
		what = "carries " + own + " only in its own metadata.labels, which its pods do not get: a Service selects pods by their template's labels"
	default:
		what += " (it carries " + own + " only in its own metadata.labels, which its pods do not get)"
	}
	f.Message = fmt.Sprintf("%s %q selects %s, which no %s in namespace %s carries: %s %s, so the %s %s; add the label to the %s, or drop it from the selector",
		kind.Name, svc.Name, labelList(svc.Selector), kind.carrier(), ns, closest.Owner, what, kind.Name, kind.Consequence, kind.carrier())
	return f, true
}

// closestTemplate is the template selector sel was most likely meant
// for: the one lacking the fewest entries, those it has one typing slip
// away first (app=workflow-controler is meant for the template with
// app=workflow-controller, not for the first of those that lack as many),
// then one that carries a lacking value under another key (the label was
// renamed), then one of the Service's own application (not a namesake in
// another directory).
func closestTemplate(ix *podIndex, sel selector.Set, app analysis.AppID) *pods {
	var closest *pods
	fewest, slip, renamed, mine := 0, false, false, false
	for _, c := range ix.all {
		if ix.copyElsewhere(c, app) {
			continue
		}
		n := c.lacking(sel)
		if closest != nil && n > fewest {
			continue
		}
		s, r, m := c.slipsOnly(sel), c.renamedAny(sel), ix.app[c] == app
		if closest == nil || n < fewest || s && !slip || s == slip && (r && !renamed || r == renamed && m && !mine) {
			closest, fewest, slip, renamed, mine = c, n, s, r, m
		}
	}
	return closest
}

// carriedInOwnLabels returns the first controller that carries what its
// template lacks of sel in its own metadata.labels, with those entries.
func carriedInOwnLabels(ix *podIndex, sel selector.Set, app analysis.AppID) ([]string, *pods) {
	for _, c := range ix.all {
		if c.Own == "" || ix.copyElsewhere(c, app) {
			continue
		}
		var only []string
		for k, v := range sel.All() {
			if !c.has(k, v) {
				if !c.ownHas(k, v) {
					only = nil
					break
				}
				only = append(only, k+"="+v)
			}
		}
		if len(only) > 0 {
			return only, c
		}
	}
	return nil, nil
}

// carriedInstead is what closest carries of the selector (has), then
// under the keys it lacks: a value one slip away
// (control-plane=controller-manager, not controller-manger), or the
// lacking value under another key (the label was renamed).
func carriedInstead(closest *pods, has, lacks []string) []string {
	carries := slices.Clone(has)
	for _, l := range lacks {
		k, _, _ := strings.Cut(l, "=")
		if w, ok := closest.Fixed.Get(k); ok {
			carries = append(carries, k+"="+w)
			continue
		}
		_, v, _ := strings.Cut(l, "=")
		for _, l := range closest.Fixed { // sorted by key
			if l.Value == v {
				carries = append(carries, l.Key+"="+v)
				break
			}
		}
	}
	return carries
}

// entryAt is where a selector entry is written.
type entryAt struct {
	Key          string
	Line, Column int
	Field        string // dotted path of the entry in its object
}

// leftOut returns the finding for svc, a Service of an Argo CD
// Application's directory (app.Argo), when the only pod templates of
// its namespace that carry its selector are in files that Application
// leaves out (directory.include, exclude) and nothing else applies
// (analysis.AppID.LeftOut): the pods are written, but never applied.
// A template anywhere else, or a custom resource of the application that
// may make pods there, keeps it quiet.
func (ev *selectionEvidence) leftOut(app analysis.AppID, ns string, svc *selectingService) (analysis.Finding, bool) {
	ix := ev.templates[ns]
	if app.Argo == nil || app.LeftOut || ix == nil || ev.unknown[appNS{app, ns}] || ev.relabel.in(app, ns) {
		return analysis.Finding{}, false
	}
	var only *pods
	var by analysis.DirectoryOption
	for _, t := range ix.all {
		if !t.carries(svc.Selector) {
			continue
		}
		owner := ix.app[t]
		option, ok := owner.Argo.LeftOutBy(t.File)
		if !owner.LeftOut || owner.Argo != app.Argo || !ok {
			return analysis.Finding{}, false
		}
		if only == nil {
			only, by = t, option
		}
	}
	if only == nil {
		return analysis.Finding{}, false
	}
	f, e := svc.At.Finding(), svc.Entries[0]
	f.Line, f.Column, f.Field = e.Line, e.Column, e.Field
	f.Message = fmt.Sprintf("Service %q selects %s, which only %s carries, in %s, a file Argo CD Application %s (%s) does not apply: its %s %q leaves it out, and nothing else here applies it, so the Service has no endpoints; apply the file (change the %s) or drop the Service",
		svc.Name, labelList(svc.Selector), only.Owner, only.File, app.Argo.Name, app.Argo.File, by.Name, by.Pattern, by.Name)
	return f, true
}
