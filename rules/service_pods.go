package rules

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
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
	ns string
	// A Service with a selector (a pointer: most summaries are of
	// workloads, and every repository's are kept until Finish).
	svc *selectingService
	// The pods a workload makes.
	pods []*pods
	// Endpoints or an EndpointSlice for the Service named.
	endpointsFor string
	// A custom resource of a kind shipshape does not know.
	unknown string
	// Where a Role or ClusterRole lets its subjects patch pods: an
	// operator that labels its own pods at run time (minio's leader).
	relabel *relabelScope
}

// selectingService is a Service with a selector.
type selectingService struct {
	name     string
	selector map[string]string
	at       analysis.Finding // at the selector's first entry
	entries  []entryAt        // where each key of the selector is written
	// explicitNS: the namespace is written (or set by a kustomization),
	// not left to the apply's default.
	explicitNS bool
	nsAt       analysis.Finding // at metadata.namespace, else the selector
}

func summarizeServicePods(p *analysis.Pass) (servicePodsSummary, bool) {
	obj := p.Object
	s := servicePodsSummary{ns: obj.EffectiveNamespace()}
	switch {
	case isService(obj):
		spec := manifest.MapGet(obj.Node, "spec")
		sel := manifest.MapGet(spec, "selector")
		if isExternalName(spec) || sel == nil || sel.Kind != yaml.MappingNode {
			return s, false
		}
		svc := &selectingService{name: obj.Name, selector: map[string]string{}, explicitNS: obj.Namespace != ""}
		for i := 0; i+1 < len(sel.Content); i += 2 {
			k, v := sel.Content[i], sel.Content[i+1]
			if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
				return s, false // not a plain map: service rules of their own say so
			}
			if placeholder(v.Value) {
				continue // filled in before the apply: any pod may carry it
			}
			svc.selector[k.Value] = v.Value
			svc.entries = append(svc.entries, entryAt{k.Value, k.Line, k.Column, manifest.Keys("spec", "selector", k.Value).String()})
		}
		if len(svc.entries) == 0 {
			return s, false
		}
		svc.at = p.Finding(sel.Content[0], "", nil, "")
		svc.nsAt = namespaceFinding(p, svc.at)
		for k, v := range obj.SelectorLabels {
			svc.selector[k] = v
		}
		s.svc = svc
		return s, true
	case obj.Kind == "Endpoints" && obj.APIVersion == "v1":
		s.endpointsFor = obj.Name
		return s, true
	case obj.Kind == "EndpointSlice" && obj.Group() == "discovery.k8s.io":
		s.endpointsFor = manifest.ScalarValue(manifest.Path(obj.Node, "metadata", "labels", "kubernetes.io/service-name"))
		return s, s.endpointsFor != ""
	}
	return s, summarizeMakers(p, &s)
}

// summarizeMakers fills in what an object says of the pods of its
// namespace: those it makes, a role that may relabel them, or a custom
// resource whose operator may make some.
func summarizeMakers(p *analysis.Pass, s *servicePodsSummary) bool {
	if s.pods = podsOf(p); len(s.pods) > 0 {
		return true
	}
	if scope, ok := podRelabelScope(p.Object); ok {
		s.relabel = &scope
		return true
	}
	if mayMakePods(p.Object) {
		s.unknown = p.Object.Kind
		return true
	}
	return false
}

func finishServicePods(p *analysis.CrossPass, summaries []servicePodsSummary) {
	// Pod templates and endpoints count from anywhere in the repository.
	// Whether the Service is judged at all is its own application's call:
	// one that makes no pods in the Service's namespace (a Service put in
	// front of a Helm release or another repository's workload) gets its
	// pods from elsewhere, unless its own pods in another namespace carry
	// the selector (the namespace is the mistake).
	ev := gatherSelectionEvidence(p, len(summaries), func(i int) selectionPart {
		s := summaries[i]
		return selectionPart{ns: s.ns, pods: s.pods, endpointsFor: s.endpointsFor, unknown: s.unknown, relabel: s.relabel}
	})
	for i, s := range summaries {
		if s.svc == nil || ev.managed[nsName{s.ns, s.svc.name}] {
			continue
		}
		app := p.Application(i)
		if p.Unread(app) {
			continue
		}
		if f, ok := ev.leftOut(app, s.ns, s.svc); ok {
			p.Report(f)
			continue
		}
		if f, ok := ev.judge(app, s.ns, s.svc, serviceSelects); ok {
			p.Report(f)
		}
	}
}

// noPodsFinding returns the finding for a Service none of the templates
// of its namespace carries all of whose selector, at the entry to blame.
// own, when not nil, is a template of the selector's application that
// carries most of it: the selector is judged even in kube-system.
func noPodsFinding(ns string, svc *selectingService, ix *podIndex, app analysis.AppID, own *pods, kind selectorKind) (analysis.Finding, bool) {
	if ix.carried(svc.selector, app) {
		return analysis.Finding{}, false
	}
	// The closest template lacks the fewest entries, those it has one
	// typing slip away first (app=workflow-controler is meant for the
	// template with app=workflow-controller, not for the first of those
	// that lack as many), then those of the Service's own application
	// (not a namesake in another directory); only its list is made.
	// A template that carries a lacking value under another key (the label
	// was renamed) comes before one that does not.
	var closest *pods
	fewest, slip, renamed, mine := 0, false, false, false
	for _, c := range ix.all {
		if ix.copyElsewhere(c, app) {
			continue
		}
		n := c.lacking(svc.selector)
		if closest != nil && n > fewest {
			continue
		}
		s, r, m := c.slipsOnly(svc.selector), c.renamedAny(svc.selector), ix.app[c] == app
		if closest == nil || n < fewest || s && !slip || s == slip && (r && !renamed || r == renamed && m && !mine) {
			closest, fewest, slip, renamed, mine = c, n, s, r, m
		}
	}
	// A controller that carries the selector in its own metadata.labels,
	// not in its template's, is the one meant: name it.
	var ownOnly []string
	for _, c := range ix.all {
		if c.own == "" || ix.copyElsewhere(c, app) {
			continue
		}
		var only []string
		for _, k := range sortedKeys(svc.selector) {
			if v := svc.selector[k]; !c.has(k, v) {
				if !c.ownHas(k, v) {
					only = nil
					break
				}
				only = append(only, k+"="+v)
			}
		}
		if len(only) > 0 {
			closest, ownOnly = c, only
			break
		}
	}
	var has []string
	for _, k := range sortedKeys(svc.selector) {
		if closest.has(k, svc.selector[k]) {
			has = append(has, k+"="+svc.selector[k])
		}
	}
	if len(has) == 0 && own != nil {
		// Its own template, whose label the selector has under another
		// key, or a value one slip away, is the one meant.
		closest = own
		for _, k := range sortedKeys(svc.selector) {
			if closest.has(k, svc.selector[k]) {
				has = append(has, k+"="+svc.selector[k])
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
	lacks := closest.missing(svc.selector)
	// Blame an entry no template carries, else one the closest lacks.
	blame := ""
	for _, k := range sortedKeys(svc.selector) {
		if !ix.anyHas(k, svc.selector[k]) {
			blame = k
			break
		}
	}
	if blame == "" {
		blame, _, _ = strings.Cut(lacks[0], "=")
	}
	// An entry a kustomization added is not written: blame the first one.
	f, e := svc.at, svc.entries[0]
	for _, x := range svc.entries {
		if x.key == blame {
			e = x
		}
	}
	f.Line, f.Column, f.Field = e.line, e.column, e.field
	// What the closest carries under the keys it lacks shows a slip
	// (control-plane=controller-manager, not controller-manger).
	carries := slices.Clone(has)
	for _, l := range lacks {
		k, _, _ := strings.Cut(l, "=")
		if w, ok := closest.fixed[k]; ok {
			carries = append(carries, k+"="+w)
			continue
		}
		// The value under another key: the label was renamed.
		_, v, _ := strings.Cut(l, "=")
		for _, kk := range sortedKeys(closest.fixed) {
			if closest.fixed[kk] == v {
				carries = append(carries, kk+"="+v)
				break
			}
		}
	}
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
		kind.name, svc.name, labelList(svc.selector), kind.carrier(), ns, closest.owner, what, kind.name, kind.consequence, kind.carrier())
	return f, true
}

// entryAt is where a selector entry is written.
type entryAt struct {
	key          string
	line, column int
	field        string // dotted path of the entry in its object
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
		if !t.carries(svc.selector) {
			continue
		}
		owner := ix.app[t]
		option, ok := owner.Argo.LeftOutBy(t.file)
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
	f, e := svc.at, svc.entries[0]
	f.Line, f.Column, f.Field = e.line, e.column, e.field
	f.Message = fmt.Sprintf("Service %q selects %s, which only %s carries, in %s, a file Argo CD Application %s (%s) does not apply: its %s %q leaves it out, and nothing else here applies it, so the Service has no endpoints; apply the file (change the %s) or drop the Service",
		svc.name, labelList(svc.selector), only.owner, only.file, app.Argo.Name, app.Argo.File, by.Name, by.Pattern, by.Name)
	return f, true
}
