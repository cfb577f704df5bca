package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/chartfetch/charttest"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// helmRelease is a HelmRelease of chart at version from the HelmRepository
// repo, with values (YAML lines under values:, indented by 4).
func helmRelease(name, chart, version, repo, values string) string {
	return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: " + name + "\n  namespace: apps\nspec:\n" +
		"  chart:\n    spec:\n      chart: " + chart + "\n      version: \"" + version + "\"\n      sourceRef:\n        kind: HelmRepository\n        name: " + repo + "\n" +
		"  values:\n" + values
}

// A fetch that fails is said in the release's not-rendered finding, with
// the reason and the URL; the other releases still render.
func TestFetchFailuresAreFindings(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	s := serveFleetCharts(t)
	bad := charttest.ServeIndex(t, charttest.Chart{Name: "web", Version: "1.2.0", Archive: charttest.Archive(t, filepath.Join("..", "..", "testdata", "fleet-charts", "web"), "web"), Digest: strings.Repeat("ab", 32)})
	dir := t.TempDir()
	replicas := "    nodeAgent:\n      replicas: 3\n"
	testtree.Write(t, dir, map[string]string{
		"sources.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: apps\nspec:\n  url: " + s.index.URL + "\n---\n" +
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: tampered\n  namespace: apps\nspec:\n  url: " + bad.URL + "\n---\n" +
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: private\n  namespace: apps\nspec:\n  url: " + s.index.URL + "\n  secretRef:\n    name: creds\n---\n" +
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: down\n  namespace: apps\nspec:\n  url: http://127.0.0.1:1/charts\n---\n" +
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: pinned\n  namespace: apps\nspec:\n  url: oci://" + s.registry.Host + "/charts/cache\n  ref:\n    digest: sha256:" + strings.Repeat("0", 64) + "\n",
		"ok.yaml":       helmRelease("ok", "web", "1.2.0", "charts", replicas),
		"missing.yaml":  helmRelease("missing", "web", "9.9.9", "charts", replicas),
		"tampered.yaml": helmRelease("tampered", "web", "1.2.0", "tampered", replicas),
		"private.yaml":  helmRelease("private", "web", "1.2.0", "private", replicas),
		"down.yaml":     helmRelease("down", "web", "1.2.0", "down", replicas),
		"unknown.yaml":  helmRelease("unknown", "web", "1.2.0", "nowhere", replicas),
		"pinned.yaml":   "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: pinned\n  namespace: apps\nspec:\n  chartRef:\n    kind: OCIRepository\n    name: pinned\n",
	})
	out := runIn(t, dir, exitFindings, "lint", "-v", "--fetch-charts", "--chart-cache", t.TempDir(), dir)
	for _, want := range []string{
		"ok.yaml:16:17: error daemonset-replicas",
		`missing.yaml:9:14: info not-rendered: HelmRelease/missing (namespace apps): chart "web" from HelmRepository charts is not rendered`,
		`--fetch-charts: chart web 9.9.9 not fetched from ` + s.index.URL + `/index.yaml: no "web" chart with version matching "9.9.9" in the index`,
		"--fetch-charts: chart web 1.2.0 not fetched from " + bad.URL + "/index.yaml: " + bad.URL + "/web-1.2.0.tgz: digest mismatch: the index says sha256:abab",
		"--fetch-charts: chart web not fetched: HelmRepository private needs credentials (spec.secretRef), which shipshape does not read",
		"--fetch-charts: chart web 1.2.0 not fetched from http://127.0.0.1:1/charts/index.yaml: Get \"http://127.0.0.1:1/charts/index.yaml\"",
		"--fetch-charts: HelmRepository nowhere is not among the files linted",
		"pinned.yaml:7:3: info not-rendered",
		"--fetch-charts: chart cache sha256:0000000000000000000000000000000000000000000000000000000000000000 not fetched from oci://" + s.registry.Host + "/charts/cache@sha256:0000",
		"6 applications not rendered: 6 Helm releases",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "tampered.yaml:16") || strings.Contains(out, "missing.yaml:16") {
		t.Errorf("a release whose chart was not fetched was judged:\n%s", out)
	}
}

// An Argo CD Application's chart from a chart repository (HTTP, and an OCI
// repoURL without a scheme, as Argo CD writes it) and a HelmRelease's
// chartRef to a HelmChart are fetched and rendered.
func TestFetchArgoAndHelmChart(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	s := serveFleetCharts(t)
	dir := t.TempDir()
	app := func(name, repoURL, chart, version, helm string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: " + name + "\n  namespace: argocd\nspec:\n  project: default\n" +
			"  destination:\n    server: https://kubernetes.default.svc\n    namespace: " + name + "\n" +
			"  source:\n    repoURL: " + repoURL + "\n    chart: " + chart + "\n    targetRevision: " + version + "\n" + helm
	}
	testtree.Write(t, dir, map[string]string{
		"web-app.yaml":   app("web", s.index.URL, "web", "1.2.0", "    helm:\n      valuesObject:\n        nodeAgent:\n          replicas: 4\n"),
		"cache-app.yaml": app("cache", s.registry.Host+"/charts", "cache", "2.0.0", ""),
		"files-app.yaml": app("files", s.index.URL, "web", "1.2.0", "    helm:\n      valueFiles:\n        - values-prod.yaml\n"),
		"ignored-app.yaml": app("ignored", s.index.URL, "web", "1.2.0",
			"    helm:\n      ignoreMissingValueFiles: true\n      valueFiles:\n        - values-none.yaml\n        - ./values-prod.yaml\n"),
		"missing-app.yaml": app("missing", s.index.URL, "web", "1.2.0", "    helm:\n      valueFiles:\n        - values-none.yaml\n"),
		"outside-app.yaml": app("outside", s.index.URL, "web", "1.2.0", "    helm:\n      valueFiles:\n        - ../web/values-prod.yaml\n"),
		"helmchart.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: apps\nspec:\n  url: " + s.index.URL + "\n---\n" +
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  chart: web\n  version: 1.x\n  sourceRef:\n    kind: HelmRepository\n    name: charts\n---\n" +
			"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  chartRef:\n    kind: HelmChart\n    name: web\n  values:\n    nodeAgent:\n      replicas: 5\n",
	})
	out := runIn(t, dir, exitFindings, "lint", "-v", "--fetch-charts", "--chart-cache", t.TempDir(), dir)
	for _, want := range []string{
		"web-app.yaml:18:21: error daemonset-replicas: DaemonSet/web-node (namespace web)",
		"cache-app.yaml:13:12: error daemonset-deployment-field: DaemonSet/cache (namespace cache)",
		"helmchart.yaml:32:17: error daemonset-replicas: DaemonSet/web-node (namespace apps)",
		// helm.valueFiles are read from the fetched archive, as Argo CD
		// reads them from the chart it extracted; the value is rendered,
		// and the finding is at the chart the Application names
		`files-app.yaml:13:12: error daemonset-replicas: DaemonSet/files-node (namespace files)`,
		`ignored-app.yaml:13:12: error daemonset-replicas: DaemonSet/ignored-node (namespace ignored)`,
		// a file the chart does not have, or one outside it, is not read
		"missing-app.yaml:13:12: info not-rendered",
		"outside-app.yaml:13:12: info not-rendered",
		"--fetch-charts: the chart was fetched, but not all its values are read here",
		"2 applications not rendered: 2 Helm releases",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "missing-app.yaml:13:12: error") || strings.Contains(out, "outside-app.yaml:13:12: error") {
		t.Errorf("a release whose values were not all read was judged:\n%s", out)
	}
}

// The KRM function never fetches, whatever its functionConfig says.
func TestFnNeverFetches(t *testing.T) {
	s := serveFleetCharts(t)
	t.Setenv("SHIPSHAPE_CACHE", t.TempDir())
	in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  apiVersion: shipshape.dev/v1alpha1\n  kind: ShipshapeConfig\n  spec:\n    helm:\n      fetch: true\nitems:\n" +
		"- apiVersion: source.toolkit.fluxcd.io/v1\n  kind: HelmRepository\n  metadata:\n    name: charts\n  spec:\n    url: " + s.index.URL + "\n" +
		"- apiVersion: helm.toolkit.fluxcd.io/v2\n  kind: HelmRelease\n  metadata:\n    name: web\n  spec:\n    chart:\n      spec:\n        chart: web\n        version: 1.2.0\n        sourceRef:\n          kind: HelmRepository\n          name: charts\n"
	var stdout, stderr bytes.Buffer
	if code := run([]string{"fn"}, strings.NewReader(in), &stdout, &stderr); code != exitOK && code != exitFindings {
		t.Fatalf("fn: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "not-rendered") {
		t.Errorf("fn did not say the release is not rendered:\n%s", stdout.String())
	}
	if n := s.index.Requests(); n != 0 {
		t.Errorf("fn made %d requests", n)
	}
}

// Without fetching, an archive of --charts DIR renders a chartRef to an
// OCIRepository at an exact tag, and an Argo CD chart source: no server.
func TestChartsDirForChartRefAndArgo(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	dir := t.TempDir()
	charts := filepath.Join(dir, "charts-dir")
	testtree.Write(t, charts, map[string]string{
		"cache-2.0.0.tgz": string(charttest.Archive(t, filepath.Join("..", "..", "testdata", "fleet-charts", "cache"), "cache")),
		"web-1.2.0.tgz":   string(charttest.Archive(t, filepath.Join("..", "..", "testdata", "fleet-charts", "web"), "web")),
	})
	testtree.Write(t, filepath.Join(dir, "repo"), map[string]string{
		"cache.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: cache\nspec:\n  url: oci://registry.example.invalid/charts/cache\n  ref:\n    tag: 2.0.0\n---\n" +
			"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: cache\nspec:\n  chartRef:\n    kind: OCIRepository\n    name: cache\n",
		"web-app.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\nspec:\n  destination:\n    namespace: web\n  source:\n    repoURL: https://charts.example.invalid\n    chart: web\n    targetRevision: 1.2.0\n    helm:\n      valuesObject:\n        nodeAgent:\n          replicas: 2\n",
	})
	out := runIn(t, dir, exitFindings, "lint", "-v", "--charts", charts, "repo")
	for _, want := range []string{
		"repo/cache.yaml:15:3: error daemonset-deployment-field: DaemonSet/cache",
		"charts-dir/cache-2.0.0.tgz!cache/templates/daemonset.yaml",
		"repo/web-app.yaml:15:21: error daemonset-replicas: DaemonSet/web-node (namespace web)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not rendered") {
		t.Errorf("something is not rendered:\n%s", out)
	}
}
