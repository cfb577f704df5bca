package render

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// With sortOptions fifo, kustomize's output is its accumulation order:
// the resources, then the generators in their fixed order
// (configMapGenerator, secretGenerator, then helmCharts), then the
// components. shipshape's rendering of helmCharts keeps that order, in a
// root and in an overlay of a base with helmCharts, as `kustomize build
// --enable-helm` gives it.
func TestHelmChartsFifoOrderEqualsKustomizeBuild(t *testing.T) {
	bin := kustomizeBinary(t)
	helm := testtree.Helm(t)
	dir := t.TempDir()
	chart := map[string]string{
		"Chart.yaml":         "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"values.yaml":        "port: 8080\n",
		"templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  port: \"{{ .Values.port }}\"\n",
		"templates/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  selector:\n    app: web\n  ports:\n    - port: {{ .Values.port }}\n",
	}
	files := map[string]string{
		"app/kustomization.yaml": "sortOptions:\n  order: fifo\nresources:\n  - deployment.yaml\n" +
			"configMapGenerator:\n  - name: settings\n    literals: [mode=fast]\nsecretGenerator:\n  - name: creds\n    literals: [token=t]\n" +
			"helmCharts:\n  - name: web\n    releaseName: web\ncomponents:\n  - ../comp\n",
		"app/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n" +
			"  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.27\n",
		"comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - extra.yaml\nlabels:\n  - pairs: {team: web}\n",
		"comp/extra.yaml":         "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: web\n",
		"overlay/kustomization.yaml": "sortOptions:\n  order: fifo\nnamePrefix: prod-\nresources:\n  - ../base\n" +
			"configMapGenerator:\n  - name: overlay-settings\n    literals: [mode=slow]\n",
		"base/kustomization.yaml": "resources:\n  - sa.yaml\nconfigMapGenerator:\n  - name: base-settings\n    literals: [mode=fast]\nhelmCharts:\n  - name: web\n    releaseName: base\n",
		"base/sa.yaml":            "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: base\n",
	}
	for name, text := range chart {
		files["app/charts/web/"+name] = text
		files["base/charts/web/"+name] = text
	}
	testtree.Write(t, dir, files)
	g, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	results := NewRenderer(g).RenderAll(context.Background(), g.Roots)
	for _, root := range []string{"app", "overlay"} {
		t.Run(root, func(t *testing.T) {
			abs := filepath.Join(dir, root)
			var res *Result
			for _, r := range results {
				if r.Root.Dir == abs {
					res = r
				}
			}
			if res == nil {
				t.Fatalf("%s is not a root of %s", root, dir)
			}
			if res.Problem != nil {
				t.Fatalf("not rendered: %v", res.Problem)
			}
			b := kustomizeBuild(bin, abs, false, "--enable-helm", "--helm-command", helm)
			if b.err != nil {
				t.Fatalf("kustomize build: %v\n%s", b.err, b.stderr)
			}
			compareObjects(t, root, res.Objects, b.stdout)
			var order []string
			for _, o := range res.Objects {
				order = append(order, o.Kind+"/"+o.Name)
			}
			t.Logf("order: %v", order)
		})
	}
}
