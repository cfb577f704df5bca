package rules

import (
	"slices"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
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
