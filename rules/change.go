package rules

// What the change rules (change_recreates.go, change_seed.go) share: the
// pod controllers and what they select, the objects a change removes, and
// what each GitOps engine does with a removed object and with an update
// the API server refuses, said the same way in every message.

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"

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

// recreateMode is when an engine setting turns an update into a delete
// (background propagation) and a create.
type recreateMode int

const (
	recreateNever recreateMode = iota
	// recreateAlways: every update is a replace (Argo CD
	// Replace=true,Force=true runs kubectl replace --force on each object
	// it syncs; kapp always-replace).
	recreateAlways
	// recreateOnInvalid: only an update refused with 422 Invalid or 409
	// Conflict (kubectl apply --force, which Argo CD Force=true without
	// Replace=true runs; kapp fallback-on-replace).
	recreateOnInvalid
	// recreateOnImmutable: Flux force, on what fluxcd/pkg/ssa's
	// IsImmutableError accepts: 422 Invalid, 409 Conflict, or a message
	// saying "is immutable" or "immutable field".
	recreateOnImmutable
)

// recreatePolicy is how obj's update is applied when it recreates: the
// object's own annotation (those lws-unsafe-recreate reads) first, then the
// application's setting (Applier.Recreate: Argo CD Replace=true,Force=true,
// Flux force, kapp --apply-default-update-strategy=always-replace, kubectl
// apply --force), with the words messages use for it.
func recreatePolicy(ap analysis.Applier, obj *manifest.Object) (string, recreateMode) {
	ann := manifest.Path(obj.Node, "metadata", "annotations")
	value := func(k string) string { return manifest.ScalarValue(manifest.MapGet(ann, k)) }
	opts := map[string]bool{}
	for _, o := range strings.Split(value(transformers.ArgoSyncOptions), ",") {
		opts[strings.TrimSpace(o)] = true
	}
	switch {
	case opts["Replace=true"] && opts["Force=true"]:
		return "Argo CD (sync-options Force=true,Replace=true on the object) deletes it in the background and creates it again", recreateAlways
	case strings.EqualFold(value(transformers.FluxForce), "enabled"):
		return "Flux (kustomize.toolkit.fluxcd.io/force: enabled on the object) deletes it in the background and applies it again at once", recreateOnImmutable
	case value(transformers.KappUpdateStrategy) == "always-replace":
		return "kapp (update-strategy: always-replace on the object) deletes it in the background and creates it again", recreateAlways
	case opts["Force=true"]:
		return "Argo CD (sync-options Force=true on the object: kubectl apply --force) deletes it in the background and creates it again", recreateOnInvalid
	case value(transformers.KappUpdateStrategy) == "fallback-on-replace":
		return "kapp (update-strategy: fallback-on-replace on the object) deletes it in the background and creates it again", recreateOnInvalid
	case !ap.Recreate:
		return "", recreateNever
	}
	switch ap.Engine {
	case analysis.EngineArgoCD:
		return "Argo CD (sync-options Replace=true,Force=true) deletes it in the background and creates it again" + defaulted(ap), recreateAlways
	case analysis.EngineFlux:
		return "Flux (spec.force: true) deletes it in the background and applies it again at once" + defaulted(ap), recreateOnImmutable
	case analysis.EngineKapp:
		return "kapp (always-replace) deletes it in the background and creates it again" + defaulted(ap), recreateAlways
	case analysis.EngineKubectl:
		return "kubectl apply --force deletes it in the background and creates it again" + defaulted(ap), recreateOnInvalid
	}
	return "the engine deletes it in the background and creates it again" + defaulted(ap), recreateOnInvalid
}

// fluxImmutable is what fluxcd/pkg/ssa's IsImmutableError looks for in a
// refusal that is not 422 Invalid (a webhook's denial). Compiled at first
// use: a regexp compiled at package init costs every run of shipshape.
var fluxImmutable = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`is\simmutable|immutable\sfield`)
})

// recreatesOnRefusal reports whether mode recreates obj on these
// refusals. The API server's own validation answers 422 Invalid; the LWS
// webhook answers 403 Forbidden (controller-runtime's Denied), which only
// Flux's message test can accept: "field is immutable" (a subGroupSize
// change) is, "cannot enable subGroupSize" is not.
func recreatesOnRefusal(mode recreateMode, obj *manifest.Object, refusals []refused.Refusal) bool {
	if len(refusals) == 0 {
		return false
	}
	switch mode {
	case recreateAlways:
		return true
	case recreateOnInvalid:
		return !isLWS(obj)
	case recreateOnImmutable:
		if !isLWS(obj) {
			return true
		}
		for _, r := range refusals {
			if fluxImmutable().MatchString(r.Reason) {
				return true
			}
		}
	}
	return false
}

// firstUpdate is the first value the update from base to head changes, in
// head: a scalar that differs (quantities compared as quantities), or a
// list whose length does. A field on one side only is not counted: it may
// be a default written out or left out, which the live object holds
// either way, so a change that only adds fields is missed rather than
// reported wrongly.
func firstUpdate(base, head *yaml.Node, path manifest.FieldPath) (*yaml.Node, manifest.FieldPath, bool) {
	if base == nil || head == nil {
		return nil, nil, false
	}
	if base.Kind != head.Kind {
		return head, path, true
	}
	switch head.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(head.Content); i += 2 {
			k := head.Content[i].Value
			if n, p, ok := firstUpdate(manifest.MapGet(base, k), head.Content[i+1], path.Key(k)); ok {
				return n, p, true
			}
		}
	case yaml.SequenceNode:
		if len(base.Content) != len(head.Content) {
			return head, path, true
		}
		for i := range head.Content {
			if n, p, ok := firstUpdate(base.Content[i], head.Content[i], path.Index(i)); ok {
				return n, p, true
			}
		}
	case yaml.ScalarNode:
		if base.Value == head.Value {
			return nil, nil, false
		}
		qb, errb := resource.ParseQuantity(base.Value)
		qh, errh := resource.ParseQuantity(head.Value)
		if errb == nil && errh == nil && qb.Cmp(qh) == 0 {
			return nil, nil, false
		}
		return head, path, true
	}
	return nil, nil, false
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
