package helmrender

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// valuesFile reads a values file as a source, as a caller does for `-f`.
func valuesFile(t *testing.T, p string) ValuesSource {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return ValuesSource{File: p, Node: &doc}
}

func kinds(res *Result) map[string]int {
	out := map[string]int{}
	for _, o := range res.Objects {
		out[field(o.Node, "kind")]++
	}
	return out
}

func TestFleetCorpusLWSChart(t *testing.T) {
	dir := filepath.Join(fleetCorpus(t), "kubernetes-sigs+lws", "charts", "lws")
	res := mustRender(t, Options{ChartDir: dir, ReleaseName: "lws", Namespace: "lws-system"})
	if len(res.Objects) != 16 || len(res.Problems) != 0 {
		t.Fatalf("%d objects (want 16, as helm template), problems %+v", len(res.Objects), res.Problems)
	}
	if k := kinds(res); k["Deployment"] != 1 || k["ClusterRole"] != 3 || k["MutatingWebhookConfiguration"] != 1 {
		t.Errorf("kinds %v", k)
	}
	withCRDs := mustRender(t, Options{ChartDir: dir, ReleaseName: "lws", Namespace: "lws-system", IncludeCRDs: true})
	if k := kinds(withCRDs); k["CustomResourceDefinition"] == 0 || len(withCRDs.Objects) != 16+k["CustomResourceDefinition"] {
		t.Errorf("with crds/: kinds %v", k)
	}
	d := find(t, res, "lws/templates/manager/deployment.yaml", "Deployment")
	var image ValueUse
	for _, u := range d.Values {
		if strings.HasSuffix(strings.Join(u.Field, "."), ".image") {
			image = u
		}
	}
	if image.Origin.File != filepath.Join(dir, "values.yaml") || image.Origin.Line == 0 {
		t.Errorf("the manager's image has no values line: %+v", d.Values)
	}
}

func TestFleetCorpusArgoCDHelmGuestbook(t *testing.T) {
	dir := filepath.Join(fleetCorpus(t), "argoproj+argocd-example-apps", "helm-guestbook")
	res := mustRender(t, Options{ChartDir: dir, ReleaseName: "helm-guestbook", Namespace: "default"})
	if k := kinds(res); len(res.Objects) != 2 || k["Deployment"] != 1 || k["Service"] != 1 {
		t.Errorf("kinds %v", k)
	}
}

func TestFleetCorpusPodinfoNeedsACurrentKubernetesVersion(t *testing.T) {
	dir := filepath.Join(fleetCorpus(t), "stefanprodan+podinfo", "charts", "podinfo")
	if _, err := Render(Options{ChartDir: dir, ReleaseName: "podinfo", KubernetesVersion: "v1.20.0"}); err == nil || !strings.Contains(err.Error(), "incompatible") {
		t.Errorf("podinfo requires >=1.23 and renders on v1.20: %v", err)
	}
	prod := valuesFile(t, filepath.Join(dir, "values-prod.yaml"))
	res := mustRender(t, Options{ChartDir: dir, ReleaseName: "podinfo", Namespace: "podinfo", Values: []ValuesSource{prod}})
	if k := kinds(res); k["Deployment"] < 1 || k["Service"] < 1 {
		t.Errorf("kinds %v", k)
	}
	d := find(t, res, "podinfo/templates/deployment.yaml", "Deployment")
	u, ok := uses(d, "spec.template.spec.containers.0.image")["image.tag"]
	// values-prod.yaml sets the same tag as values.yaml; the later source is the line
	if !ok || u.Origin.File != prod.File || u.Origin.Line != 11 {
		t.Errorf("image.tag use %+v, want %s:11", u, prod.File)
	}
}

func TestFleetCorpusArgoCDHelmDependencyNotVendored(t *testing.T) {
	dir := filepath.Join(fleetCorpus(t), "argoproj+argocd-example-apps", "helm-dependency")
	res := mustRender(t, Options{ChartDir: dir, ReleaseName: "wordpress", Namespace: "default"})
	if len(res.Objects) != 0 || len(res.Problems) != 1 {
		t.Fatalf("objects %d, problems %+v", len(res.Objects), res.Problems)
	}
	p := res.Problems[0]
	if p.Kind != MissingDependency || p.Pos.File != filepath.Join(dir, "Chart.yaml") || p.Pos.Line != 26 {
		t.Errorf("problem %v at %v: %s", p.Kind, p.Pos, p.Message)
	}
}
