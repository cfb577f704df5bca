package helmrender

import (
	"sort"
	"strings"
)

// helm template's output order (Helm v3.22's releaseutil.SortManifests and
// cmd/helm/template.go): the CRDs, when included, first; then the manifests,
// stably sorted by kind in install order (kinds Helm does not list after
// those it does, alphabetically); then the hooks, likewise. A document whose
// helm.sh/hook annotation names an event Helm does not know is skipped by
// Helm (it is neither installed nor printed), so it is no object here either.

// installOrder is Helm's InstallOrder.
var installOrder = func() map[string]int {
	kinds := []string{
		"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange",
		"PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList",
		"ConfigMap", "StorageClass", "PersistentVolume", "PersistentVolumeClaim",
		"CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
		"ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList",
		"Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
		"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress",
		"APIService",
	}
	m := make(map[string]int, len(kinds))
	for i, k := range kinds {
		m[k] = i
	}
	return m
}()

const hookAnnotation = "helm.sh/hook"

// hookEvents are the events Helm knows ("test-success" is Helm 2's "test").
var hookEvents = map[string]bool{
	"pre-install": true, "post-install": true, "pre-delete": true, "post-delete": true,
	"pre-upgrade": true, "post-upgrade": true, "pre-rollback": true, "post-rollback": true,
	"test": true, "test-success": true,
}

// installSorted orders objects (given in template-name and document order)
// as helm template prints them, and drops unknown hooks.
func installSorted(objs []Object) []Object {
	var manifests, hooks []Object
	for _, o := range objs {
		hook, isHook := annotation(o, hookAnnotation)
		if !isHook {
			manifests = append(manifests, o)
			continue
		}
		if knownHook(hook) {
			hooks = append(hooks, o)
		}
	}
	sortByKind(manifests)
	sortByKind(hooks)
	return append(manifests, hooks...)
}

// withoutHooks leaves out the hooks `helm template` does not print with
// --no-hooks (all) or --skip-tests (those with the test event; Helm 2's
// test-success is the same event).
func withoutHooks(objs []Object, opts Options) []Object {
	if !opts.NoHooks && !opts.SkipTests {
		return objs
	}
	kept := objs[:0:0]
	for _, o := range objs {
		hook, isHook := annotation(o, hookAnnotation)
		if isHook && (opts.NoHooks || testHook(hook)) {
			continue
		}
		kept = append(kept, o)
	}
	return kept
}

func testHook(events string) bool {
	for _, e := range strings.Split(events, ",") {
		switch strings.ToLower(strings.TrimSpace(e)) {
		case "test", "test-success":
			return true
		}
	}
	return false
}

func knownHook(events string) bool {
	for _, e := range strings.Split(events, ",") {
		if !hookEvents[strings.ToLower(strings.TrimSpace(e))] {
			return false
		}
	}
	return true
}

func sortByKind(objs []Object) {
	sort.SliceStable(objs, func(i, j int) bool {
		a, b := kindOf(objs[i]), kindOf(objs[j])
		ia, aok := installOrder[a]
		ib, bok := installOrder[b]
		switch {
		case !aok && !bok:
			return a < b
		case !aok:
			return false
		case !bok:
			return true
		}
		return ia < ib
	})
}

func kindOf(o Object) string {
	if n := mapValue(o.Node, "kind"); n != nil {
		return n.Value
	}
	return ""
}

// annotation is metadata.annotations[key], and whether it is set.
func annotation(o Object, key string) (string, bool) {
	n := mapValue(mapValue(mapValue(o.Node, "metadata"), "annotations"), key)
	if n == nil {
		return "", false
	}
	return n.Value, true
}
