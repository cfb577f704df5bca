// Package refused tells which changes between two versions of one
// Kubernetes object the API server (or the admission webhook of the
// object's kind) refuses to apply as an update: "field is immutable",
// the most recurrent GitOps sync failure. Each check mirrors one
// Validate*Update function of the server, cited in its doc comment, and
// compares the fields that function compares after the defaults the
// server writes into them, so that a default written out on one side is
// no change (defaults.go).
//
// The versions are rendered manifests (manifest.Object, as rules receive
// them): base is what the cluster holds (applied from the base revision),
// head what the change applies. What the live object gained on the server
// (an allocated clusterIP, a generated Job selector, a default storage
// class) is not in either, and a check claims nothing it cannot see.
package refused

import (
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Stage says where the refusal happens.
type Stage int

const (
	// AtApply: the update itself is refused (kubectl and server-side apply
	// fail with 422 Invalid or a webhook's denial).
	AtApply Stage = iota
	// ByController: the update is accepted, but the controller of the
	// object is then refused when it carries the change to an object it
	// owns (a LeaderWorkerSet's StatefulSets): the change never rolls out.
	ByController
)

func (s Stage) String() string {
	if s == ByController {
		return "refused when the controller applies it"
	}
	return "refused at apply"
}

// Refusal is one changed field that would be refused.
type Refusal struct {
	// Path is the changed field, as deep as the change goes (a label
	// added to a selector: spec.selector.matchLabels.env).
	Path manifest.FieldPath
	// Reason is the server's message for it.
	Reason string
	// Mirrors names the server function whose rule this is.
	Mirrors string
	Stage   Stage
}

// kindKey is an object's group and kind, what picks its check.
type kindKey struct{ group, kind string }

// check is one kind's rule over the plain values of both versions.
type check func(base, head any) []Refusal

var checks = map[kindKey]check{
	{"apps", "Deployment"}:                              selectorCheck(mirrorsDeployment),
	{"apps", "ReplicaSet"}:                              selectorCheck(mirrorsReplicaSet),
	{"apps", "DaemonSet"}:                               selectorCheck(mirrorsDaemonSet),
	{"apps", "StatefulSet"}:                             statefulSet,
	{"batch", "Job"}:                                    job,
	{"", "Service"}:                                     service,
	{"", "PersistentVolumeClaim"}:                       persistentVolumeClaim,
	{"", "ConfigMap"}:                                   configMap,
	{"", "Secret"}:                                      secret,
	{"rbac.authorization.k8s.io", "RoleBinding"}:        roleRef(mirrorsRoleBinding),
	{"rbac.authorization.k8s.io", "ClusterRoleBinding"}: roleRef(mirrorsClusterRoleBinding),
	{"storage.k8s.io", "StorageClass"}:                  storageClass,
	{"leaderworkerset.x-k8s.io", "LeaderWorkerSet"}:     leaderWorkerSet,
}

// Checked reports whether Check knows the kind of r.
func Checked(r manifest.Resource) bool {
	_, ok := checks[kindKey{r.Group(), r.Kind}]
	return ok
}

// Check returns the fields whose change from base to head the server
// refuses, nil when it accepts the update. base and head are the same
// object (group, kind, namespace, name); a kind without a check (or a
// patch, Partial) gives nil.
func Check(base, head *manifest.Object) []Refusal {
	if base == nil || head == nil || base.Partial || head.Partial || base.Kind != head.Kind || base.Group() != head.Group() {
		return nil
	}
	c, ok := checks[kindKey{head.Group(), head.Kind}]
	if !ok {
		return nil
	}
	return c(decode(base.Node), decode(head.Node))
}

// refusals makes one Refusal per path.
func refusals(paths []manifest.FieldPath, reason, mirrors string, stage Stage) []Refusal {
	out := make([]Refusal, 0, len(paths))
	for _, p := range paths {
		out = append(out, Refusal{Path: p, Reason: reason, Mirrors: mirrors, Stage: stage})
	}
	return out
}
