package render

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// selectsObjects are the objects every target of TestSelectsAgainstKrusty
// is tried on: kinds of two groups, two namespaces, and labels and
// annotations for the selectors.
const selectsObjects = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
  labels: {app: web, tier: front}
  annotations: {team: a}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-canary
  namespace: prod
  labels: {app: web, tier: canary}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: prod
  labels: {app: db}
  annotations: {team: b}
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: dev
  labels: {app: web}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: dev
`

// TestSelectsAgainstKrusty checks selects, which restates how kustomize
// matches a patch's target, against kustomize itself: for each target,
// krusty builds the objects with a JSON patch of that target that adds an
// annotation, and the objects annotated must be those selects picks.
func TestSelectsAgainstKrusty(t *testing.T) {
	targets := []string{
		"kind: Deployment",
		"kind: Deployment\nname: web",
		"name: web",
		"name: web.*",
		"name: .*-canary",
		"group: apps",
		"group: apps\nversion: v1\nkind: StatefulSet",
		"version: v1\nkind: Service",
		"namespace: dev",
		"namespace: prod\nkind: Deployment",
		"labelSelector: app=web",
		"labelSelector: app=web,tier!=canary",
		"labelSelector: tier in (front, canary)",
		"labelSelector: '!tier'",
		"annotationSelector: team=b",
		"annotationSelector: team",
		"kind: Deploy.*",
		"kind: Deployment|Service",
		"name: db\nlabelSelector: app=web",
		// The same selector for labels and annotations: both must match.
		"labelSelector: team=b\nannotationSelector: team=b",
	}
	for _, target := range targets {
		t.Run(target, func(t *testing.T) {
			fs := filesys.MakeFsInMemory()
			kust := "resources: [objects.yaml]\npatches:\n- target:\n" + indent(target, "    ") +
				"  patch: |\n    - op: add\n      path: /metadata/annotations/patched\n      value: \"yes\"\n"
			for name, data := range map[string]string{"/app/objects.yaml": selectsObjects, "/app/kustomization.yaml": kust} {
				if err := fs.WriteFile(name, []byte(data)); err != nil {
					t.Fatal(err)
				}
			}
			m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/app")
			if err != nil {
				t.Fatalf("kustomize: %v", err)
			}
			var tn yaml.Node
			if err := yaml.Unmarshal([]byte(target), &tn); err != nil {
				t.Fatal(err)
			}
			var e patchEntry
			e.setTarget(tn.Content[0])
			if e.targetRe == nil {
				t.Fatalf("target %q did not compile", target)
			}
			for i, rs := range m.Resources() {
				o := newObject(i, rs)
				want := rs.GetAnnotations()["patched"] == "yes"
				if got := selects(e, o, nil); got != want {
					t.Errorf("%s/%s in %s: selects says %v, kustomize patched it: %v", o.Kind, o.Name, o.Namespace, got, want)
				}
			}
		})
	}
}

// indent puts by before every line of s.
func indent(s, by string) string {
	return by + strings.ReplaceAll(s, "\n", "\n"+by) + "\n"
}
