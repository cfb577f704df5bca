package rules

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/intern"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/schema"
	"github.com/shipshape-dev/shipshape/internal/selector"
)

// pods is what is known of the labels of the pods one template makes: the
// template's labels and those its controller adds. A summary for the
// cross-resource rules: no node is kept.
type pods struct {
	Owner string // Deployment/rng
	NS    string
	File  string // the file that defines it, as named
	// fixed labels have one value on every pod; varying ones take a value
	// per pod that no manifest knows (hashes, uids, indexes): a selector on
	// any value of them may match; oneOf ones take one of a known set
	// (StatefulSet pod names).
	Fixed   selector.Set
	Varying map[string]bool
	OneOf   map[string][]string
	// own is the controller's metadata.labels that its pods do not get
	// (the template lacks them), as "\nk=v\n…\n", or "": a Service that
	// selects those selects no pod of it, the classic mix-up.
	Own string
}

// ownHas reports whether the controller carries k=v in its own labels.
func (p *pods) ownHas(k, v string) bool {
	return p.Own != "" && strings.Contains(p.Own, "\n"+k+"="+v+"\n")
}

// has reports whether some pod carries k=v.
func (p *pods) has(k, v string) bool {
	if have, ok := p.Fixed.Get(k); ok {
		// A placeholder is filled in before the apply (Flux postBuild,
		// envsubst): it may be v.
		return have == v || placeholder(have)
	}
	return p.Varying[k] || slices.Contains(p.OneOf[k], v)
}

// carries reports whether p's pods carry every entry of sel: missing
// without the list, for the many templates a selector is tried on.
func (p *pods) carries(sel selector.Set) bool {
	for k, v := range sel.All() {
		if !p.has(k, v) {
			return false
		}
	}
	return true
}

// lacking counts the entries of sel no pod of p carries.
func (p *pods) lacking(sel selector.Set) int {
	n := 0
	for k, v := range sel.All() {
		if !p.has(k, v) {
			n++
		}
	}
	return n
}

// missing lists, sorted, the entries of sel no pod of p carries.
func (p *pods) missing(sel selector.Set) []string {
	var out []string
	for k, v := range sel.All() {
		if !p.has(k, v) {
			out = append(out, k+"="+v)
		}
	}
	sort.Strings(out)
	return out
}

// Labels controllers add to the pods they make with a value per pod, by
// controller kind: shared, read-only sets (summaries of every workload of
// a repository point at them rather than carry copies).
var (
	noLabels         = set()
	deploymentLabels = set("pod-template-hash")
	daemonSetLabels  = set("controller-revision-hash", "pod-template-generation")
	statefulLabels   = set("controller-revision-hash")
	statefulUnknown  = set("controller-revision-hash", "statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index")
	jobLabels        = set("controller-uid", "batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-completion-index")
	cronJobLabels    = set("job-name", "batch.kubernetes.io/job-name", "controller-uid", "batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-completion-index")
	lwsLeaderLabels  = set("leaderworkerset.sigs.k8s.io/group-index", "leaderworkerset.sigs.k8s.io/group-key", "leaderworkerset.sigs.k8s.io/template-revision-hash")
	lwsWorkerLabels  = set("leaderworkerset.sigs.k8s.io/group-index", "leaderworkerset.sigs.k8s.io/group-key", "leaderworkerset.sigs.k8s.io/template-revision-hash", lwsWorkerIndexLabel)
	rolloutLabels    = set("rollouts-pod-template-hash")
	dcLabels         = set("deployment") // <name>-<version>, its ReplicationController
)

func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// podsOf is makesPods once per object, whichever rules ask.
func podsOf(p *analysis.Pass) []*pods {
	return p.Memo("rules.pods", func() any { return makesPods(p.Object) }).([]*pods)
}

// makesPods returns the pods obj makes: a Pod's own labels, or one entry per
// pod template of a built-in workload or a known custom resource
// (LeaderWorkerSet, Argo Rollouts' Rollout, OpenShift's DeploymentConfig),
// with the controller's labels.
// PodTemplate objects make no pods.
func makesPods(obj *manifest.Object) []*pods {
	g := obj.Group()
	// mk is the pods of template tmpl, with the labels of every pod
	// (varying) and those its controller adds (added: the Job's name).
	mk := func(tmpl *yaml.Node, varying map[string]bool, added ...selector.Label) *pods {
		p := &pods{Owner: obj.Kind + "/" + obj.Name, NS: intern.String(obj.EffectiveNamespace()), File: obj.File, Varying: varying}
		fixed := selector.Labels(manifest.Path(tmpl, "metadata", "labels"))
		if fixed == nil {
			fixed = map[string]string{}
		}
		for k, v := range obj.SelectorLabels {
			fixed[k] = v
		}
		for _, l := range added {
			fixed[l.Key] = l.Value
		}
		p.Fixed = selector.SetOf(fixed)
		var own []string
		for k, v := range selector.Labels(manifest.Path(obj.Node, "metadata", "labels")) {
			if have, ok := fixed[k]; !ok || have != v {
				own = append(own, k+"="+v)
			}
		}
		if len(own) > 0 {
			sort.Strings(own)
			p.Own = "\n" + strings.Join(own, "\n") + "\n"
		}
		return p
	}
	template := func() *yaml.Node {
		n := manifest.Path(obj.Node, "spec", "template")
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		return n
	}
	var out []*pods
	add := func(p *pods) { out = append(out, p) }
	switch {
	case obj.Kind == "Pod" && obj.APIVersion == "v1":
		add(mk(obj.Node, noLabels))
	case obj.Kind == "ReplicationController" && obj.APIVersion == "v1", obj.Kind == "ReplicaSet" && (g == "apps" || g == "extensions"):
		if t := template(); t != nil {
			add(mk(t, noLabels))
		}
	case obj.Kind == "Deployment" && (g == "apps" || g == "extensions"):
		if t := template(); t != nil {
			add(mk(t, deploymentLabels))
		}
	case obj.Kind == "DaemonSet" && (g == "apps" || g == "extensions"):
		if t := template(); t != nil {
			add(mk(t, daemonSetLabels))
		}
	case obj.Kind == "StatefulSet" && g == "apps":
		if t := template(); t != nil {
			p := mk(t, statefulLabels)
			if n, ok := replicas(obj); ok {
				p.OneOf = map[string][]string{}
				for i := range n {
					p.OneOf["statefulset.kubernetes.io/pod-name"] = append(p.OneOf["statefulset.kubernetes.io/pod-name"], fmt.Sprintf("%s-%d", obj.Name, i))
					p.OneOf["apps.kubernetes.io/pod-index"] = append(p.OneOf["apps.kubernetes.io/pod-index"], strconv.Itoa(i))
				}
			} else {
				p.Varying = statefulUnknown
			}
			add(p)
		}
	case obj.Kind == "Job" && g == "batch":
		if t := template(); t != nil {
			add(mk(t, jobLabels, selector.Label{Key: "job-name", Value: obj.Name}, selector.Label{Key: "batch.kubernetes.io/job-name", Value: obj.Name}))
		}
	case obj.Kind == "CronJob" && g == "batch":
		if t := manifest.Path(obj.Node, "spec", "jobTemplate", "spec", "template"); t != nil && t.Kind == yaml.MappingNode {
			add(mk(t, cronJobLabels))
		}
	case isLWS(obj):
		for _, lp := range lwsPodLabels(obj) {
			p := &pods{Owner: obj.Kind + "/" + obj.Name, NS: intern.String(obj.EffectiveNamespace()), File: obj.File, Varying: lwsLeaderLabels}
			if !lp.Leader {
				// Workers have indexes 1 and up; the leader's is fixed at 0.
				delete(lp.Labels, lwsWorkerIndexLabel)
				p.Varying = lwsWorkerLabels
			}
			p.Fixed = selector.SetOf(lp.Labels)
			add(p)
		}
	case obj.Kind == "Rollout" && g == "argoproj.io":
		if t := template(); t != nil {
			add(mk(t, rolloutLabels))
		}
	case isDeploymentConfig(obj):
		if t := template(); t != nil {
			add(mk(t, dcLabels, selector.Label{Key: "deploymentconfig", Value: obj.Name}))
		}
	}
	return out
}

// isDeploymentConfig reports OpenShift's DeploymentConfig, whose pods carry
// its template's labels, deploymentconfig: <its name> and deployment:
// <its name>-<version>.
func isDeploymentConfig(obj *manifest.Object) bool {
	return obj.Kind == "DeploymentConfig" && obj.Group() == "apps.openshift.io"
}

// replicas reads a literal spec.replicas (1 when absent); false when it is
// not a small number.
func replicas(obj *manifest.Object) (int, bool) {
	n := manifest.Path(obj.Node, "spec", "replicas")
	if n == nil {
		return 1, true
	}
	r, err := strconv.Atoi(manifest.ScalarValue(n))
	return r, err == nil && r >= 0 && r <= 1000
}

// makeNoPods are custom resources whose controllers make no pods:
// autoscaling, certificates, monitoring, secrets and routing
// configuration, and rollouts that steer another workload's pods (by
// group; "*" for every kind of the group).
var makeNoPods = map[string][]string{
	"keda.sh":                        {"ScaledObject", "TriggerAuthentication", "ClusterTriggerAuthentication"},
	"autoscaling.k8s.io":             {"VerticalPodAutoscaler"},
	"cert-manager.io":                {"*"},
	"monitoring.coreos.com":          {"ServiceMonitor", "PodMonitor", "PrometheusRule", "Probe", "AlertmanagerConfig", "ScrapeConfig"},
	"external-secrets.io":            {"ExternalSecret", "ClusterExternalSecret", "SecretStore", "ClusterSecretStore", "PushSecret"},
	"bitnami.com":                    {"SealedSecret"},
	"gateway.networking.k8s.io":      {"HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "UDPRoute", "ReferenceGrant"},
	"networking.istio.io":            {"VirtualService", "DestinationRule", "ServiceEntry", "Sidecar", "WorkloadEntry"},
	"security.istio.io":              {"*"},
	"traefik.io":                     {"IngressRoute", "IngressRouteTCP", "IngressRouteUDP", "Middleware", "MiddlewareTCP", "TLSOption", "TLSStore", "ServersTransport", "TraefikService"},
	"source.toolkit.fluxcd.io":       {"*"},
	"notification.toolkit.fluxcd.io": {"*"},
	"image.toolkit.fluxcd.io":        {"*"},
	"rollouts.kruise.io":             {"Rollout", "BatchRelease", "RolloutHistory", "TrafficRouting"},
	"route.openshift.io":             {"Route"},
	"image.openshift.io":             {"ImageStream", "ImageStreamTag", "ImageTag"},
	"security.openshift.io":          {"SecurityContextConstraints"},
	"build.openshift.io":             {"BuildConfig", "Build"}, // build pods, which no Service selects
}

// mayMakePods reports an object of a kind shipshape does not know: a
// custom resource whose operator may make pods shipshape cannot see.
func mayMakePods(obj *manifest.Object) bool {
	if obj.Kind == "" || obj.APIVersion == "" || isLWS(obj) || obj.Kind == "Rollout" && obj.Group() == "argoproj.io" || isDeploymentConfig(obj) {
		return false
	}
	if kinds := makeNoPods[obj.Group()]; slices.Contains(kinds, "*") || slices.Contains(kinds, obj.Kind) {
		return false
	}
	if _, builtin := schema.ForObject(obj.APIVersion, obj.Kind); builtin {
		return false
	}
	// Kustomize's own configuration objects make nothing.
	return !strings.HasSuffix(obj.Group(), "kustomize.config.k8s.io") && !strings.HasPrefix(obj.APIVersion, "kustomize.")
}
