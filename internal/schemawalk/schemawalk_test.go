package schemawalk

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/schema"
)

func TestKeyText(t *testing.T) {
	tests := map[string]string{
		"on: x": "true", "\"on\": x": "on", "0x1F: x": "31", "1.10: x": "1.1",
		"~: x": "null", "name: x": "name", "!!str 1: x": "1", "? [a]\n: x": "",
	}
	for src, want := range tests {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		k := doc.Content[0].Content[0]
		if got := KeyText(k); got != want && !(want == "" && k.Value == "") {
			t.Errorf("KeyText(%q) = %q, want %q", src, got, want)
		}
	}
}

// trace walks src with a typed visitor and an untyped one and returns
// what each saw, one line per call.
func trace(t *testing.T, src string, builtinOnly bool) string {
	t.Helper()
	f := manifest.Parse("t.yaml", []byte(src), manifest.Context{})
	if len(f.Objects) != 1 {
		t.Fatalf("objects: %d, errors %v", len(f.Objects), f.Errors)
	}
	var b strings.Builder
	typed := Visitor{
		BuiltinOnly: builtinOnly,
		Enter: func(c *Cursor) bool {
			name := c.Type.Name()
			if name == "" {
				name = c.Type.Kind().String()
			}
			fmt.Fprintf(&b, "typed %s: %s\n", c.Path, name[strings.LastIndexByte(name, '.')+1:])
			return true
		},
		UnknownField: func(c *Cursor, k *yaml.Node) { fmt.Fprintf(&b, "unknown %s: %s\n", c.Path, KeyText(k)) },
	}
	untyped := Visitor{Untyped: true, Enter: func(c *Cursor) bool {
		if !c.Typed {
			fmt.Fprintf(&b, "untyped %s\n", c.Path)
		}
		return true
	}}
	Walk(f.Objects[0], []Visitor{typed, untyped})
	return b.String()
}

// TestWalk shows, for each reading, which nodes get which type.
func TestWalk(t *testing.T) {
	tests := []struct{ name, src, want string }{{
		name: "builtin",
		src: `apiVersion: v1
kind: ConfigMap
metadata:
  name: &n x
  labels: {a: *n, <<: {b: c}}
  bogus: {z: 1}
  !!null annotations: {a: b}
  on: 1
data: [1]
`,
		want: `typed : ConfigMap
typed apiVersion: string
typed kind: string
typed metadata: ObjectMeta
typed metadata.name: string
typed metadata.labels: map
typed metadata.labels.a: string
typed metadata.labels.<<: string
untyped metadata.labels.<<.b
unknown metadata: bogus
untyped metadata.bogus
untyped metadata.bogus.z
unknown metadata: null
untyped metadata.annotations
untyped metadata.annotations.a
unknown metadata: true
untyped metadata.on
typed data: map
untyped data[0]
`,
	}, {
		name: "kustomization",
		src: `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
metadata: {name: a}
metadata: {name: b}
commonLabels: {a: b}
labels:
  - pairs: {c: d}
    includeSelectors: true
resources: [x.yaml]
images: [{name: web, newTag: v1}]
replicas: [{name: web, count: 2}]
helmCharts:
  - name: chart
    valuesInline:
      metadata: {labels: {e: f}}
`,
		want: `typed : Kustomization
typed apiVersion: string
typed kind: string
untyped metadata
untyped metadata.name
typed metadata: ObjectMeta
typed metadata.name: string
typed commonLabels: map
typed commonLabels.a: string
typed labels: array
typed labels[0]: Label
typed labels[0].pairs: map
typed labels[0].pairs.c: string
typed labels[0].includeSelectors: boolean
typed resources: array
typed resources[0]: string
typed images: array
typed images[0]: Image
typed images[0].name: string
typed images[0].newTag: string
typed replicas: array
typed replicas[0]: Replica
typed replicas[0].name: string
typed replicas[0].count: integer
typed helmCharts: array
typed helmCharts[0]: HelmChart
typed helmCharts[0].name: string
typed helmCharts[0].valuesInline: map
untyped helmCharts[0].valuesInline.metadata
untyped helmCharts[0].valuesInline.metadata.labels
untyped helmCharts[0].valuesInline.metadata.labels.e
`,
	}, {
		name: "crd",
		src: `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: a}
spec:
  selector: {matchLabels: {a: b}}
`,
		want: `untyped 
untyped apiVersion
untyped kind
typed metadata: ObjectMeta
typed metadata.name: string
untyped spec
untyped spec.selector
untyped spec.selector.matchLabels
untyped spec.selector.matchLabels.a
`,
	}}
	for _, tt := range tests {
		if got := trace(t, tt.src, false); got != tt.want {
			t.Errorf("%s: got:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}

func TestWalkGuessed(t *testing.T) {
	src := `apiVersion: example.com/v1
kind: Widget
metadata:
  labels: {a: b}
spec:
  selector:
    matchLabels: {a: b}
  runner:
    spec:
      containers: [{name: c}]
`
	if got := trace(t, src, true); got != "" {
		t.Errorf("a BuiltinOnly visitor saw a custom resource:\n%s", got)
	}
	got := trace(t, src, false)
	for _, line := range []string{
		"typed : unknown\n",
		"typed metadata: ObjectMeta\n", "typed metadata.labels.a: string\n",
		"typed spec: unknown\n", "typed spec.selector: LabelSelector\n", "typed spec.selector.matchLabels.a: string\n",
		"typed spec.runner: PodTemplateSpec\n", "typed spec.runner.spec.containers[0].name: string\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("no %q in:\n%s", line, got)
		}
	}
}

// TestWalkPrunesPerVisitor: a visitor that stops at a node stops alone.
func TestWalkPrunesPerVisitor(t *testing.T) {
	f := manifest.Parse("t.yaml", []byte("apiVersion: v1\nkind: Pod\nspec:\n  containers: [{name: a}]\n"), manifest.Context{})
	var stopped, went []string
	stop := Visitor{Enter: func(c *Cursor) bool {
		stopped = append(stopped, c.Path.String())
		return c.Type.Kind() != schema.Struct || len(c.Path) == 0
	}}
	done := false
	goOn := Visitor{Enter: func(c *Cursor) bool { went = append(went, c.Path.String()); return true }, Done: func() { done = true }}
	Walk(f.Objects[0], []Visitor{stop, {}, goOn})
	if want := "[ apiVersion kind spec]"; fmt.Sprint(stopped) != want {
		t.Errorf("stopping visitor saw %v, want %s", stopped, want)
	}
	if want := "[ apiVersion kind spec spec.containers spec.containers[0] spec.containers[0].name]"; fmt.Sprint(went) != want {
		t.Errorf("other visitor saw %v, want %s", went, want)
	}
	if !done {
		t.Error("Done not called")
	}
}

// TestWalkManyVisitors: past a word of visitors, each still sees every node.
func TestWalkManyVisitors(t *testing.T) {
	f := manifest.Parse("t.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: a}]}\n"), manifest.Context{})
	counts, done := make([]int, 2*maxVisitors+3), 0
	var vs []Visitor
	for i := range counts {
		vs = append(vs, Visitor{Untyped: i%2 == 0, Enter: func(*Cursor) bool { counts[i]++; return true }, Done: func() { done++ }})
	}
	Walk(f.Objects[0], vs)
	for i, n := range counts {
		if n != 9 {
			t.Errorf("visitor %d: %d nodes, want 9", i, n)
		}
	}
	if done != len(vs) {
		t.Errorf("Done called %d times, want %d", done, len(vs))
	}
}
