package rules

import (
	"slices"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/selector"
)

// TestPodIndex checks the index service-no-matching-pods looks templates
// up in against trying every template: for every selector over a small
// alphabet of labels, the same answer.
func TestPodIndex(t *testing.T) {
	templates := []*pods{
		{Owner: "Deployment/a", Fixed: selector.SetOf(map[string]string{"app": "a", "tier": "web"}), Varying: deploymentLabels},
		{Owner: "Deployment/b", Fixed: selector.SetOf(map[string]string{"app": "b"}), Varying: deploymentLabels},
		// fixed wins over a value per pod for the same key
		{Owner: "DaemonSet/c", Fixed: selector.SetOf(map[string]string{"app": "c", "pod-template-hash": "x"}), Varying: set("pod-template-hash")},
		{Owner: "StatefulSet/db", Fixed: selector.SetOf(map[string]string{"app": "db"}), Varying: statefulLabels,
			OneOf: map[string][]string{"statefulset.kubernetes.io/pod-name": {"db-0", "db-1"}}},
		{Owner: "Pod/bare", Fixed: selector.SetOf(map[string]string{}), Varying: noLabels},
	}
	ix := newPodIndex()
	for _, p := range templates {
		ix.add(p, analysis.AppID{})
	}
	keys := []string{"app", "tier", "pod-template-hash", "statefulset.kubernetes.io/pod-name", "other"}
	values := []string{"a", "b", "c", "db", "web", "x", "y", "db-0", "db-2"}
	var entries [][2]string
	for _, k := range keys {
		for _, v := range values {
			entries = append(entries, [2]string{k, v})
		}
	}
	for _, e := range entries {
		want := slices.ContainsFunc(templates, func(p *pods) bool { return p.has(e[0], e[1]) })
		if got := ix.anyHas(e[0], e[1]); got != want {
			t.Errorf("anyHas(%s=%s) = %v, want %v", e[0], e[1], got, want)
		}
	}
	// Every selector of one or two entries with different keys.
	carried := 0
	for i, e1 := range entries {
		for _, e2 := range append([][2]string{{}}, entries[i+1:]...) {
			sel := map[string]string{e1[0]: e1[1]}
			if e2[0] != "" {
				if e2[0] == e1[0] {
					continue
				}
				sel[e2[0]] = e2[1]
			}
			set := selector.SetOf(sel)
			want := slices.ContainsFunc(templates, func(p *pods) bool { return p.carries(set) })
			if got := ix.carried(set, analysis.AppID{}); got != want {
				t.Errorf("carried(%v) = %v, want %v", sel, got, want)
			}
			if want {
				carried++
			}
		}
	}
	if carried == 0 {
		t.Fatal("no selector is carried: the case tests nothing")
	}
	t.Logf("%d selectors carried", carried)
}

func TestOneSlip(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"controller-manager", "controller-manger", true}, // deleted
		{"controller-manger", "controller-manager", true}, // inserted
		{"controller-manager", "controller-mansger", true},
		{"controller-manager", "controller-mnaager", true}, // swapped
		{"manager", "manager", false},
		{"manager", "mangaer-x", false},
		{"web", "api", false},
		{"ab", "ba", true},
		{"abc", "acb", true},
		{"abcd", "badc", false},
		{"", "a", true},
	} {
		if got := oneSlip(tc.a, tc.b); got != tc.want {
			t.Errorf("oneSlip(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestPodSummaryShared: the four rules that keep what a workload makes
// keep one value of it, not a copy each (a large tree keeps them all
// until Finish); a Service's summary is its own.
func TestPodSummaryShared(t *testing.T) {
	workload := parseOne(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
`)
	svc := parseOne(t, `apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}}
`)
	parts := func(obj *manifest.Object, rules ...*analysis.Rule) []*servicePodsSummary {
		var out []*servicePodsSummary
		for _, r := range rules {
			v, ok := r.Cross.Summarize(analysis.NewPass(r, obj, &config.Config{}, nil))
			if !ok {
				t.Fatalf("%s keeps no summary of %s/%s", r.ID, obj.Kind, obj.Name)
			}
			switch s := v.(type) {
			case *servicePodsSummary:
				out = append(out, s)
			case monitorSummary:
				out = append(out, s.Part)
			case networkPolicyPodsSummary:
				out = append(out, s.Part)
			default:
				t.Fatalf("%s: a summary of type %T", r.ID, v)
			}
		}
		return out
	}
	got := parts(workload, serviceNoMatchingPods, pdbNoMatchingPods, monitorSelectsNothing, networkPolicyNoMatchingPods)
	if len(got[0].Pods) != 1 {
		t.Fatalf("the Deployment's summary has %d pod templates, want 1", len(got[0].Pods))
	}
	for i, p := range got {
		if p != got[0] {
			t.Errorf("rule %d keeps its own copy of the Deployment's pod summary", i)
		}
	}
	if s := parts(svc, serviceNoMatchingPods)[0]; s == got[0] || s.svc() == nil || labelList(s.svc().Selector) != "app=web" {
		t.Errorf("the Service's summary: %+v", s)
	}
}
