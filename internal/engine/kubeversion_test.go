package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/helmrender"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// kubeVersionChart writes a chart whose DaemonSet gains a field on clusters
// from v1.30 on, and whose Chart.yaml says kubeVersion (none when "").
func kubeVersionChart(t *testing.T, kubeVersion string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kv")
	chart := "apiVersion: v2\nname: kv\nversion: 0.1.0\n"
	if kubeVersion != "" {
		chart += "kubeVersion: \"" + kubeVersion + "\"\n"
	}
	files := map[string]string{
		"Chart.yaml":  chart,
		"values.yaml": "image: busybox:1.37\n",
		"templates/ds.yaml": `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  labels:
    cluster: {{ .Capabilities.KubeVersion.Major }}.{{ .Capabilities.KubeVersion.Minor }}
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
          image: {{ .Values.image }}
`,
	}
	testtree.Write(t, dir, files)
	return dir
}

// The config's kubernetesVersion reaches the engine's chart rendering
// (local charts, releases, Argo CD and fetched charts all render through
// renderChart): a template that branches on .Capabilities.KubeVersion
// renders as `helm template --kube-version` does for each setting, and
// the two settings give different objects.
func TestKubernetesVersionRendersAsHelmTemplate(t *testing.T) {
	helm := testtree.Helm(t)
	chart := kubeVersionChart(t, "")
	var outputs []string
	for _, v := range []string{"v1.29.0", "1.35"} {
		e, err := New(nil, &config.Config{KubernetesVersion: config.KubernetesVersion(v)}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if e.KubernetesVersion != v {
			t.Fatalf("engine.KubernetesVersion = %q, want the config's %q", e.KubernetesVersion, v)
		}
		res, err := e.renderChart(&chartApp{dir: chart, release: "kv", namespace: "default"})
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		want := equalsHelmTemplate(t, helm, chart, "kv", "default", nil, []string{"--kube-version", v})
		got := renderedDocs(t, res)
		if got != want {
			t.Errorf("kubernetesVersion %s: rendered:\n%s\nhelm template --kube-version %s:\n%s", v, got, v, want)
		}
		outputs = append(outputs, got)
	}
	if outputs[0] == outputs[1] || strings.Contains(outputs[0], "replicas") || !strings.Contains(outputs[1], "replicas: 2") {
		t.Errorf("v1.29.0 and 1.35 should render different DaemonSets (replicas from v1.30 on):\n%s\n---\n%s", outputs[0], outputs[1])
	}
}

// A chart whose Chart.yaml says kubeVersion ">=1.35.0-0" is refused with
// the default target version, as `helm template --kube-version` the
// default refuses it, and renders with kubernetesVersion v1.35.0.
func TestChartKubeVersionConstraint(t *testing.T) {
	helm := testtree.Helm(t)
	chart := kubeVersionChart(t, ">=1.35.0-0")
	e, err := New(nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.renderChart(&chartApp{dir: chart, release: "kv", namespace: "default"})
	if err == nil || !strings.Contains(err.Error(), "incompatible with Kubernetes "+helmrender.DefaultKubernetesVersion) {
		t.Errorf("want the chart refused at %s, got %v", helmrender.DefaultKubernetesVersion, err)
	}
	if out, err := runHelmTemplate(helm, chart, "--kube-version", helmrender.DefaultKubernetesVersion); err == nil {
		t.Errorf("helm template renders it at %s:\n%s", helmrender.DefaultKubernetesVersion, out)
	}
	e.KubernetesVersion = "v1.35.0"
	res, err := e.renderChart(&chartApp{dir: chart, release: "kv", namespace: "default"})
	if err != nil {
		t.Fatalf("v1.35.0: %v", err)
	}
	want := equalsHelmTemplate(t, helm, chart, "kv", "default", nil, []string{"--kube-version", "v1.35.0"})
	if got := renderedDocs(t, res); got != want {
		t.Errorf("rendered:\n%s\nhelm template --kube-version v1.35.0:\n%s", got, want)
	}
}

// runHelmTemplate runs `helm template kv CHART ARGS...` with a private home
// and returns its output, or its error with what it said.
func runHelmTemplate(helm, chart string, args ...string) (string, error) {
	home, err := os.MkdirTemp("", "helm-home")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	cmd := exec.Command(helm, append([]string{"template", "kv", chart}, args...)...)
	cmd.Env = []string{"HOME=" + home, "HELM_CACHE_HOME=" + home, "HELM_CONFIG_HOME=" + home, "HELM_DATA_HOME=" + home, "PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}
