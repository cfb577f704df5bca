package rules

// What the change rules (change_recreates.go, change_seed.go) share: the
// pod controllers and what they select, the objects a change removes, and
// what each GitOps engine does with a removed object and with an update
// the API server refuses, said the same way in every message.

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/refused"
	"github.com/shipshape-dev/shipshape/internal/selector"
	"github.com/shipshape-dev/shipshape/transformers"
)

// isPodController reports the kinds whose controller keeps pods running
// as long as it exists, found by its selector: the ones a change can leave
// running beside their replacement. Jobs and CronJobs run to completion
// and select by a generated controller-uid; an LWS's pods are selected by
// its name label, which no other kind carries.
func isPodController(obj *manifest.Object) bool {
	switch g := obj.Group(); obj.Kind {
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet":
		return g == "apps"
	case "ReplicationController":
		return g == ""
	}
	return false
}

// controllerSelector is the selector a pod controller finds its pods by
// (nil: it selects nothing); a ReplicationController without one selects
// its template's labels, as the API server defaults it.
func controllerSelector(obj *manifest.Object) *selector.Selector {
	sel := manifest.Path(obj.Node, "spec", "selector")
	if obj.Kind == "ReplicationController" {
		if sel == nil {
			sel = manifest.Path(obj.Node, "spec", "template", "metadata", "labels")
		}
		s, _ := selector.FromMap(sel)
		return s
	}
	s, _ := selector.FromLabelSelector(sel)
	return s
}

// templateLabels is the labels of each pod template of obj (workloads,
// CronJobs, LeaderWorkerSets), nil for a template without labels.
func templateLabels(obj *manifest.Object) []map[string]string {
	var out []map[string]string
	for _, t := range podTemplates(obj) {
		out = append(out, selector.Labels(manifest.Path(t.Node, "metadata", "labels")))
	}
	return out
}

// selectsPodsOf returns the labels of the first pod template of obj that
// sel selects (a nil or empty selector selects none here: an empty one is
// refused on a controller, and says nothing about which pods it meant).
func selectsPodsOf(sel *selector.Selector, obj *manifest.Object) (map[string]string, bool) {
	if sel == nil || sel.Empty {
		return nil, false
	}
	for _, l := range templateLabels(obj) {
		if ok, _ := sel.Matches(l); ok && len(l) > 0 {
			return l, true
		}
	}
	return nil, false
}

// sameNamespace reports whether a and b are in one namespace (as
// applied: an object without one goes to the application's).
func sameNamespace(a, b *manifest.Object) bool {
	return a.EffectiveNamespace() == b.EffectiveNamespace()
}

// removedObjects is what the change removes: the base's objects that head
// no longer holds (same group, kind, namespace and name).
func removedObjects(p *analysis.ChangePass) []*manifest.Object {
	head := make(map[analysis.ObjectKey]bool, len(p.Head))
	for _, o := range p.Head {
		head[analysis.KeyOf(o)] = true
	}
	var out []*manifest.Object
	for _, o := range p.Base {
		if !o.Partial && !head[analysis.KeyOf(o)] {
			out = append(out, o)
		}
	}
	return out
}

// objectLabel names an object in messages: `Deployment "rng"`, with its
// namespace when it has one.
func objectLabel(obj *manifest.Object) string {
	return fmt.Sprintf("%s %q", obj.Kind, lwsObjectName(obj))
}

// kindNode is the node of obj's kind value, where a change of kind is.
func kindNode(obj *manifest.Object) *yaml.Node {
	return manifest.MapGet(obj.Node, "kind")
}

// defaulted is what messages add when the Applier is the engine's defaults,
// not settings read from the repository.
func defaulted(ap analysis.Applier) string {
	if ap.Known {
		return ""
	}
	return " (no setting of the engine was found: its default)"
}

// noPrune says which setting leaves a removed object in the cluster.
func noPrune(ap analysis.Applier) string {
	var s string
	switch ap.Engine {
	case analysis.EngineKubectl:
		s = "kubectl apply without --prune"
	case analysis.EngineArgoCD:
		s = "Argo CD without automated prune (syncPolicy.automated.prune)"
	case analysis.EngineFlux:
		s = "Flux with spec.prune: false"
	case analysis.EngineKapp:
		s = "kapp with this object exempt from deletion"
	default:
		s = "an engine that does not prune"
	}
	return s + defaulted(ap)
}

// pruneOrder says in what order the engine creates what the change adds
// and deletes (prunes) what it removed: none of them waits for the old
// pods to be gone.
func pruneOrder(ap analysis.Applier, created, deleted string) string {
	switch ap.Engine {
	case analysis.EngineKubectl:
		return fmt.Sprintf("kubectl apply --prune creates %s first and deletes %s after the apply", created, deleted)
	case analysis.EngineArgoCD:
		return fmt.Sprintf("Argo CD deletes %s (prune, background propagation) in the sync wave in which it creates %s, or after every wave with PruneLast=true", deleted, created)
	case analysis.EngineFlux:
		return fmt.Sprintf("Flux applies %s, then deletes %s (garbage collection after the apply, background propagation)", created, deleted)
	case analysis.EngineKapp:
		return fmt.Sprintf("kapp creates %s and deletes %s in one apply, unless change rules order them", created, deleted)
	}
	return fmt.Sprintf("the engine creates %s and deletes %s%s", created, deleted, defaulted(ap))
}

// recreation says how obj's refused update is turned into a delete and a
// create, and false when it is not: the application's setting
// (Applier.Recreate) or the object's own annotation (those that
// lws-unsafe-recreate reads). Argo CD Replace=true,Force=true and kapp
// always-replace recreate whatever the refusal; Flux force recreates only
// when fluxssa's IsImmutableError says so (422 Invalid or 409 Conflict, or
// a message saying "is immutable" or "immutable field": the LWS webhook's
// 403 "cannot enable subGroupSize" is none of them). Argo CD Force=true
// without Replace=true, and kapp fallback-on-replace, recreate only on 422
// Invalid and are not counted here (a built-in kind's refusal is one, but
// they are the engine's fallback, not a setting this rule can see).
func recreation(ap analysis.Applier, obj *manifest.Object, refusals []refused.Refusal) (string, bool) {
	ann := manifest.Path(obj.Node, "metadata", "annotations")
	value := func(k string) string { return manifest.ScalarValue(manifest.MapGet(ann, k)) }
	opts := map[string]bool{}
	for _, o := range strings.Split(value(transformers.ArgoSyncOptions), ",") {
		opts[strings.TrimSpace(o)] = true
	}
	flux := fluxRecreates(obj, refusals)
	switch {
	case opts["Replace=true"] && opts["Force=true"]:
		return "Argo CD (sync-options Force=true,Replace=true on the object) deletes it in the background and creates it again", true
	case strings.EqualFold(value(transformers.FluxForce), "enabled") && flux:
		return "Flux (kustomize.toolkit.fluxcd.io/force: enabled on the object) deletes it in the background and applies it again at once", true
	case value(transformers.KappUpdateStrategy) == "always-replace":
		return "kapp (update-strategy: always-replace on the object) deletes it in the background and creates it again", true
	case !ap.Recreate:
		return "", false
	}
	switch ap.Engine {
	case analysis.EngineArgoCD:
		return "Argo CD (sync-options Replace=true,Force=true) deletes it in the background and creates it again" + defaulted(ap), true
	case analysis.EngineFlux:
		return "Flux (spec.force: true) deletes it in the background and applies it again at once" + defaulted(ap), flux
	case analysis.EngineKapp:
		return "kapp (always-replace) deletes it in the background and creates it again" + defaulted(ap), true
	case analysis.EngineKubectl:
		return "kubectl replace --force deletes it and creates it again" + defaulted(ap), true
	}
	return "the engine deletes it in the background and creates it again" + defaulted(ap), true
}

// fluxImmutable is what fluxcd/pkg/ssa's IsImmutableError looks for in a
// refusal that is not 422 Invalid (a webhook's denial).
var fluxImmutable = regexp.MustCompile(`is\simmutable|immutable\sfield`)

// fluxRecreates reports whether Flux's force recreates obj on these
// refusals: the API server's own validation answers 422 Invalid, which
// IsImmutableError accepts; the LWS webhook answers 403, accepted only
// when its message says the field is immutable.
func fluxRecreates(obj *manifest.Object, refusals []refused.Refusal) bool {
	if !isLWS(obj) {
		return true
	}
	for _, r := range refusals {
		if fluxImmutable.MatchString(r.Reason) {
			return true
		}
	}
	return false
}

// refusedAtApply is what the API server refuses of the update from base to
// head at apply (not what a controller is refused later).
func refusedAtApply(base, head *manifest.Object) []refused.Refusal {
	var out []refused.Refusal
	for _, r := range refused.Check(base, head) {
		if r.Stage == refused.AtApply {
			out = append(out, r)
		}
	}
	return out
}
