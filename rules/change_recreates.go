package rules

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

var changeRecreates = Register(&analysis.Rule{
	ID:       "change-recreates",
	Severity: analysis.Warning,
	Summary:  "A change makes the engine delete an object and create it again instead of updating it",
	Targets:  analysis.Changes,
	Change:   checkRecreates,
})

func checkRecreates(p *analysis.ChangePass) {
	for _, head := range p.Head {
		if base := p.BaseOf(head); base != nil {
			reportRecreate(p, base, head)
		}
	}
	if !p.Applier.Prune {
		return // nothing is deleted: change-old-controller-kept
	}
	for _, old := range removedObjects(p) {
		if !isPodController(old) && !isLWS(old) {
			continue
		}
		if repl, how := replacementOf(p, old); repl != nil {
			reportReplacement(p, old, repl, how)
		}
	}
}

// reportRecreate reports an update that the engine applies as a delete
// and a create: one the API server refuses, under a setting that
// recreates on that refusal, at the first refused field; or any update,
// under a setting that always replaces, at the first changed value.
func reportRecreate(p *analysis.ChangePass, base, head *manifest.Object) {
	how, mode := recreatePolicy(p.Applier, head)
	if mode == recreateNever {
		return
	}
	at := refusedAtApply(base, head)
	if recreatesOnRefusal(mode, head, at) {
		var fields []string
		for _, r := range at {
			fields = append(fields, r.Path.String())
		}
		n, path := nodeAt(head, at[0].Path)
		p.Report(head, n, path, nil, "the API server refuses the change of %s of %s (%s), so %s: %s",
			strings.Join(fields, ", "), objectLabel(head), at[0].Reason, how, oldPodsWindow(p, head))
		return
	}
	if mode != recreateAlways || len(at) > 0 || !recreateHurts(head) {
		return
	}
	if n, path, ok := firstUpdate(base.Node, head.Node, nil); ok {
		p.Report(head, n, path.String(), nil, "%s changes, and %s, although the API server would accept the update (this setting replaces every object it applies): %s",
			objectLabel(head), how, oldPodsWindow(p, head))
	}
}

// recreateHurts reports the kinds whose recreate after an accepted
// change is worth a warning: what runs pods, what holds data, and a
// Service (its address). A ConfigMap or a Role recreated is briefly
// absent, which the pods already running do not notice.
func recreateHurts(obj *manifest.Object) bool {
	switch {
	case isPodController(obj), isLWS(obj):
		return true
	case obj.Group() == "batch":
		return obj.Kind == "Job" || obj.Kind == "CronJob"
	case obj.Group() == "":
		return obj.Kind == "PersistentVolumeClaim" || obj.Kind == "Service"
	}
	return false
}

// nodeAt is the node at path in obj, else at its nearest ancestor there
// (a field the change removed), else the object's name.
func nodeAt(obj *manifest.Object, path manifest.FieldPath) (*yaml.Node, string) {
	if n, depth := walkPath(obj.Node, path); depth > 0 {
		return n, path[:depth].String()
	}
	return nameNode(obj), "metadata.name"
}

// oldPodsWindow says what a background delete and an immediate create do
// to obj's pods, and the safe sequence where there is one.
func oldPodsWindow(p *analysis.ChangePass, obj *manifest.Object) string {
	switch {
	case isLWS(obj):
		v := p.Config.LWS.Version
		return "its leader StatefulSet is still there when the new LeaderWorkerSet is reconciled (the garbage collector deletes it only after the LWS is gone): " + lws732Window(v) + "; the safe sequence: " + safeRecreate(v)
	case obj.Kind == "StatefulSet":
		return fmt.Sprintf("the garbage collector deletes all its pods at once, not one ordinal at a time, and each new pod waits until the old pod of its name is gone (the PersistentVolumeClaims stay); the safe sequence: kubectl delete statefulset %s --cascade=orphan, then apply: the new StatefulSet adopts the running pods its selector selects and replaces them by its updateStrategy", obj.Name)
	case isPodController(obj):
		return fmt.Sprintf("the garbage collector deletes all its pods at once while the new %s starts its own: no rolling update (maxSurge and maxUnavailable do not apply)", obj.Kind)
	case obj.Kind == "Job" && obj.Group() == "batch":
		return "its pods are deleted with it and the new Job runs from the start"
	case obj.Kind == "Service" && obj.Group() == "":
		return "the new Service gets a new clusterIP unless spec.clusterIP names one, and its endpoints are rebuilt"
	case obj.Kind == "PersistentVolumeClaim" && obj.Group() == "":
		return "its volume is released, and deleted with its data when the reclaim policy is Delete (the pvc-protection finalizer keeps the claim while a pod mounts it, and until it is gone a create fails and an apply lands on the terminating claim)"
	}
	return fmt.Sprintf("%s does not exist between the delete and the create, and what it owns is deleted with it", obj.Kind)
}

// replacementOf is the head object that takes a removed workload's place:
// one of another kind under the same name ("kind"), or one of the same
// kind, new in the change, that selects its pods ("rename").
func replacementOf(p *analysis.ChangePass, old *manifest.Object) (*manifest.Object, string) {
	for _, h := range p.Head {
		if h.Name == old.Name && sameNamespace(h, old) && (isPodController(h) || isLWS(h)) && p.BaseOf(h) == nil {
			return h, "kind"
		}
	}
	if !isPodController(old) {
		return nil, ""
	}
	for _, h := range p.Head {
		if h.Kind != old.Kind || h.Group() != old.Group() || !sameNamespace(h, old) || p.BaseOf(h) != nil {
			continue
		}
		if _, ok := selectsPodsOf(controllerSelector(h), old); ok {
			return h, "rename"
		}
	}
	return nil, ""
}

// reportReplacement reports a kind change or a rename that the engine
// applies as a create and a prune, at the new object.
func reportReplacement(p *analysis.ChangePass, old, repl *manifest.Object, how string) {
	created, deleted := objectLabel(repl), objectLabel(old)
	n, path, what := kindNode(repl), "kind", fmt.Sprintf("%s becomes %s under the same name", deleted, created)
	if how == "rename" {
		n, path, what = nameNode(repl), "metadata.name", fmt.Sprintf("%s replaces %s (renamed)", created, deleted)
	}
	msg := fmt.Sprintf("%s: they are two objects, so %s: no rolling update between them, the old pods all terminate at once when %s is deleted, whether or not the new ones are ready",
		what, pruneOrder(p.Applier, created, deleted), deleted)
	if claims := manifest.MapGet(manifest.MapGet(repl.Node, "spec"), "volumeClaimTemplates"); repl.Kind == "StatefulSet" && claims != nil && len(claims.Content) > 0 && (how == "rename" || old.Kind != "StatefulSet") {
		msg += fmt.Sprintf("; the pods of %s get new PersistentVolumeClaims (<claim>-%s-<ordinal>): the data of the old ones is not carried over", created, repl.Name)
	}
	p.Report(repl, n, path, nil, "%s", msg)
}
