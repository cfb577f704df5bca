package render

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// argoSources reads the Applications of testdata/argo-options/app.yaml
// as ArgoSources of the tree at dir.
func argoSources(t *testing.T, dir string) []ArgoSource {
	t.Helper()
	file := filepath.Join(dir, "app.yaml")
	src := mustRead(t, file)
	docs, err := manifest.DocumentRoots(src)
	if err != nil {
		t.Fatal(err)
	}
	var out []ArgoSource
	for i, d := range docs {
		name := scalarOf(mapGet(d, "metadata"), "name")
		out = append(out, ArgoSource{File: file, Src: src, Doc: i, App: name, At: Path{{Key: "spec"}, {Key: "source"}},
			Options: mapGet(mapGet(mapGet(d, "spec"), "source"), "kustomize"),
			Env:     map[string]string{"ARGOCD_APP_NAME": name, "ARGOCD_APP_NAMESPACE": "dev"}})
	}
	return out
}

// TestArgoVariantEqualsKustomizeEdit builds each Application's variant
// of testdata/argo-options/overlay in-process and compares it with what
// Argo CD's repo server does: the real `kustomize edit` commands it runs
// (written out here, in its order) on a copy of the tree, its patches
// appended to the file, then the real `kustomize build`.
func TestArgoVariantEqualsKustomizeEdit(t *testing.T) {
	bin := kustomizeBinary(t)
	argoEdits := map[string][][]string{
		"web-dev": {
			{"edit", "set", "nameprefix", "--", "dev-"},
			{"edit", "set", "namesuffix", "--", "-v2"},
			{"edit", "set", "image", "nginx=registry.example.com/nginx:1.27", "busybox:1.37"},
			{"edit", "set", "replicas", "web=3"},
			{"edit", "add", "label", "--force", "env:dev", "team:red"},
			{"edit", "add", "annotation", "owner:web-dev"},
			{"edit", "set", "namespace", "--", "dev"},
			{"patches", "- target:\n    kind: Service\n  patch: |-\n    - op: add\n      path: /spec/ports/0/name\n      value: http\n"},
			{"edit", "add", "component", "../components/extra"},
		},
		"web-labels": {
			{"edit", "set", "image", "nginx:web-labels", "busybox=*:1.36.1"},
			{"edit", "add", "label", "--without-selector", "--include-templates", "tier:front"},
		},
	}
	tree := t.TempDir()
	testtree.Copy(t, filepath.Join("testdata", "argo-options"), tree)
	g, err := Discover([]string{tree})
	if err != nil {
		t.Fatal(err)
	}
	root := g.Load(filepath.Join(tree, "overlay"))
	r := NewRenderer(g)
	for _, src := range argoSources(t, tree) {
		v, problem := g.ArgoVariant(root, src)
		edits, ok := argoEdits[src.App]
		if !ok {
			// web-conflict: a label the kustomization has, without force.
			if problem == nil || !strings.Contains(problem.Message, "label team already in kustomization file") || problem.Line != 67 {
				t.Errorf("%s: want kustomize edit's refusal at app.yaml:67, got %v", src.App, problem)
			}
			copyDir := t.TempDir()
			testtree.Copy(t, tree, copyDir)
			cmd := exec.Command(bin, "edit", "add", "label", "team:red")
			cmd.Dir = filepath.Join(copyDir, "overlay")
			if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "already in kustomization file") {
				t.Errorf("%s: kustomize edit add label: %v\n%s", src.App, err, out)
			}
			continue
		}
		if problem != nil {
			t.Fatalf("%s: %v", src.App, problem)
		}
		res := r.Render(v)
		if res.Problem != nil {
			t.Fatalf("%s: %v", src.App, res.Problem)
		}
		copyDir := t.TempDir()
		testtree.Copy(t, tree, copyDir)
		dir := filepath.Join(copyDir, "overlay")
		for _, args := range edits {
			if args[0] == "patches" {
				appendPatchText(t, filepath.Join(dir, "kustomization.yaml"), args[1])
				continue
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: kustomize %v: %v\n%s", src.App, args, err, out)
			}
		}
		b := kustomizeBuild(bin, dir, false)
		if b.err != nil {
			t.Fatalf("%s: kustomize build: %v\n%s", src.App, b.err, b.stderr)
		}
		compareObjects(t, src.App, res.Objects, b.stdout)
		// The plain root is not changed by its variant.
		if plain := r.Render(root); plain.Problem != nil || plain.Objects[0].Name != "own-web" && plain.Objects[1].Name != "own-web" {
			t.Errorf("the plain root renders otherwise after the variant: %v", plain.Problem)
		}
	}
}

// appendPatchText appends patches (a YAML list) to the kustomization's
// patches by hand, as Argo CD writes them into the file.
func appendPatchText(t *testing.T, file, patches string) {
	t.Helper()
	var k map[string]any
	if err := yaml.Unmarshal(mustRead(t, file), &k); err != nil {
		t.Fatal(err)
	}
	var add []any
	if err := yaml.Unmarshal([]byte(patches), &add); err != nil {
		t.Fatal(err)
	}
	list, _ := k["patches"].([]any)
	k["patches"] = append(list, add...)
	out, err := yaml.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestArgoVariantLocate: a value an Application's option sets is placed
// at the option in the Application's file; one of the root's own files
// stays at its line there.
func TestArgoVariantLocate(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "argo-options"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	root := g.Load(filepath.Join(dir, "overlay"))
	v, problem := g.ArgoVariant(root, argoSources(t, dir)[0])
	if problem != nil {
		t.Fatal(problem)
	}
	r := NewRenderer(g)
	res := r.Render(v)
	if res.Problem != nil {
		t.Fatal(res.Problem)
	}
	find := func(kind string) *Object {
		for _, o := range res.Objects {
			if o.Kind == kind {
				return o
			}
		}
		t.Fatalf("no %s rendered", kind)
		return nil
	}
	for _, c := range []struct {
		kind, path, want string
	}{
		{"Deployment", "spec.replicas", "app.yaml:22"},
		{"Deployment", "metadata.labels.team", "app.yaml:25"},
		{"Deployment", "spec.selector.matchLabels.env", "app.yaml:24"},
		{"Deployment", "metadata.namespace", "app.yaml:16"},
		{"Deployment", "spec.template.spec.containers[0].image", "app.yaml:18"},
		{"Deployment", "spec.template.spec.containers[1].image", "app.yaml:19"},
		{"Deployment", "metadata.annotations.owner", "app.yaml:28"},
		{"Deployment", "metadata.annotations.extra", "components/extra/kustomization.yaml:4"},
		{"Deployment", "metadata.name", "app.yaml:14"},
		{"Deployment", "spec.template.spec.containers[0].name", "base/deployment.yaml:16"},
		{"Service", "spec.ports[0].name", "app.yaml:35"},
	} {
		p, err := ParsePath(c.path)
		if err != nil {
			t.Fatal(err)
		}
		l := r.Locate(res, find(c.kind), p)
		rel, _ := filepath.Rel(dir, l.File)
		if got := fmt.Sprintf("%s:%d", rel, l.Line); got != c.want {
			t.Errorf("%s %s: located at %s, want %s (%s)", c.kind, c.path, got, c.want, l)
		}
	}
}
