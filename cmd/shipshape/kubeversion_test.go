package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// kubeVersionTree is a repository with a chart that needs Kubernetes
// v1.35 (Chart.yaml kubeVersion) and whose DaemonSet has spec.replicas
// (daemonset-replicas) on clusters from v1.30 on, an Argo CD Application
// and a Flux HelmRelease that release it.
func kubeVersionTree(t *testing.T, config string) string {
	t.Helper()
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(repo, "charts", "new", "Chart.yaml"), "apiVersion: v2\nname: new\nversion: 0.1.0\nkubeVersion: \">=1.35.0-0\"\n")
	writeFile(t, filepath.Join(repo, "charts", "new", "templates", "ds.yaml"), `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  {{- if semverCompare ">=1.30-0" .Capabilities.KubeVersion.GitVersion }}
  replicas: 2
  {{- end }}
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
        - name: agent
          image: busybox:1.37
`)
	writeFile(t, filepath.Join(repo, "apps", "new.yaml"), `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: new
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://example.com/repo.git
    path: charts/new
  destination:
    namespace: agents
    server: https://kubernetes.default.svc
`)
	writeFile(t, filepath.Join(repo, "apps", "release.yaml"), `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: agent
  namespace: agents
spec:
  chart:
    spec:
      chart: ./charts/new
      sourceRef:
        kind: GitRepository
        name: flux-system
`)
	if config != "" {
		writeFile(t, filepath.Join(repo, ".shipshape.yaml"), "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n"+config)
	}
	return repo
}

// The target version is the config's kubernetesVersion, else the default
// (v1.34.0), and --kubernetes-version wins over the config: a chart that
// requires v1.35 is a render-error for the release and the chart with the
// default, and renders (its DaemonSet judged) with v1.35.0.
func TestKubernetesVersionSetting(t *testing.T) {
	// The HelmRelease's at its chart line; the Application's (which names
	// a path, no chart) and the chart's at the Chart.yaml.
	refused := func(out, version string) bool {
		return strings.Count(out, "render-error") == 3 && strings.Contains(out, `release "new", namespace "agents"`) &&
			strings.Contains(out, "apps/release.yaml:9:14: error render-error") && strings.Contains(out, `release "agent", namespace "agents"`) &&
			strings.Count(out, "incompatible with Kubernetes "+version) == 3
	}
	repo := kubeVersionTree(t, "")
	out := runIn(t, repo, exitFindings, "lint", "-v", repo)
	if !refused(out, "v1.34.0") || strings.Contains(out, "daemonset-replicas") {
		t.Errorf("default: want the releases and the chart refused at v1.34.0:\n%s", out)
	}

	repo = kubeVersionTree(t, "  kubernetesVersion: v1.35.0\n")
	out = runIn(t, repo, exitFindings, "lint", "-v", repo)
	if strings.Contains(out, "render-error") || strings.Count(out, "charts/new/templates/ds.yaml:7:3: error daemonset-replicas") != 3 {
		t.Errorf("kubernetesVersion v1.35.0: want the three renderings judged (spec.replicas from v1.30 on):\n%s", out)
	}
	out = runIn(t, repo, exitFindings, "lint", "-v", "--kubernetes-version", "v1.29.0", repo)
	if !refused(out, "v1.29.0") {
		t.Errorf("--kubernetes-version v1.29.0 over the config's v1.35.0: want the chart refused at v1.29.0:\n%s", out)
	}
}

// A version Helm cannot parse is a usage error (exit 2) naming the config
// file and line, or the flag.
func TestKubernetesVersionRefused(t *testing.T) {
	repo := kubeVersionTree(t, "  failOn: error\n  kubernetesVersion: v1.x\n")
	out := runIn(t, repo, exitUsage, "lint", repo)
	if !strings.Contains(out, ".shipshape.yaml: line 5: spec.kubernetesVersion: \"v1.x\" is not a Kubernetes version") {
		t.Errorf("want the config file and line named:\n%s", out)
	}
	repo = kubeVersionTree(t, "")
	out = runIn(t, repo, exitUsage, "lint", "--kubernetes-version", "latest", repo)
	if !strings.Contains(out, "--kubernetes-version: \"latest\" is not a Kubernetes version") {
		t.Errorf("want the flag named:\n%s", out)
	}
}
