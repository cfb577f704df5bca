package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/selector"
)

func TestNotDNS1035(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"vllm", true},
		{"llama-3-1", true},
		{"a", true},
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 64), false},
		{"llama-3.1", false}, // valid DNS-1123 subdomain, not a label
		{"Vllm", false},
		{"70b-serving", false},
		{"vllm-", false},
		{"-vllm", false},
		{"vllm_2", false},
	}
	for _, tc := range tests {
		if why := notDNS1035(tc.name); (why == "") != tc.ok {
			t.Errorf("notDNS1035(%q) = %q, want ok=%v", tc.name, why, tc.ok)
		}
	}
}

func TestLWSVersion(t *testing.T) {
	tests := []struct {
		in     string
		v      [3]int
		ok     bool
		before bool // before v0.8
	}{
		{"v0.7.1", [3]int{0, 7, 1}, true, true},
		{"0.8.0", [3]int{0, 8, 0}, true, false},
		{"v0.8.0-rc.1", [3]int{0, 8, 0}, true, false},
		{"v1", [3]int{1, 0, 0}, true, false},
		{"", [3]int{}, false, false},
		{"latest", [3]int{}, false, false},
		{"v0.8.0.1", [3]int{}, false, false},
	}
	for _, tc := range tests {
		v, ok := lwsVersion(tc.in)
		if v != tc.v || ok != tc.ok {
			t.Errorf("lwsVersion(%q) = %v, %v; want %v, %v", tc.in, v, ok, tc.v, tc.ok)
		}
		if ok && before(v, 0, 8) != tc.before {
			t.Errorf("%s before v0.8: %v", tc.in, !tc.before)
		}
	}
}

func parseOne(t *testing.T, src string) *manifest.Object {
	t.Helper()
	f := manifest.Parse("test.yaml", []byte(src), manifest.Context{})
	if len(f.Objects) != 1 {
		t.Fatalf("want one object, got %d (%v)", len(f.Objects), f.Errors)
	}
	return f.Objects[0]
}

func TestLWSDeps(t *testing.T) {
	obj := parseOne(t, `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: l}
spec:
  leaderWorkerTemplate:
    leaderTemplate:
      spec:
        serviceAccountName: leader-sa
        imagePullSecrets: [{name: registry}]
        initContainers:
          - name: init
            envFrom: [{secretRef: {name: init-secret}}]
        containers:
          - name: c
            env:
              - name: A
                valueFrom: {configMapKeyRef: {name: env-cm, key: a}}
              - name: B
                valueFrom: {secretKeyRef: {name: env-secret, key: b}}
              - name: C
                valueFrom: {fieldRef: {manifest.FieldPath: metadata.name}}
              - name: D
                value: plain
        volumes:
          - name: v1
            configMap: {name: vol-cm}
          - name: v2
            secret: {secretName: vol-secret}
          - name: v3
            persistentVolumeClaim: {claimName: data}
          - name: v4
            projected:
              sources:
                - configMap: {name: proj-cm}
                - secret: {name: proj-secret}
                - serviceAccountToken: {path: token}
          - name: v5
            emptyDir: {}
    workerTemplate:
      spec:
        serviceAccount: worker-sa
        ephemeralContainers:
          - name: debug
            envFrom: [{configMapRef: {name: debug-cm}}]
        containers:
          - name: c
            envFrom: [{configMapRef: {name: env-cm}}]
`)
	var got []string
	for _, d := range lwsDeps(obj) {
		got = append(got, d.Kind+"/"+d.Name)
	}
	want := "ConfigMap/debug-cm ConfigMap/env-cm ConfigMap/proj-cm ConfigMap/vol-cm PersistentVolumeClaim/data " +
		"Secret/env-secret Secret/init-secret Secret/proj-secret Secret/registry Secret/vol-secret ServiceAccount/leader-sa ServiceAccount/worker-sa"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestSelectsLWSPods(t *testing.T) {
	obj := parseOne(t, `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: vllm}
spec:
  leaderWorkerTemplate:
    leaderTemplate:
      metadata:
        labels: {role: leader, app: vllm}
    workerTemplate:
      metadata:
        labels: {role: worker, app: vllm}
`)
	pods := lwsPodLabels(obj)
	tests := []struct {
		sel  string
		want bool
	}{
		{"leaderworkerset.sigs.k8s.io/name=vllm", true},
		{"leaderworkerset.sigs.k8s.io/name=other", false},
		{"app=vllm", true},
		{"app=vllm,role=leader", true},
		{"app=vllm,role=worker", true},
		{"role=leader,leaderworkerset.sigs.k8s.io/worker-index=0", true},
		{"role=worker,leaderworkerset.sigs.k8s.io/worker-index=0", false},
		{"role=worker,leaderworkerset.sigs.k8s.io/worker-index=1", true},
		{"role=leader,leaderworkerset.sigs.k8s.io/worker-index=1", false},
		{"leaderworkerset.sigs.k8s.io/name=vllm,leaderworkerset.sigs.k8s.io/group-index=0", true},
		{"app=vllm,tier=gpu", false},
		{"", false},
	}
	for _, tc := range tests {
		sel := map[string]string{}
		for _, kv := range strings.Split(tc.sel, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				sel[k] = v
			}
		}
		if got := selectsLWSPods(selector.SetOf(sel), pods); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.sel, got, tc.want)
		}
	}
	// Without a leader template the leader is made from the worker's.
	only := parseOne(t, `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: x}
spec:
  leaderWorkerTemplate:
    workerTemplate:
      metadata: {labels: {app: x}}
`)
	if !selectsLWSPods(selector.SetOf(map[string]string{"app": "x", lwsWorkerIndexLabel: "0"}), lwsPodLabels(only)) {
		t.Error("the leader of an LWS without leaderTemplate has the worker template's labels")
	}
	if fmt.Sprint(len(lwsPodLabels(only))) != "2" {
		t.Error("want leader and worker label sets")
	}
}

// observeAll gathers lws-recreate-order's summaries of the objects of src.
func observeAll(t *testing.T, src string) (*orderAgg, []*manifest.Object) {
	t.Helper()
	f := manifest.Parse("test.yaml", []byte(src), manifest.Context{})
	if len(f.Errors) > 0 {
		t.Fatalf("fixture does not parse: %v", f.Errors)
	}
	var ss []*orderSummary
	for _, obj := range f.Objects {
		if s, ok := sharedOrderSummary(analysis.NewPass(lwsRecreateOrder, obj, &config.Config{}, nil)); ok {
			ss = append(ss, s)
		}
	}
	a, _ := newOrderAgg("", lwsRecreateOrder.ID, ss)
	return a, f.Objects
}

// TestFollowerIndex checks the index against trying every Service and HPA
// on every LWS, the way it was done before there was one.
func TestFollowerIndex(t *testing.T) {
	src := `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: vllm}
spec:
  leaderWorkerTemplate:
    leaderTemplate:
      metadata: {labels: {role: leader, app: vllm}}
    workerTemplate:
      metadata: {labels: {role: worker, app: vllm}}
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: other, namespace: ml}
spec:
  leaderWorkerTemplate:
    workerTemplate:
      metadata: {labels: {app: vllm}}
`
	for i, sel := range []string{
		"{leaderworkerset.sigs.k8s.io/name: vllm}",
		"{app: vllm}",
		"{app: vllm, role: leader}",
		"{role: worker, leaderworkerset.sigs.k8s.io/worker-index: '1'}",
		"{leaderworkerset.sigs.k8s.io/worker-index: '0'}", // per-pod labels only
		"{leaderworkerset.sigs.k8s.io/group-index: '3'}",  // per-pod labels only
		"{leaderworkerset.sigs.k8s.io/group-index: '3', app: vllm}",
		"{app: vllm, tier: gpu}",
		"{leaderworkerset.sigs.k8s.io/name: other}",
	} {
		for _, ns := range []string{"", "ml"} {
			src += fmt.Sprintf("---\napiVersion: v1\nkind: Service\nmetadata: {name: s%d, namespace: %q}\nspec:\n  selector: %s\n", i, ns, sel)
		}
	}
	for _, target := range []string{"vllm", "other", "vllm"} {
		src += "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: ml}\nspec:\n  scaleTargetRef: {apiVersion: leaderworkerset.x-k8s.io/v1, kind: LeaderWorkerSet, name: " + target + "}\n"
	}
	a, _ := observeAll(t, src)
	x := newFollowerIndex(a.services, a.hpas)
	for _, e := range a.lws {
		var want []*orderMember
		for _, s := range a.services {
			if s.At.Resource.EffectiveNamespace() == e.NS && selectsLWSPods(s.Sel, e.Pods) {
				want = append(want, &s.orderMember)
			}
		}
		for _, h := range a.hpas {
			if h.At.Resource.EffectiveNamespace() == e.NS && h.Target == e.At.Resource.Name {
				want = append(want, &h.orderMember)
			}
		}
		got := x.of(e)
		if fmt.Sprint(got) != fmt.Sprint(want) || len(want) == 0 {
			t.Errorf("%s: followers\n got %v\nwant %v", lwsKey(e), lines(got), lines(want))
		}
	}
}

func lines(ms []*orderMember) []int {
	var out []int
	for _, m := range ms {
		out = append(out, int(m.At.Line))
	}
	return out
}
