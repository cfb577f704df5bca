package rules

import (
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/selector"
)

// What the LWS rules read of a LeaderWorkerSet: the objects its pods use,
// and the labels its pods carry.

// Labels the LWS controller puts on every pod it creates.
const (
	lwsNameLabel        = "leaderworkerset.sigs.k8s.io/name"
	lwsWorkerIndexLabel = "leaderworkerset.sigs.k8s.io/worker-index"
)

// lwsVaryingLabels are controller labels whose value differs from pod to
// pod (group index, hashes): a selector on any value of them may match.
var lwsVaryingLabels = map[string]bool{
	"leaderworkerset.sigs.k8s.io/group-index":            true,
	"leaderworkerset.sigs.k8s.io/group-key":              true,
	"leaderworkerset.sigs.k8s.io/template-revision-hash": true,
	"leaderworkerset.sigs.k8s.io/subgroup-index":         true,
	"leaderworkerset.sigs.k8s.io/subgroup-key":           true,
}

// depRef is an object a pod template refers to by name, in the pod's
// namespace: ConfigMap, Secret, ServiceAccount or PersistentVolumeClaim
// (all in the core group).
type depRef struct{ Kind, Name string }

func (d depRef) String() string { return d.Kind + " " + quote(d.Name) }

// lwsDeps returns what the leader and worker templates of an LWS use,
// sorted by kind and name.
func lwsDeps(obj *manifest.Object) []depRef {
	seen := map[depRef]bool{}
	add := func(kind string, n *yaml.Node) {
		if name := manifest.ScalarValue(n); name != "" {
			seen[depRef{kind, name}] = true
		}
	}
	for _, t := range podTemplates(obj) {
		podSpecDeps(manifest.MapGet(t.Node, "spec"), add)
	}
	out := make([]depRef, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// podSpecDeps reports the ConfigMaps, Secrets, ServiceAccount and PVCs a
// PodSpec names: volumes (projected sources included), env valueFrom and
// envFrom of containers, init and ephemeral containers, imagePullSecrets,
// serviceAccountName (and its deprecated alias serviceAccount).
func podSpecDeps(spec *yaml.Node, add func(kind string, name *yaml.Node)) {
	if spec == nil || spec.Kind != yaml.MappingNode {
		return
	}
	if sa := manifest.MapGet(spec, "serviceAccountName"); sa != nil {
		add("ServiceAccount", sa)
	} else {
		add("ServiceAccount", manifest.MapGet(spec, "serviceAccount"))
	}
	for _, s := range items(manifest.MapGet(spec, "imagePullSecrets")) {
		add("Secret", manifest.MapGet(s, "name"))
	}
	for _, v := range items(manifest.MapGet(spec, "volumes")) {
		add("ConfigMap", manifest.Path(v, "configMap", "name"))
		add("Secret", manifest.Path(v, "secret", "secretName"))
		add("PersistentVolumeClaim", manifest.Path(v, "persistentVolumeClaim", "claimName"))
		for _, src := range items(manifest.Path(v, "projected", "sources")) {
			add("ConfigMap", manifest.Path(src, "configMap", "name"))
			add("Secret", manifest.Path(src, "secret", "name"))
		}
	}
	for _, list := range []string{"containers", "initContainers", "ephemeralContainers"} {
		for _, c := range items(manifest.MapGet(spec, list)) {
			for _, e := range items(manifest.MapGet(c, "env")) {
				add("ConfigMap", manifest.Path(e, "valueFrom", "configMapKeyRef", "name"))
				add("Secret", manifest.Path(e, "valueFrom", "secretKeyRef", "name"))
			}
			for _, e := range items(manifest.MapGet(c, "envFrom")) {
				add("ConfigMap", manifest.Path(e, "configMapRef", "name"))
				add("Secret", manifest.Path(e, "secretRef", "name"))
			}
		}
	}
}

// lwsPods is what is known of the labels of one kind of LWS pod: the
// template's labels plus the controller's, and whether it is the leader.
type lwsPods struct {
	Labels map[string]string
	Leader bool
}

// lwsPodLabels returns the label sets of an LWS's leader and worker pods.
// The leader uses the worker template when it has none of its own.
func lwsPodLabels(obj *manifest.Object) []lwsPods {
	lwt := manifest.Path(obj.Node, "spec", "leaderWorkerTemplate")
	worker := manifest.MapGet(lwt, "workerTemplate")
	leader := manifest.MapGet(lwt, "leaderTemplate")
	if leader == nil {
		leader = worker
	}
	var out []lwsPods
	for _, t := range []struct {
		n      *yaml.Node
		leader bool
	}{{leader, true}, {worker, false}} {
		if t.n == nil || t.n.Kind != yaml.MappingNode {
			continue
		}
		l := selector.Labels(manifest.Path(t.n, "metadata", "labels"))
		if l == nil {
			l = map[string]string{}
		}
		for k, v := range obj.SelectorLabels {
			l[k] = v
		}
		l[lwsNameLabel] = obj.Name
		if t.leader {
			l[lwsWorkerIndexLabel] = "0"
		}
		out = append(out, lwsPods{l, t.leader})
	}
	return out
}

// selectsLWSPods reports whether a Service's equality selector matches some
// pod of an LWS. Controller labels whose value varies per pod match any
// value; worker-index matches "0" on the leader and any other value on
// workers.
func selectsLWSPods(sel selector.Set, pods []lwsPods) bool {
	if len(sel) == 0 {
		return false // a Service without a selector selects nothing
	}
	for _, p := range pods {
		ok := true
		for k, v := range sel.All() {
			have, set := p.Labels[k]
			switch {
			case set:
				ok = have == v
			case k == lwsWorkerIndexLabel:
				ok = !p.Leader && v != "0"
			default:
				ok = lwsVaryingLabels[k]
			}
			if !ok {
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
