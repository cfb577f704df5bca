package refused

import (
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

const (
	mirrorsDeployment  = "k8s.io/kubernetes pkg/registry/apps/deployment/strategy.go deploymentStrategy.ValidateUpdate (spec.selector immutable in apps/v1)"
	mirrorsReplicaSet  = "k8s.io/kubernetes pkg/registry/apps/replicaset/strategy.go rsStrategy.ValidateUpdate (spec.selector immutable in apps/v1)"
	mirrorsDaemonSet   = "k8s.io/kubernetes pkg/registry/apps/daemonset/strategy.go daemonSetStrategy.ValidateUpdate (spec.selector immutable in apps/v1)"
	mirrorsStatefulSet = "k8s.io/kubernetes pkg/apis/apps/validation.ValidateStatefulSetUpdate"
	mirrorsJob         = "k8s.io/kubernetes pkg/apis/batch/validation.ValidateJobSpecUpdate"
)

// selectorCheck is the apps/v1 rule of Deployment, ReplicaSet and
// DaemonSet: the registry strategies' ValidateUpdate refuse any change
// of spec.selector (apivalidation.ValidateImmutableField, semantic
// equality: matchLabels as a map, matchExpressions in order).
func selectorCheck(mirrors string) check {
	return func(base, head any) []Refusal {
		paths := diff(manifest.Keys("spec", "selector"), get(base, "spec", "selector"), get(head, "spec", "selector"))
		return refusals(paths, "field is immutable", mirrors, AtApply)
	}
}

// statefulSetMutable are the spec fields ValidateStatefulSetUpdate copies
// from the old object before comparing: the only ones an update may change.
var statefulSetMutable = []string{"replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy", "minReadySeconds"}

// statefulSet mirrors ValidateStatefulSetUpdate: spec may change only in
// replicas, ordinals, template, updateStrategy, revisionHistoryLimit,
// persistentVolumeClaimRetentionPolicy and minReadySeconds. So selector,
// serviceName, podManagementPolicy (default OrderedReady) and
// volumeClaimTemplates (each defaulted as SetDefaults_StatefulSet does:
// volumeMode Filesystem) are compared.
func statefulSet(base, head any) []Refusal {
	b, h := clone(get(base, "spec")), clone(get(head, "spec"))
	for _, spec := range []any{b, h} {
		for _, k := range statefulSetMutable {
			del(spec, k)
		}
		setDefault(spec, "OrderedReady", "podManagementPolicy")
		vcts, _ := get(spec, "volumeClaimTemplates").([]any)
		for _, c := range vcts {
			defaultClaim(c)
		}
	}
	paths := diff(manifest.Keys("spec"), b, h)
	return refusals(paths, "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden", mirrorsStatefulSet, AtApply)
}

// jobImmutable are the spec fields ValidateJobSpecUpdate holds with
// ValidateImmutableField, besides selector, template and completions.
var jobImmutable = []string{"completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy"}

// jobSchedulingDirectives are what validatePodTemplateUpdate lets change
// in the template of a Job that is suspended and never started
// (AllowMutableSchedulingDirectives, set by the Job strategy from the old
// Job's spec.suspend and status.startTime).
var jobSchedulingDirectives = [][]string{
	{"spec", "nodeSelector"}, {"spec", "tolerations"}, {"spec", "schedulingGates"},
	{"metadata", "labels"}, {"metadata", "annotations"},
}

// job mirrors ValidateJobSpecUpdate with validateCompletions and
// validatePodTemplateUpdate: selector, template (pod defaults applied),
// completionMode (default NonIndexed), podFailurePolicy,
// backoffLimitPerIndex, managedBy and successPolicy are immutable;
// completions too, except for an Indexed Job changing it in tandem with
// parallelism. A base with suspend: true is taken as never started (the
// usual way to create a Job to edit before it runs): then the template's
// scheduling directives (nodeSelector, tolerations, node affinity,
// schedulingGates, labels, annotations) may change, nothing else of it.
func job(base, head any) []Refusal {
	b, h := clone(get(base, "spec")), clone(get(head, "spec"))
	var out []Refusal
	immutable := func(paths []manifest.FieldPath) {
		out = append(out, refusals(paths, "field is immutable", mirrorsJob, AtApply)...)
	}
	for _, spec := range []any{b, h} {
		setDefault(spec, "NonIndexed", "completionMode")
		if get(spec, "completions") == nil && get(spec, "parallelism") == nil {
			set(spec, num("1"), "completions") // SetDefaults_Job
			set(spec, num("1"), "parallelism")
		}
		if t := get(spec, "template"); t != nil {
			defaultPodTemplate(t)
		}
	}
	if get(h, "selector") != nil { // else the server's generated one stays
		immutable(diff(manifest.Keys("spec", "selector"), get(b, "selector"), get(h, "selector")))
	}
	for _, k := range jobImmutable {
		immutable(diff(manifest.Keys("spec", k), get(b, k), get(h, k)))
	}
	if !equal(get(b, "completions"), get(h, "completions")) {
		indexed := text(h, "completionMode") == "Indexed"
		switch {
		case !indexed:
			immutable([]manifest.FieldPath{manifest.Keys("spec", "completions")})
		case get(h, "completions") != nil && !equal(get(h, "completions"), get(h, "parallelism")):
			out = append(out, Refusal{Path: manifest.Keys("spec", "completions"), Reason: "can only be modified in tandem with spec.parallelism", Mirrors: mirrorsJob + " (validateCompletions)", Stage: AtApply})
		}
	}
	bt, ht := get(b, "template"), get(h, "template")
	if text(base, "spec", "suspend") == "true" && bt != nil && ht != nil {
		for _, keys := range jobSchedulingDirectives {
			del(bt, keys...)
			del(ht, keys...)
		}
		del(bt, "spec", "affinity", "nodeAffinity")
		del(ht, "spec", "affinity", "nodeAffinity")
	}
	immutable(diff(manifest.Keys("spec", "template"), bt, ht))
	return out
}
