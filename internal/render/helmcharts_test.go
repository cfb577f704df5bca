package render

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// TestHelmChartsEqualKustomizeBuild renders roots with helmCharts of
// local charts in-process (helmrender in place of the helm binary) and
// compares them with `kustomize build --enable-helm --helm-command helm`
// of the same tree: the same objects in the same order, equal as data.
// The trees use every entry field shipshape reads (valuesInline under
// each valuesMerge, valuesFile, additionalValuesFiles, includeCRDs,
// skipTests, skipHooks, apiVersions, kubeVersion, namespace, a version
// directory under chartHome) and the overlay of a base with helmCharts
// (its namespace passed down to the chart, its prefix, labels and patch
// applied over the chart's objects).
func TestHelmChartsEqualKustomizeBuild(t *testing.T) {
	bin := kustomizeBinary(t)
	helm := testtree.Helm(t)
	for _, dir := range []string{
		"testdata/helmcharts/base",
		"testdata/helmcharts/overlay",
		"testdata/helmcharts/replace",
		"../../testdata/render/helm-charts-kustomize/app",
		"../../testdata/render/helm-charts-kustomize/clean",
	} {
		t.Run(dir, func(t *testing.T) {
			abs, err := filepath.Abs(dir)
			if err != nil {
				t.Fatal(err)
			}
			g, err := Discover([]string{abs})
			if err != nil || len(g.Roots) != 1 {
				t.Fatalf("want one root in %s: %v", dir, err)
			}
			res := NewRenderer(g).RenderAll(context.Background(), g.Roots)[0]
			if res.Problem != nil {
				t.Fatalf("not rendered: %v", res.Problem)
			}
			b := kustomizeBuild(bin, abs, false, "--enable-helm", "--helm-command", helm)
			if b.err != nil {
				t.Fatalf("kustomize build: %v\n%s", b.err, b.stderr)
			}
			if compareObjects(t, dir, res.Objects, b.stdout) {
				t.Logf("%d objects equal", len(res.Objects))
			}
		})
	}
}

// TestHelmChartsRunNoProgram renders the helmCharts roots with a helm (and
// git, sh, ...) on PATH that records being started, and the network
// recorded: a local chart is rendered in-process, nothing is started, and
// nothing reached.
func TestHelmChartsRunNoProgram(t *testing.T) {
	bin, marks := recordingPath(t)
	t.Setenv("PATH", bin)
	tr := &recordingTransport{}
	saved := http.DefaultTransport
	http.DefaultTransport = tr
	defer func() { http.DefaultTransport = saved }()

	dir, _ := filepath.Abs("testdata/helmcharts")
	g, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	results := NewRenderer(g).RenderAll(context.Background(), g.Roots)
	if len(results) != 2 { // overlay (with base) and replace
		t.Errorf("%d roots, want 2", len(results))
	}
	for _, res := range results {
		if res.Problem != nil || len(res.Objects) == 0 {
			t.Errorf("%s: %d objects, problem %v", res.Root.Dir, len(res.Objects), res.Problem)
		}
	}
	if got := ran(t, marks); len(got) > 0 {
		t.Errorf("programs were run while rendering helmCharts: %v", got)
	}
	if n := tr.calls.Load(); n > 0 {
		t.Errorf("the network was reached %d times while rendering", n)
	}
}

// TestFleetChartsAsHelmChartsEqualKustomizeBuild puts the fleet corpus's
// charts (lws with its CRDs, podinfo, Argo CD's helm-guestbook and
// blue-green) under the chart home of a kustomization each, in a
// temporary tree (with a namespace and a name prefix over them), and
// compares shipshape's rendering with kustomize build --enable-helm's.
func TestFleetChartsAsHelmChartsEqualKustomizeBuild(t *testing.T) {
	fleet := corpus.FleetDir(t)
	bin := kustomizeBinary(t)
	helm := testtree.Helm(t)
	for _, chart := range []string{
		"kubernetes-sigs+lws/charts/lws",
		"stefanprodan+podinfo/charts/podinfo",
		"argoproj+argocd-example-apps/helm-guestbook",
		"argoproj+argocd-example-apps/blue-green",
	} {
		t.Run(chart, func(t *testing.T) {
			src := filepath.Join(fleet, chart)
			if _, err := os.Stat(src); err != nil {
				t.Skipf("%s is not in the fleet corpus", chart)
			}
			name := filepath.Base(chart)
			dir := t.TempDir()
			testtree.Copy(t, src, filepath.Join(dir, "charts", name))
			// podinfo's test pods draw their names at random: skipTests.
			kust := "namespace: apps\nnamePrefix: x-\nhelmCharts:\n  - name: " + name +
				"\n    releaseName: rel\n    includeCRDs: true\n    skipTests: true\n    kubeVersion: \"1.34.0\"\n"
			if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(kust), 0o644); err != nil {
				t.Fatal(err)
			}
			g, err := Discover([]string{dir})
			if err != nil || len(g.Roots) != 1 {
				t.Fatalf("want one root: %v", err)
			}
			res := NewRenderer(g).RenderAll(context.Background(), g.Roots)[0]
			if res.Problem != nil {
				t.Fatalf("not rendered: %v", res.Problem)
			}
			b := kustomizeBuild(bin, dir, false, "--enable-helm", "--helm-command", helm)
			if b.err != nil {
				t.Fatalf("kustomize build: %v\n%s", b.err, b.stderr)
			}
			if compareObjects(t, chart, res.Objects, b.stdout) {
				t.Logf("%d objects equal", len(res.Objects))
			}
		})
	}
}

// TestHelmChartsNotRendered: the entries kustomize would pull, fail on,
// or that shipshape does not render, each said at its entry.
func TestHelmChartsNotRendered(t *testing.T) {
	chart := map[string]string{
		"charts/web/Chart.yaml":        "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"charts/web/values.yaml":       "port: 80\n",
		"charts/web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n",
	}
	for _, c := range []struct {
		name, kust string
		refused    bool
		line       int
		want       string
	}{
		{"pulled", "helmCharts:\n  - name: other\n    repo: https://charts.example.com\n    version: 2.0.0\n", true, 2,
			`chart "other" not in chartHome`},
		{"no repo", "helmCharts:\n  - name: other\n", false, 2, "no repo specified for pull, no chart found at ''"},
		{"name template", "helmCharts:\n  - name: web\n    nameTemplate: '{{ .Chart.Name }}'\n", true, 2, "nameTemplate"},
		{"values merge", "helmCharts:\n  - name: web\n    valuesMerge: deep\n", false, 3, "valuesMerge must be one of"},
		{"values file outside", "helmCharts:\n  - name: web\n    valuesFile: ../values.yaml\n", false, 2, "is not in or below"},
		{"deprecated field", "helmChartInflationGenerator:\n  - chartName: web\n", true, 1, "helmChartInflationGenerator"},
		{"control", "helmCharts:\n  - name: web\n    releaseName: web\n    valuesInline:\n      port: 80\n", false, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"app/kustomization.yaml": c.kust, "values.yaml": "port: 1\n"}
			for p, text := range chart {
				files["app/"+p] = text
			}
			testtree.Write(t, dir, files)
			g, err := Discover([]string{dir})
			if err != nil || len(g.Roots) != 1 {
				t.Fatalf("want one root: %v", err)
			}
			res := NewRenderer(g).RenderAll(context.Background(), g.Roots)[0]
			p := res.Problem
			if c.want == "" { // the control: it renders
				if p != nil || len(res.Objects) != 1 {
					t.Fatalf("want the chart rendered: %d objects, %v", len(res.Objects), p)
				}
				return
			}
			if p == nil {
				t.Fatalf("rendered %d objects, want %q", len(res.Objects), c.want)
			}
			if p.Refused != c.refused || p.Line != c.line || !strings.Contains(p.Message, c.want) || filepath.Base(p.File) != "kustomization.yaml" {
				t.Errorf("got %s (refused %v), want %q at line %d (refused %v)", p, p.Refused, c.want, c.line, c.refused)
			}
		})
	}
}
