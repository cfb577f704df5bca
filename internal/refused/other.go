package refused

import (
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

const (
	mirrorsRoleBinding        = "k8s.io/kubernetes pkg/apis/rbac/validation.ValidateRoleBindingUpdate"
	mirrorsClusterRoleBinding = "k8s.io/kubernetes pkg/apis/rbac/validation.ValidateClusterRoleBindingUpdate"
	mirrorsStorageClass       = "k8s.io/kubernetes pkg/apis/storage/validation.ValidateStorageClassUpdate"
	mirrorsLWS                = "sigs.k8s.io/lws pkg/webhooks/leaderworkerset_webhook.go LeaderWorkerSetWebhook.ValidateUpdate (v0.7.0, v0.8.0)"
	mirrorsLWSStatefulSet     = "k8s.io/kubernetes pkg/apis/apps/validation.ValidateStatefulSetUpdate, on the StatefulSets the LWS controller applies (sigs.k8s.io/lws pkg/controllers)"
)

// roleRef mirrors ValidateRoleBindingUpdate and
// ValidateClusterRoleBindingUpdate: roleRef (apiGroup, kind, name) cannot
// change.
func roleRef(mirrors string) check {
	return func(base, head any) []Refusal {
		paths := diff(manifest.Keys("roleRef"), get(base, "roleRef"), get(head, "roleRef"))
		return refusals(paths, "cannot change roleRef", mirrors, AtApply)
	}
}

// storageClass mirrors ValidateStorageClassUpdate: parameters,
// provisioner, reclaimPolicy (default Delete) and volumeBindingMode
// (default Immediate) cannot change; allowVolumeExpansion, mountOptions
// and allowedTopologies may.
func storageClass(base, head any) []Refusal {
	b, h := clone(base), clone(head)
	for _, sc := range []any{b, h} {
		setDefault(sc, "Delete", "reclaimPolicy")
		setDefault(sc, "Immediate", "volumeBindingMode")
	}
	var out []Refusal
	for _, k := range []string{"parameters", "provisioner", "reclaimPolicy", "volumeBindingMode"} {
		reason := "updates to " + k + " are forbidden."
		if k == "volumeBindingMode" {
			reason = "field is immutable"
		}
		out = append(out, refusals(diff(manifest.Keys(k), get(b, k), get(h, k)), reason, mirrorsStorageClass, AtApply)...)
	}
	return out
}

// leaderWorkerSet mirrors the LWS validating webhook's ValidateUpdate:
// subGroupPolicy may not be added or removed, nor its subGroupSize
// changed. (Its check of subdomainPolicy set to null never fires on an
// apply: the mutating webhook defaults a missing subdomainPolicy to
// Shared first.) Everything else may change: size is mutable since
// v0.7.0. volumeClaimTemplates changes are accepted, but the controller's
// apply of the changed templates to its StatefulSets is refused by
// ValidateStatefulSetUpdate, so the change never rolls out (ByController).
func leaderWorkerSet(base, head any) []Refusal {
	lwt := []string{"spec", "leaderWorkerTemplate"}
	bp, hp := get(base, append(lwt, "subGroupPolicy")...), get(head, append(lwt, "subGroupPolicy")...)
	var out []Refusal
	sizePath := manifest.Keys(append(lwt, "subGroupPolicy", "subGroupSize")...)
	switch {
	case bp == nil && hp != nil:
		out = append(out, Refusal{Path: manifest.Keys(append(lwt, "subGroupPolicy")...), Reason: "cannot enable subGroupSize after the lws is already created", Mirrors: mirrorsLWS, Stage: AtApply})
	case bp != nil && hp == nil:
		out = append(out, Refusal{Path: manifest.Keys(append(lwt, "subGroupPolicy")...), Reason: "cannot remove subGroupSize after enabled", Mirrors: mirrorsLWS, Stage: AtApply})
	case bp != nil && !equal(get(bp, "subGroupSize"), get(hp, "subGroupSize")):
		out = append(out, Refusal{Path: sizePath, Reason: "field is immutable", Mirrors: mirrorsLWS, Stage: AtApply})
	}
	bv, _ := clone(get(base, append(lwt, "volumeClaimTemplates")...)).([]any)
	hv, _ := clone(get(head, append(lwt, "volumeClaimTemplates")...)).([]any)
	for _, c := range append(append([]any{}, bv...), hv...) {
		defaultClaim(c)
	}
	var bvals, hvals any
	if len(bv) > 0 {
		bvals = bv
	}
	if len(hv) > 0 {
		hvals = hv
	}
	paths := diff(manifest.Keys(append(lwt, "volumeClaimTemplates")...), bvals, hvals)
	return append(out, refusals(paths, "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden", mirrorsLWSStatefulSet, ByController)...)
}
