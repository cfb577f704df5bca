package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
	"github.com/shipshape-dev/shipshape/rules"
)

// TestReleasedRootsPlaceCrossFindings: a root's objects are released
// once it is judged (lint), so a cross-resource finding about one of them
// (a Service of a base that selects no pod) is placed by rendering the
// root again. It must land where it lands when the objects are kept
// whole (fix keeps them), at the selector entry in the base, not at the name
// the released skeleton still has.
func TestReleasedRootsPlaceCrossFindings(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"base/kustomization.yaml": "resources: [deploy.yaml, service.yaml]\n",
		"base/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: web:1.0
`,
		"base/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: other
  ports:
  - port: 80
`,
		"overlay/kustomization.yaml": "resources: [../base]\nnamePrefix: prod-\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testWholeRendersAgain(t, dir)
	run := func(whole bool) string {
		e, err := New(rules.All(), nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.KeepSource = whole
		paths := []string{dir}
		inputs, _ := manifest.Collect(paths)
		res := e.RunTree(paths, slices.Values(inputs))
		var b strings.Builder
		for _, f := range res.Findings {
			fmt.Fprintf(&b, "%s:%d:%d %s %v %s\n", strings.TrimPrefix(f.File, dir), f.Line, f.Column, f.Rule, f.Roots, f.Message)
		}
		return b.String()
	}
	released, whole := run(false), run(true)
	if released != whole {
		t.Errorf("released objects placed:\n%s\nobjects kept whole placed:\n%s", released, whole)
	}
	want := "/base/service.yaml:7:5 service-no-matching-pods [" + filepath.Join(dir, "overlay") + "]"
	if !strings.Contains(released, want) {
		t.Errorf("want a finding starting %q, got:\n%s", want, released)
	}
}

// testWholeRendersAgain: whole gives a released root its objects back,
// fields and all, and only once.
func testWholeRendersAgain(t *testing.T, dir string) {
	g, err := render.Discover([]string{dir})
	if err != nil || len(g.Roots) != 1 {
		t.Fatalf("roots %v, %v", g, err)
	}
	e, err := New(rules.All(), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := e.newRenderState([]string{dir}, nil, g)
	res := ts.renderer.Render(g.Roots[0])
	if res.Problem != nil || len(res.Objects) != 2 {
		t.Fatalf("rendered %d objects, %v", len(res.Objects), res.Problem)
	}
	file := res.Root.File
	selector := render.Path{{Key: "spec"}, {Key: "selector"}}
	releaseObjects(res)
	ts.byRoot[file], ts.released[file] = res, true
	for _, o := range res.Objects {
		if _, v := selector.Get(o.Node); v != nil {
			t.Fatalf("%s keeps its spec once released", o.Label())
		}
	}
	ts.whole(file)
	again := ts.byRoot[file]
	if again == res || ts.released[file] {
		t.Fatal("whole did not render the released root again")
	}
	for _, o := range again.Objects {
		if _, v := selector.Get(o.Node); v == nil {
			t.Errorf("%s has no spec.selector after whole", o.Label())
		}
	}
	ts.whole(file)
	if ts.byRoot[file] != again {
		t.Error("whole rendered a root that was whole again")
	}
}
