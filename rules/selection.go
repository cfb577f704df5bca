package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// selectionPart is what the selector rules read of one summary.
type selectionPart struct {
	ns           string
	pods         []*pods
	endpointsFor string        // Endpoints or EndpointSlice of this Service
	unknown      string        // kind of a custom resource shipshape does not know
	relabel      *relabelScope // a role that may relabel pods
}

// selectionEvidence is what the repository says of the pods a selector may
// meet: the templates of each namespace, which applications make pods
// where, and what in each application may make or label pods at run time.
type selectionEvidence struct {
	managed   map[nsName]bool         // namespace, Service with endpoints of its own
	unknown   map[appNS]bool          // application, namespace with an unknown custom resource
	makesPods map[appNS]bool          // application, namespace
	operator  map[analysis.AppID]bool // applications that define CRDs or may relabel pods
	relabel   relabellers
	templates map[string]*podIndex       // by namespace
	byApp     map[analysis.AppID][]*pods // every template of an application
}

// gatherSelectionEvidence reads n summaries (part(i) of the i-th, of
// application p.Application(i)).
func gatherSelectionEvidence(p *analysis.CrossPass, n int, part func(i int) selectionPart) *selectionEvidence {
	ev := &selectionEvidence{
		managed: map[nsName]bool{}, unknown: map[appNS]bool{}, makesPods: map[appNS]bool{},
		operator: map[analysis.AppID]bool{}, relabel: relabellers{}, templates: map[string]*podIndex{}, byApp: map[analysis.AppID][]*pods{},
	}
	for i := range n {
		s, app := part(i), p.Application(i)
		switch {
		case s.endpointsFor != "":
			ev.managed[nsName{s.ns, s.endpointsFor}] = true
		case s.relabel != nil:
			ev.relabel.add(app, *s.relabel)
			ev.operator[app] = true
		case s.unknown == "CustomResourceDefinition":
			// An application that defines custom resources installs
			// their operator, which may make pods in any namespace
			// (longhorn-manager labels its pods as the admission
			// webhook's): for a selector that shares little with the
			// application's templates, not for one a template carries
			// but for an entry.
			ev.operator[app] = true
		case s.unknown != "":
			ev.unknown[appNS{app, s.ns}] = true
		case len(s.pods) > 0:
			ev.makesPods[appNS{app, s.ns}] = true
			ix := ev.templates[s.ns]
			if ix == nil {
				ix = newPodIndex()
				ev.templates[s.ns] = ix
			}
			for _, t := range s.pods {
				ix.add(t, app)
				ev.byApp[app] = append(ev.byApp[app], t)
			}
		}
	}
	return ev
}

// judge returns the finding for sel, a selector of kind (Service,
// PodDisruptionBudget) of application app in namespace ns, when it selects
// no pods and nothing says that pods get its labels at run time.
func (ev *selectionEvidence) judge(app analysis.AppID, ns string, sel *selectingService, kind selectorKind) (analysis.Finding, bool) {
	if !ev.makesPods[appNS{app, ns}] {
		return ev.wrongNamespace(app, ns, sel, kind)
	}
	ix := ev.templates[ns]
	if ix.carried(sel.Selector, app) {
		return analysis.Finding{}, false
	}
	own := ix.sharingMost(sel, app, ns == "kube-system" || kind.NeedsIntent)
	if own == nil && kind.NeedsIntent && !ix.misspelt(sel.Selector) {
		// Nothing says the selector was meant for the pods the repository
		// shows (a policy's peer, a budget or monitor for a Helm release's
		// pods beside the application's own).
		return analysis.Finding{}, false
	}
	if own != nil {
		// A template of the application carries most of the selector:
		// what it lacks is a mistake unless something labels its pods
		// at run time (a role of the application that may patch pods
		// there, a known operator's label) or a custom resource there
		// may make pods under those labels.
		if ev.relabel.in(app, ns) || ev.unknown[appNS{app, ns}] || labelledAtRunTime(own.missing(sel.Selector)) {
			return analysis.Finding{}, false
		}
	} else if ev.unknown[appNS{app, ns}] || ev.operator[app] {
		// An operator may make pods, or label its own, under labels no
		// template shows, but not under a near-miss of the labels of the
		// templates written.
		if !ix.misspelt(sel.Selector) {
			return analysis.Finding{}, false
		}
	}
	return noPodsFinding(ns, sel, ix, app, own, kind)
}

// sharingMost returns the template of app in this namespace that carries
// most of sel's written entries (see sharesMost), or nil.
func (ix *podIndex) sharingMost(sel *selectingService, app analysis.AppID, loose bool) *pods {
	var best *pods
	for _, t := range ix.all {
		if ix.app[t] != app || !t.sharesMost(sel.Selector, sel.Entries, loose) {
			continue
		}
		if best == nil || t.lacking(sel.Selector) < best.lacking(sel.Selector) {
			best = t
		}
	}
	return best
}

// wrongNamespace returns the finding for a selector in a namespace where
// its application makes no pods, while the application's pods in another
// namespace carry the whole selector: the namespace is the mistake. Only
// namespaces written (or set by a kustomization) count: a manifest without
// one is applied wherever the apply points.
func (ev *selectionEvidence) wrongNamespace(app analysis.AppID, ns string, sel *selectingService, kind selectorKind) (analysis.Finding, bool) {
	if !sel.ExplicitNS || ns == "default" || ev.unknown[appNS{app, ns}] {
		return analysis.Finding{}, false
	}
	if ix := ev.templates[ns]; ix != nil && ix.carried(sel.Selector, app) {
		return analysis.Finding{}, false
	}
	var where []string
	var first *pods
	for _, t := range ev.byApp[app] {
		if t.NS != ns && t.NS != "default" && t.carries(sel.Selector) {
			if first == nil {
				first = t
			}
			if !slices.Contains(where, t.NS) {
				where = append(where, t.NS)
			}
		}
	}
	if first == nil {
		return analysis.Finding{}, false
	}
	f := sel.At.Finding()
	if sel.NsAt != nil {
		f = sel.NsAt.Finding()
	}
	f.Message = fmt.Sprintf("%s %q in namespace %s selects %s, which no %s in namespace %s carries; %s of its application carries it in namespace %s, and a %s selects in its own namespace only, so it %s; move it to namespace %s, or %s to %s",
		kind.Name, sel.Name, ns, labelList(sel.Selector), kind.carrier(), ns, first.Owner, strings.Join(where, ", "), kind.Name, kind.Consequence, where[0], first.Owner, ns)
	return f, true
}

// selectorKind names what selects, for the messages.
type selectorKind struct {
	Name        string // Service
	Consequence string // has no endpoints
	// selects is what the selector matches the labels of, when not the
	// pods of templates: "Service" (a ServiceMonitor).
	Selects string
	// needsIntent: judged only when a template (or Service) of the
	// application carries most of the selector, a value under another key
	// counting (a renamed label), or carries it but for one entry
	// misspelt. Such selectors often select what other installs make.
	NeedsIntent bool
}

// carrier names what carries the labels a selector matches.
func (k selectorKind) carrier() string {
	if k.Selects != "" {
		return k.Selects
	}
	return "pod template"
}

var (
	serviceSelects = selectorKind{Name: "Service", Consequence: "has no endpoints"}
	pdbSelects     = selectorKind{Name: "PodDisruptionBudget", Consequence: "guards no pod against eviction", NeedsIntent: true}
)

// namespaceLocator returns where to report that obj is in the wrong
// namespace: its metadata.namespace, else nil for the selector's place
// (a namespace set by a kustomization). Nil, not a copy of that place: a
// summary keeps it for every Service until the run's end.
func namespaceLocator(p *analysis.Pass) *analysis.Locator {
	if n := manifest.Path(p.Object.Node, "metadata", "namespace"); n != nil {
		l := p.Locate(n, "metadata.namespace")
		return &l
	}
	return nil
}
