package transformers

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestArgoWave(t *testing.T) {
	tests := []struct {
		ann  map[string]string
		wave int
		set  bool
	}{
		{nil, 0, false},
		{map[string]string{ArgoSyncWave: "3"}, 3, true},
		{map[string]string{ArgoSyncWave: "-2"}, -2, true},
		{map[string]string{ArgoSyncWave: "+2"}, 2, true},                     // strconv.Atoi, as gitops-engine
		{map[string]string{ArgoSyncWave: "two"}, 0, true},                    // not a number: 0, but written
		{map[string]string{ArgoSyncWave: "x", HelmHookWeight: "5"}, 5, true}, // falls back to the hook weight
		{map[string]string{HelmHookWeight: "-1"}, -1, false},
	}
	for _, tc := range tests {
		if w, set := ArgoWave(tc.ann); w != tc.wave || set != tc.set {
			t.Errorf("ArgoWave(%v) = %d, %v; want %d, %v", tc.ann, w, set, tc.wave, tc.set)
		}
	}
}

func TestEngineOf(t *testing.T) {
	tests := map[string]string{
		"argocd.argoproj.io/hook":                  EngineArgoCD,
		"argocd.argoproj.io/sync-wave":             EngineArgoCD,
		"kapp.k14s.io/change-group.x":              EngineKapp,
		"config.kubernetes.io/depends-on":          EngineCLIUtils,
		"config.kubernetes.io/apply-time-mutation": EngineCLIUtils,
		"kustomize.toolkit.fluxcd.io/prune":        EngineFlux,
		// kpt and kustomize put these on every function item: no evidence.
		"config.kubernetes.io/index":         "",
		"internal.config.kubernetes.io/path": "",
		"config.kubernetes.io/local-config":  "",
		"app.kubernetes.io/name":             "",
		"helm.sh/hook-weight":                "",
	}
	for key, want := range tests {
		if got := EngineOf(key); got != want {
			t.Errorf("EngineOf(%q) = %q, want %q", key, got, want)
		}
	}
}

// qualifiedName is k8s.io/apimachinery's IsQualifiedName, which kapp applies
// to change group names: an optional DNS subdomain prefix, a slash, and a
// name of at most 63 characters.
var qualifiedName = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)

func TestKappNames(t *testing.T) {
	long := strings.Repeat("a", 63)
	tests := []struct{ ns, name, lws, deps string }{
		{"inference", "vllm", "shipshape.dev/lws.inference.vllm", "shipshape.dev/deps.inference.vllm"},
		{"default", "x", "shipshape.dev/lws.default.x", "shipshape.dev/deps.default.x"},
		{long, long, "", ""},
		{long, long[:62] + "b", "", ""},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		lws, deps := KappGroups(tc.ns, tc.name)
		if tc.lws != "" && (lws != tc.lws || deps != tc.deps) {
			t.Errorf("KappGroups(%s, %s) = %s, %s; want %s, %s", tc.ns, tc.name, lws, deps, tc.lws, tc.deps)
		}
		for _, g := range []string{lws, deps} {
			if !qualifiedName.MatchString(g) {
				t.Errorf("group %q is not a qualified name", g)
			}
			if other, dup := seen[g]; dup {
				t.Errorf("group %q for %s/%s and %s", g, tc.ns, tc.name, other)
			}
			seen[g] = tc.ns + "/" + tc.name
		}
		for _, key := range []string{KappChangeGroup + "." + kappSuffix(tc.name), KappChangeRule + "." + kappSuffix(tc.name)} {
			if !qualifiedName.MatchString(key) {
				t.Errorf("annotation key %q is not a qualified name", key)
			}
		}
	}
}

func obj(kind, ns, name string, ann ...string) *OrderObject {
	o := &OrderObject{Ref: OrderRef{Kind: kind, Namespace: ns, Name: name}, Annotations: map[string]string{}}
	if kind == "LeaderWorkerSet" {
		o.Ref.Group = "leaderworkerset.x-k8s.io"
	}
	if kind == "HorizontalPodAutoscaler" {
		o.Ref.Group = "autoscaling"
	}
	for i := 0; i+1 < len(ann); i += 2 {
		o.Annotations[ann[i]] = ann[i+1]
	}
	return o
}

// show renders changes as "Kind/name: k=v k=v" or "Kind/name: blocked",
// one per line, for table comparisons.
func show(cs []*OrderChange) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s/%s:", c.Obj.Ref.Kind, c.Obj.Ref.Name)
		if c.Blocked != "" {
			b.WriteString(" blocked")
		}
		for _, kv := range c.Add {
			fmt.Fprintf(&b, " %s=%s", kv.Key, kv.Value)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// apply adds the changes' annotations, as the fix does.
func apply(cs []*OrderChange) {
	for _, c := range cs {
		if c.Blocked != "" {
			continue
		}
		for _, kv := range c.Add {
			c.Obj.Annotations[kv.Key] = kv.Value
		}
	}
}

type planCase struct {
	name string
	sets func() []OrderSet
	want string
}

func runPlan(t *testing.T, plan func([]OrderSet) []*OrderChange, tests []planCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sets := tc.sets()
			cs := plan(sets)
			if got := show(cs); got != tc.want {
				t.Errorf("got:\n%swant:\n%s", got, tc.want)
			}
			for _, c := range cs {
				if c.Reason == "" {
					t.Errorf("%s/%s: no reason", c.Obj.Ref.Kind, c.Obj.Ref.Name)
				}
			}
			// Running it on its own output asks for nothing more (what is
			// blocked stays blocked).
			apply(cs)
			for _, c := range plan(sets) {
				if len(c.Add) > 0 && c.Blocked == "" {
					t.Errorf("second run adds to %s/%s: %v", c.Obj.Ref.Kind, c.Obj.Ref.Name, c.Add)
				}
			}
		})
	}
}

func TestPlanArgoCD(t *testing.T) {
	runPlan(t, PlanArgoCD, []planCase{
		{"no waves", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c")}}}
		}, "LeaderWorkerSet/l: argocd.argoproj.io/sync-wave=1\n"},
		{"one more than the highest dependency", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l"), Deps: []*OrderObject{
				obj("ConfigMap", "ns", "c", ArgoSyncWave, "3"), obj("Secret", "ns", "s", ArgoSyncWave, "-1"), obj("ServiceAccount", "ns", "sa")}}}
		}, "LeaderWorkerSet/l: argocd.argoproj.io/sync-wave=4\n"},
		{"dependencies before wave 0: the LWS is already later", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c", ArgoSyncWave, "-5")}}}
		}, ""},
		{"already higher", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l", ArgoSyncWave, "10"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c", ArgoSyncWave, "3")}}}
		}, ""},
		{"an explicit lower wave is not overwritten", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l", ArgoSyncWave, "1"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c", ArgoSyncWave, "3")}}}
		}, "LeaderWorkerSet/l: blocked\n"},
		{"helm hook weight counts as the wave", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c", HelmHookWeight, "2")}}}
		}, "LeaderWorkerSet/l: argocd.argoproj.io/sync-wave=3\n"},
		{"followers get the LWS's wave", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c", ArgoSyncWave, "1")},
				Followers: []*OrderObject{obj("Service", "ns", "svc"), obj("HorizontalPodAutoscaler", "ns", "hpa", ArgoSyncWave, "5"), obj("Service", "ns", "low", ArgoSyncWave, "0")}}}
		}, "LeaderWorkerSet/l: argocd.argoproj.io/sync-wave=2\nService/svc: argocd.argoproj.io/sync-wave=2\nService/low: blocked\n"},
		{"followers of an LWS without dependencies", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l", ArgoSyncWave, "3"), Followers: []*OrderObject{obj("Service", "ns", "svc")}}}
		}, "Service/svc: argocd.argoproj.io/sync-wave=3\n"},
		{"a Service selecting two LWSs gets the later wave", func() []OrderSet {
			svc := obj("Service", "ns", "svc")
			return []OrderSet{
				{LWS: obj("LeaderWorkerSet", "ns", "a"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c", ArgoSyncWave, "4")}, Followers: []*OrderObject{svc}},
				{LWS: obj("LeaderWorkerSet", "ns", "b", ArgoSyncWave, "2"), Followers: []*OrderObject{svc}},
			}
		}, "LeaderWorkerSet/a: argocd.argoproj.io/sync-wave=5\nService/svc: argocd.argoproj.io/sync-wave=5\n"},
	})
}

func TestPlanKapp(t *testing.T) {
	const (
		lwsKeys = "kapp.k14s.io/change-group.shipshape-lws=shipshape.dev/lws.ns.l kapp.k14s.io/change-rule.shipshape-lws=upsert after upserting shipshape.dev/deps.ns.l"
		depKeys = "kapp.k14s.io/change-group.shipshape-l=shipshape.dev/deps.ns.l kapp.k14s.io/change-rule.shipshape-l=delete after deleting shipshape.dev/lws.ns.l"
	)
	runPlan(t, PlanKapp, []planCase{
		{"nothing ordered", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c"), obj("Secret", "ns", "s")}}}
		}, "LeaderWorkerSet/l: " + lwsKeys + "\nConfigMap/c: " + depKeys + "\nSecret/s: " + depKeys + "\n"},
		{"existing unsuffixed annotations stay", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l", KappChangeGroup, "team/app"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c", KappChangeRule, "upsert after upserting team/db")}}}
		}, "LeaderWorkerSet/l: " + lwsKeys + "\nConfigMap/c: " + depKeys + "\n"},
		{"ordered by the user's own groups and rules", func() []OrderSet {
			return []OrderSet{{
				LWS:  obj("LeaderWorkerSet", "ns", "l", KappChangeGroup, "app/lws", KappChangeRule+".1", "upsert after upserting app/config"),
				Deps: []*OrderObject{obj("ConfigMap", "ns", "c", KappChangeGroup+".x", "app/config", KappChangeRule, "delete after deleting app/lws")},
			}}
		}, ""},
		{"ordered the other way round: upsert before, delete before", func() []OrderSet {
			return []OrderSet{{
				LWS:  obj("LeaderWorkerSet", "ns", "l", KappChangeGroup, "app/lws", KappChangeRule, "delete before deleting app/config"),
				Deps: []*OrderObject{obj("ConfigMap", "ns", "c", KappChangeGroup, "app/config", KappChangeRule, "upsert before upserting app/lws")},
			}}
		}, ""},
		{"upsert ordered, delete not", func() []OrderSet {
			return []OrderSet{{
				LWS:  obj("LeaderWorkerSet", "ns", "l", KappChangeRule, "upsert after upserting app/config"),
				Deps: []*OrderObject{obj("ConfigMap", "ns", "c", KappChangeGroup, "app/config")},
			}}
		}, "LeaderWorkerSet/l: " + lwsKeys + "\nConfigMap/c: " + depKeys + "\n"},
		{"our key with another value: blocked, dependencies untouched", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l", KappChangeGroup+".shipshape-lws", "mine/lws"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c")}}}
		}, "LeaderWorkerSet/l: blocked kapp.k14s.io/change-rule.shipshape-lws=upsert after upserting shipshape.dev/deps.ns.l\n"},
		{"a ConfigMap two LWSs use joins both groups", func() []OrderSet {
			c := obj("ConfigMap", "ns", "c")
			return []OrderSet{
				{LWS: obj("LeaderWorkerSet", "ns", "l"), Deps: []*OrderObject{c}},
				{LWS: obj("LeaderWorkerSet", "ns", "m"), Deps: []*OrderObject{c}},
			}
		}, "LeaderWorkerSet/l: " + lwsKeys + "\nConfigMap/c: " + depKeys +
			" kapp.k14s.io/change-group.shipshape-m=shipshape.dev/deps.ns.m kapp.k14s.io/change-rule.shipshape-m=delete after deleting shipshape.dev/lws.ns.m\n" +
			"LeaderWorkerSet/m: kapp.k14s.io/change-group.shipshape-lws=shipshape.dev/lws.ns.m kapp.k14s.io/change-rule.shipshape-lws=upsert after upserting shipshape.dev/deps.ns.m\n"},
		{"the same LWS twice (two overlays): the ConfigMap's keys once", func() []OrderSet {
			c := obj("ConfigMap", "ns", "c")
			return []OrderSet{
				{LWS: obj("LeaderWorkerSet", "ns", "l"), Deps: []*OrderObject{c}},
				{LWS: obj("LeaderWorkerSet", "ns", "l"), Deps: []*OrderObject{c}},
			}
		}, "LeaderWorkerSet/l: " + lwsKeys + "\nConfigMap/c: " + depKeys + "\nLeaderWorkerSet/l: " + lwsKeys + "\n"},
		{"no namespace: groups name the default one", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "", "l"), Deps: []*OrderObject{obj("Secret", "", "s")}}}
		}, "LeaderWorkerSet/l: " + strings.ReplaceAll(lwsKeys, ".ns.", ".default.") + "\nSecret/s: " + strings.ReplaceAll(depKeys, ".ns.", ".default.") + "\n"},
		{"no dependencies", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l")}}
		}, ""},
	})
}

func TestPlanCLIUtils(t *testing.T) {
	runPlan(t, PlanCLIUtils, []planCase{
		{"adds the references", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c"), obj("PersistentVolumeClaim", "ns", "p")}}}
		}, "LeaderWorkerSet/l: config.kubernetes.io/depends-on=/namespaces/ns/ConfigMap/c,/namespaces/ns/PersistentVolumeClaim/p\n"},
		{"merged with what is there, as written", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l", DependsOn, "/Namespace/ns, /namespaces/ns/ConfigMap/c"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c"), obj("Secret", "ns", "s")}}}
		}, "LeaderWorkerSet/l: config.kubernetes.io/depends-on=/Namespace/ns, /namespaces/ns/ConfigMap/c,/namespaces/ns/Secret/s\n"},
		{"all listed", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l", DependsOn, "/namespaces/ns/ConfigMap/c"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c")}}}
		}, ""},
		{"an object twice in the input is listed once", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l"), Deps: []*OrderObject{obj("ConfigMap", "ns", "c"), obj("ConfigMap", "ns", "c")}}}
		}, "LeaderWorkerSet/l: config.kubernetes.io/depends-on=/namespaces/ns/ConfigMap/c\n"},
		{"no namespace: blocked", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "", "l"), Deps: []*OrderObject{obj("ConfigMap", "", "c")}}}
		}, "LeaderWorkerSet/l: blocked\n"},
		{"no dependencies", func() []OrderSet {
			return []OrderSet{{LWS: obj("LeaderWorkerSet", "ns", "l")}}
		}, ""},
	})
}
