package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/chartfetch/charttest"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// fleetServers serve the charts of testdata/fleet-charts on 127.0.0.1: web
// 1.2.0 from a chart repository; api (0.2.0, 0.3.1, 0.4.0: the release
// asks for 0.3.x) and cache 2.0.0 from an OCI registry.
type fleetServers struct {
	index, registry *charttest.Server
	pushed          int64 // the registry's requests of the test's pushes
}

func serveFleetCharts(t *testing.T) fleetServers {
	t.Helper()
	charts := filepath.Join("..", "..", "testdata", "fleet-charts")
	web := charttest.Archive(t, filepath.Join(charts, "web"), "web")
	s := fleetServers{index: charttest.ServeIndex(t, charttest.Chart{Name: "web", Version: "1.2.0", Archive: web}), registry: charttest.ServeRegistry(t)}
	for _, v := range []string{"0.2.0", "0.3.1", "0.4.0"} {
		dir := t.TempDir()
		testtree.Copy(t, filepath.Join(charts, "api"), dir)
		testtree.Write(t, dir, map[string]string{"Chart.yaml": "apiVersion: v2\nname: api\nversion: " + v + "\n"})
		s.registry.Push(t, "charts/api", v, charttest.Archive(t, dir, "api"), `{"name":"api","version":"`+v+`","apiVersion":"v2"}`)
	}
	s.registry.Push(t, "charts/cache", "2.0.0", charttest.Archive(t, filepath.Join(charts, "cache"), "cache"), `{"name":"cache","version":"2.0.0","apiVersion":"v2"}`)
	s.pushed = s.registry.Requests()
	return s
}

// writeFleet writes testdata/fleet to a temporary directory with the
// servers' addresses in place of its .invalid placeholders.
func writeFleet(t *testing.T, s fleetServers) string {
	t.Helper()
	dir := t.TempDir()
	testtree.Copy(t, filepath.Join("..", "..", "testdata", "fleet"), dir)
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".yaml" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := strings.ReplaceAll(string(data), "http://charts.example.invalid/stable", s.index.URL)
		text = strings.ReplaceAll(text, "registry.example.invalid", s.registry.Host)
		return os.WriteFile(p, []byte(text), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// Without --fetch-charts the fleet's releases of chart repositories are
// named, not rendered, and no request reaches a server.
func TestFleetWithoutFetching(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	s := serveFleetCharts(t)
	dir := writeFleet(t, s)
	t.Setenv("SHIPSHAPE_CACHE", t.TempDir())
	out := runIn(t, dir, exitOK, "lint", dir)
	if !strings.HasSuffix(strings.TrimSpace(out), "3 applications not rendered: 3 Helm releases (shipshape -v lists them)") {
		t.Errorf("the summary does not name the 3 releases not rendered:\n%s", out)
	}
	verbose := runIn(t, dir, exitOK, "lint", "-v", dir)
	for _, want := range []string{
		`apps/api/helmrelease.yaml:10:14: info not-rendered: HelmRelease/api (namespace api): chart "api" from HelmRepository oci-charts is not rendered`,
		`apps/cache/helmrelease.yaml:8:3: info not-rendered: HelmRelease/cache (namespace cache): the chart of OCIRepository cache is not rendered`,
		`apps/web/helmrelease.yaml:10:14: info not-rendered: HelmRelease/web (namespace web): chart "web" from HelmRepository charts is not rendered`,
	} {
		if !strings.Contains(verbose, want) {
			t.Errorf("-v lacks %q:\n%s", want, verbose)
		}
	}
	if strings.Contains(verbose, "apps/agent/helmrelease.yaml") {
		t.Errorf("the release of the repository's chart was not rendered:\n%s", verbose)
	}
	if n := s.index.Requests() + s.registry.Requests() - s.pushed; n != 0 {
		t.Errorf("%d requests reached the servers without --fetch-charts", n)
	}
}

// With --fetch-charts every release renders, its findings placed in the
// HelmRelease; a second run with the servers stopped reads the cache only
// and says the same.
func TestFleetFetched(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	s := serveFleetCharts(t)
	dir := writeFleet(t, s)
	cache := t.TempDir()
	out := runIn(t, dir, exitFindings, "lint", "-v", "--fetch-charts", "--chart-cache", cache, dir)
	if strings.Contains(out, "not-rendered") || strings.Contains(out, "not rendered") {
		t.Errorf("with --fetch-charts, something is still not rendered:\n%s", out)
	}
	for _, want := range []string{
		// from the HelmRelease's values: at the value
		"apps/web/helmrelease.yaml:19:17: error daemonset-replicas: DaemonSet/web-node (namespace web)",
		"the value is set here, at .Values.nodeAgent.replicas",
		// written in the chart: at the chartRef, saying it is rendered
		"apps/cache/helmrelease.yaml:8:3: error daemonset-deployment-field: DaemonSet/cache (namespace cache)",
		"oci://" + s.registry.Host + "/charts/cache@sha256:",
		"the value is rendered: its line is not known",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if s.index.Requests() == 0 || s.registry.Requests() == s.pushed {
		t.Errorf("nothing was fetched: %d index requests, %d registry requests", s.index.Requests(), s.registry.Requests())
	}
	s.index.Close()
	s.registry.Close()
	again := runIn(t, dir, exitFindings, "lint", "-v", "--fetch-charts", "--chart-cache", cache, dir)
	if again != out {
		t.Errorf("from the cache, the output differs:\n--- fetched\n%s\n--- cached\n%s", out, again)
	}
}
