package rules

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/selector"
)

// What the selector rules (service-no-matching-pods,
// pdb-no-matching-pods) take as evidence that pods carry, at run time,
// labels no template of the repository gives them. Precision comes from
// evidence, not from the presence of an operator's CustomResourceDefinitions:
// a kubebuilder config/default holds CRDs beside its manager Deployment and
// the Services that select it, and a stray selector entry there selects
// nothing like anywhere else.

// relabelScope is where a Role or ClusterRole lets its subjects patch or
// update pods: a namespace, or every namespace.
type relabelScope struct {
	NS  string
	All bool
}

// podRelabelScope reports whether obj is a Role or ClusterRole that grants
// patch or update on pods, and where: a Role in its own namespace, a
// ClusterRole in any (bindings are not followed: the role is in the
// application for a controller of it).
func podRelabelScope(obj *manifest.Object) (relabelScope, bool) {
	if (obj.Kind != "Role" && obj.Kind != "ClusterRole") || obj.Group() != "rbac.authorization.k8s.io" {
		return relabelScope{}, false
	}
	has := func(n *yaml.Node, want ...string) bool {
		for _, it := range items(n) {
			if slices.Contains(want, manifest.ScalarValue(it)) {
				return true
			}
		}
		return false
	}
	for _, rule := range items(manifest.MapGet(obj.Node, "rules")) {
		if has(manifest.MapGet(rule, "apiGroups"), "", "*") && has(manifest.MapGet(rule, "resources"), "pods", "*") &&
			has(manifest.MapGet(rule, "verbs"), "patch", "update", "*") {
			if obj.Kind == "ClusterRole" {
				return relabelScope{All: true}, true
			}
			return relabelScope{NS: obj.EffectiveNamespace()}, true
		}
	}
	return relabelScope{}, false
}

// relabellers records, per application, where a role of it may relabel
// pods.
type relabellers map[analysis.AppID][]relabelScope

func (r relabellers) add(app analysis.AppID, s relabelScope) { r[app] = append(r[app], s) }

// in reports whether a role of app may relabel pods in ns.
func (r relabellers) in(app analysis.AppID, ns string) bool {
	return slices.ContainsFunc(r[app], func(s relabelScope) bool { return s.All || s.NS == ns })
}

// anywhere reports whether a role of app may relabel pods somewhere.
func (r relabellers) anywhere(app analysis.AppID) bool { return len(r[app]) > 0 }

// runtimeLabel is a label a known operator puts on pods it did not make
// from a template, at run time.
type runtimeLabel struct {
	key, value string
	who        string
}

// runtimeLabels are the known operators' run-time labels (documented in
// the rules' docs): a selector entry among them is no mistake.
var runtimeLabels = []runtimeLabel{
	{"operator", "leader", "minio's operator labels the replica it elects leader"},
}

// labelledAtRunTime reports whether every entry of lacks ("k=v") is a
// known operator's run-time label.
func labelledAtRunTime(lacks []string) bool {
	if len(lacks) == 0 {
		return false
	}
	for _, l := range lacks {
		k, v, _ := strings.Cut(l, "=")
		if !slices.ContainsFunc(runtimeLabels, func(r runtimeLabel) bool { return r.key == k && r.value == v }) {
			return false
		}
	}
	return true
}

// sharesMost reports whether t's pods carry at least half of the written
// entries of sel, one at least: the selector was written for those pods,
// and what they lack is a mistake unless something labels them at run
// time. Entries a kustomization added (commonLabels, on every object of
// the root) say nothing of which pods were meant. With loose (in
// kube-system, where the cluster makes pods no repository holds, and for
// the selectors judged only on such evidence) an entry counts as carried
// also when t carries its value under another key (a component renamed
// the pod label: k8s-app=metrics-server, app.kubernetes.io/name=metrics-server)
// or its key with a value one typing slip away.
func (t *pods) sharesMost(sel selector.Set, written []entryAt, loose bool) bool {
	carried, total := 0, 0
	for _, e := range written {
		v, ok := sel.Get(e.Key)
		if !ok {
			continue
		}
		total++
		switch {
		case t.has(e.Key, v):
			carried++
		case loose && (t.nearly(e.Key, v) || t.carriesValue(v)):
			carried++
		}
	}
	return carried > 0 && 2*carried >= total
}

// carriesValue reports whether t's pods carry v under some key, a value of
// four letters or more (shorter ones, true or v1, say nothing).
func (t *pods) carriesValue(v string) bool {
	if len(v) < 4 {
		return false
	}
	for _, have := range t.Fixed {
		if have.Value == v {
			return true
		}
	}
	return false
}

// renamedAny reports whether t's pods lack an entry of sel whose value
// they carry under another key.
func (t *pods) renamedAny(sel selector.Set) bool {
	for k, v := range sel.All() {
		if t.has(k, v) {
			continue
		}
		for _, have := range t.Fixed {
			if have.Value == v {
				return true
			}
		}
	}
	return false
}
