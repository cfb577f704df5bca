package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// TestNotRenderedNeverSilent: a tree of HelmReleases and a kustomize root
// with a remote base says, in the summary line, what it did not render
// (never "no problems"); -v lists the releases, json counts them.
func TestNotRenderedNeverSilent(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	dir := t.TempDir()
	files := map[string]string{
		"apps/podinfo.yaml":         "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: podinfo\nspec:\n  chart:\n    spec:\n      chart: podinfo\n      sourceRef: {kind: HelmRepository, name: podinfo}\n",
		"apps/redis.yaml":           "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: redis\nspec:\n  chartRef: {kind: OCIRepository, name: redis}\n",
		"remote/kustomization.yaml": "resources:\n  - https://github.com/example/config//base?ref=v1\n",
	}
	testtree.Write(t, dir, files)
	out := runIn(t, dir, 0, "lint", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	summary := lines[len(lines)-1]
	if want := "; 3 applications not rendered: 2 Helm releases, 1 remote base (shipshape -v lists them)"; !strings.HasSuffix(summary, want) {
		t.Errorf("summary %q does not end with %q", summary, want)
	}
	if strings.Contains(out, "no problems") || strings.Contains(out, "not-rendered") {
		t.Errorf("without -v: a release listed, or no problems said:\n%s", out)
	}
	verbose := runIn(t, dir, 0, "lint", "-v", dir)
	for _, want := range []string{
		"apps/podinfo.yaml:8:14: info not-rendered: HelmRelease/podinfo: chart \"podinfo\" from HelmRepository podinfo is not rendered",
		"apps/redis.yaml:6:3: info not-rendered: HelmRelease/redis: the chart of OCIRepository redis is not rendered",
		"3 applications not rendered: 2 Helm releases, 1 remote base\n",
	} {
		if !strings.Contains(verbose, want) {
			t.Errorf("-v output lacks %q:\n%s", want, verbose)
		}
	}
	var report struct {
		Findings []struct{ Rule string }
		Summary  struct {
			Infos       int
			NotRendered map[string]int `json:"notRendered"`
		}
	}
	if err := json.Unmarshal([]byte(runIn(t, dir, 0, "lint", "-f", "json", dir)), &report); err != nil {
		t.Fatal(err)
	}
	if got := report.Summary.NotRendered; got["helmRelease"] != 2 || got["remoteBase"] != 1 || len(got) != 2 {
		t.Errorf("json notRendered = %v, want helmRelease 2, remoteBase 1", got)
	}
	n := 0
	for _, f := range report.Findings {
		if f.Rule == "not-rendered" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("json carries %d not-rendered findings, want 2", n)
	}
}
