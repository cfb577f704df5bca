package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// TestReleasesStayInScope: an Argo CD Application's valueFiles and a
// HelmRelease's chart path that lead out of the repository (by ".." or
// through a link) are never read: the release is not rendered (and is
// counted so), and nothing of the victim beside the repository shows.
func TestReleasesStayInScope(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	chart := "apiVersion: v2\nname: agent\nversion: 0.1.0\n"
	daemonset := "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels: {app: agent}\n  template:\n    metadata:\n      labels: {app: agent}\n    spec:\n      containers:\n        - {name: agent, image: busybox}\n"
	testtree.Write(t, top, map[string]string{
		"victim/values.yaml":                  "replicas: 7 # VICTIM\n",
		"victim/chart/Chart.yaml":             chart,
		"victim/chart/values.yaml":            "replicas: 7\n",
		"victim/chart/templates/ds.yaml":      daemonset,
		"repo/.git/HEAD":                      "ref: refs/heads/main\n",
		"repo/charts/agent/Chart.yaml":        chart,
		"repo/charts/agent/values.yaml":       "replicas: null\n",
		"repo/charts/agent/templates/ds.yaml": strings.Replace(daemonset, "  replicas: {{ .Values.replicas }}\n", "{{- with .Values.replicas }}\n  replicas: {{ . }}\n{{- end }}\n", 1),
		"repo/apps/agent.yaml":                "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: agent\nspec:\n  destination: {namespace: monitoring}\n  source:\n    repoURL: https://example.com/fleet.git\n    path: charts/agent\n    helm:\n      valueFiles:\n        - ../../../victim/values.yaml\n",
		"repo/apps/release.yaml":              "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: out\nspec:\n  chart:\n    spec:\n      chart: ./charts/../../victim/chart\n      sourceRef: {kind: GitRepository, name: flux-system}\n",
		"repo/apps/linked.yaml":               "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: linked\nspec:\n  chart:\n    spec:\n      chart: ./linked\n      sourceRef: {kind: GitRepository, name: flux-system}\n",
	})
	if err := os.Symlink(filepath.Join(top, "victim", "chart"), filepath.Join(repo, "linked")); err != nil {
		t.Skip("symlinks not supported:", err)
	}
	out := runIn(t, repo, 0, "lint", "-v", repo)
	if strings.Contains(out, "VICTIM") || strings.Contains(out, "daemonset-replicas") {
		t.Errorf("something outside the repository was read:\n%s", out)
	}
	if !strings.Contains(out, "3 applications not rendered: 3 Helm releases") {
		t.Errorf("the three releases leading out are not said to be not rendered:\n%s", out)
	}
}
