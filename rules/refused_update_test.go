package rules_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

// changeFindings runs change rule id over base and head (one application
// of plain manifests) under applier ap.
func changeFindings(t *testing.T, id, base, head string, ap analysis.Applier) []analysis.Finding {
	t.Helper()
	b := manifest.Parse("base.yaml", []byte(base), manifest.Context{})
	h := manifest.Parse("head.yaml", []byte(head), manifest.Context{})
	var out []analysis.Finding
	r := rules.Get(id)
	p := analysis.NewChangePass(r, analysis.AppID{Dir: "."}, b.Objects, h.Objects, "abc1234", ap, &config.Config{},
		func(f analysis.Finding) { out = append(out, f) })
	p.BaseWhere = func(*manifest.Object, manifest.FieldPath) string { return "base.yaml:7" }
	r.Change(p)
	return out
}

// Every transition case: the rule reports exactly the fields of its
// verdict (the server's truth, controlplane/transition_test.go), each
// naming the base commit and place and the function it mirrors.
func TestRefusedUpdateCases(t *testing.T) {
	cases, _ := filepath.Glob("../testdata/transition/*/verdict.txt")
	if len(cases) < 40 {
		t.Fatalf("%d transition cases", len(cases))
	}
	for _, v := range cases {
		dir := filepath.Dir(v)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			verdict := strings.Fields(read(t, v))
			found := changeFindings(t, "refused-update", read(t, filepath.Join(dir, "base.yaml")), read(t, filepath.Join(dir, "head.yaml")), analysis.Applier{})
			var got []string
			for _, f := range found {
				got = append(got, f.Field)
				for _, want := range []string{"(abc1234 base.yaml:7)", "mirrors ", "422"} {
					if !strings.Contains(f.Message, want) && !(want == "422" && verdict[0] == "controller-refuses") {
						t.Errorf("message lacks %q: %s", want, f.Message)
					}
				}
			}
			want := verdict[1:]
			if verdict[0] == "accepted" {
				want = nil
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s: reported %v, want %v", verdict[0], got, want)
			}
		})
	}
}

// What each engine does is said, and the fix restores a string or
// removes an added entry, and is offered for nothing else.
func TestRefusedUpdateEnginesAndFixes(t *testing.T) {
	dir := "../testdata/transition/"
	base, head := read(t, dir+"deployment-selector/base.yaml"), read(t, dir+"deployment-selector/head.yaml")
	for _, tc := range []struct {
		ap   analysis.Applier
		want string
	}{
		{analysis.Applier{Engine: analysis.EngineKubectl, Known: true}, "kubectl apply fails (422 Invalid)"},
		{analysis.Applier{Engine: analysis.EngineArgoCD, Known: true}, "recreates the object only with syncOptions Replace=true,Force=true"},
		{analysis.Applier{Engine: analysis.EngineArgoCD, Recreate: true, Known: true}, "Replace=true,Force=true deletes the object (in the background) and creates it again"},
		{analysis.Applier{Engine: analysis.EngineFlux, Known: true}, "dependants stall; it recreates the object only with force: true"},
		{analysis.Applier{Engine: analysis.EngineFlux, Recreate: true, Known: true}, "force: true deletes the object"},
		{analysis.Applier{Engine: analysis.EngineFlux}, "the engine named by the configuration"},
		{analysis.Applier{Engine: analysis.EngineKapp, Known: true}, "kapp's update fails"},
	} {
		found := changeFindings(t, "refused-update", base, head, tc.ap)
		if len(found) != 1 || !strings.Contains(found[0].Message, tc.want) {
			t.Errorf("%+v: %v; want one finding saying %q", tc.ap, found, tc.want)
		}
	}

	// An added selector entry: removed.
	found := changeFindings(t, "refused-update", base, head, analysis.Applier{})
	if f := found[0]; f.Fix == nil || len(f.Fix.Edits) != 1 || f.Fix.Edits[0].Op != analysis.Delete || f.Fix.Edits[0].Path.String() != "spec.selector.matchLabels.env" {
		t.Errorf("added entry: fix %+v", f.Fix)
	}
	// A changed string: restored.
	found = changeFindings(t, "refused-update", read(t, dir+"statefulset-servicename/base.yaml"), read(t, dir+"statefulset-servicename/head.yaml"), analysis.Applier{})
	if len(found) != 1 || found[0].Fix == nil || found[0].Fix.Edits[0].Op != analysis.Set {
		t.Errorf("changed serviceName: %+v", found)
	}
	// A number changed: no fix (Set writes a string, which would change
	// the field's type).
	found = changeFindings(t, "refused-update", read(t, dir+"job-completions/base.yaml"), read(t, dir+"job-completions/head.yaml"), analysis.Applier{})
	for _, f := range found {
		if f.Fix != nil {
			t.Errorf("a number changed: fix offered %+v (Set writes a string)", f.Fix)
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
