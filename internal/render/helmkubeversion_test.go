package render

import (
	"context"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// kubeVersionRoot writes a kustomization whose helmCharts entry (kubeVersion
// entry unless "") renders a chart whose ConfigMap says the cluster version
// it was rendered for, and gains a key on clusters from v1.30 on.
func kubeVersionRoot(t *testing.T, dir, entry string) {
	t.Helper()
	files := map[string]string{
		"charts/kv/Chart.yaml":  "apiVersion: v2\nname: kv\nversion: 0.1.0\n",
		"charts/kv/values.yaml": "{}\n",
		"charts/kv/templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: kv
data:
  cluster: "{{ .Capabilities.KubeVersion.Version }}"
  {{- if semverCompare ">=1.30-0" .Capabilities.KubeVersion.GitVersion }}
  sidecars: native
  {{- end }}
`,
		"kustomization.yaml": "helmCharts:\n  - name: kv\n    releaseName: kv\n",
	}
	if entry != "" {
		files["kustomization.yaml"] += "    kubeVersion: \"" + entry + "\"\n"
	}
	testtree.Write(t, dir, files)
}

// Renderer.KubernetesVersion (the kubernetesVersion setting) is the version
// a helmCharts entry that names none is rendered for: the same objects as
// `kustomize build --enable-helm` of the entry given that kubeVersion. An
// entry's own kubeVersion wins.
func TestHelmChartsDefaultKubernetesVersion(t *testing.T) {
	bin := kustomizeBinary(t)
	helm := testtree.Helm(t)
	render := func(dir, version string) []*Object {
		g, err := Discover([]string{dir})
		if err != nil || len(g.Roots) != 1 {
			t.Fatalf("want one root in %s: %v", dir, err)
		}
		r := NewRenderer(g)
		r.KubernetesVersion = version
		res := r.RenderAll(context.Background(), g.Roots)[0]
		if res.Problem != nil {
			t.Fatalf("not rendered: %v", res.Problem)
		}
		return res.Objects
	}
	for _, version := range []string{"v1.29.0", "1.35.2"} {
		ours, theirs := t.TempDir(), t.TempDir()
		kubeVersionRoot(t, ours, "")
		kubeVersionRoot(t, theirs, version)
		b := kustomizeBuild(bin, theirs, false, "--enable-helm", "--helm-command", helm)
		if b.err != nil {
			t.Fatalf("kustomize build: %v\n%s", b.err, b.stderr)
		}
		objs := render(ours, version)
		compareObjects(t, version, objs, b.stdout)
		if want := "sidecars"; strings.Contains(string(b.stdout), want) != (version != "v1.29.0") {
			t.Errorf("%s: kustomize build's ConfigMap should have %s only from v1.30 on:\n%s", version, want, b.stdout)
		}
	}
	// The entry's kubeVersion (v1.29.0) wins over the setting.
	dir := t.TempDir()
	kubeVersionRoot(t, dir, "v1.29.0")
	b := kustomizeBuild(bin, dir, false, "--enable-helm", "--helm-command", helm)
	if b.err != nil {
		t.Fatalf("kustomize build: %v\n%s", b.err, b.stderr)
	}
	compareObjects(t, "entry's kubeVersion", render(dir, "1.35.2"), b.stdout)
}

// A root's cache key holds the kubernetesVersion setting: another version
// never reads what one rendered.
func TestRootKeyHoldsKubernetesVersion(t *testing.T) {
	dir := t.TempDir()
	kubeVersionRoot(t, dir, "")
	g, err := Discover([]string{dir})
	if err != nil || len(g.Roots) != 1 {
		t.Fatalf("want one root: %v", err)
	}
	r := NewRenderer(g)
	before := r.rootKey(g.Roots[0])
	if r.rootKey(g.Roots[0]) != before {
		t.Fatal("the key of one root differs between two calls")
	}
	r.KubernetesVersion = "v1.35.0"
	if r.rootKey(g.Roots[0]) == before {
		t.Error("the key is the same for kubernetesVersion v1.35.0 as for the default")
	}
}
