package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// TestSpecialFilesReadByName: the files shipshape opens by name rather
// than meets in the walk (which skips special files) — a fleet.yaml above
// a root, the kustomization beside a file, an Argo CD Application's
// value file, the config named by --config — are FIFOs here. Each once
// blocked the run for ever (a FIFO opens only when a writer comes; a link
// to /dev/zero, the same reads, never ends). They are refused, and the
// rest is linted.
func TestSpecialFilesReadByName(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		".git/HEAD":               "ref: refs/heads/main\n",
		"app/kustomization.yaml":  "resources: [good.yaml]\n",
		"app/good.yaml":           goodYAML,
		"plain/good.yaml":         goodYAML,
		"chart/Chart.yaml":        "apiVersion: v2\nname: chart\nversion: 0.1.0\n",
		"chart/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {a: \"{{ .Values.a }}\"}\n",
		"chart/values.yaml":       "a: x\n",
		"argo/application.yaml":   argoApplication,
	})
	fifos := []string{"fleet.yaml", "plain/kustomization.yaml", "chart/extra-values.yaml", "config/pipe.yaml"}
	for _, f := range fifos {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o644); err != nil {
			t.Skipf("no FIFO: %v", err)
		}
	}
	t.Chdir(dir)

	var findings []hostileFinding
	var configCode int
	var configErr bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		findings, _, _ = lintFindings(t, "--no-cache", "--fail-on", "none", ".")
		configCode = run([]string{"lint", "--no-cache", "--config", "config/pipe.yaml", "app"}, strings.NewReader(""), &bytes.Buffer{}, &configErr)
	}()
	// Generous: a blocked open never returns, a busy machine merely slows.
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("lint blocked on a FIFO it opened by name")
	}

	judged := map[string]bool{}
	for _, f := range findings {
		if f.Rule == "ambiguous-scalar" {
			judged[f.File] = true
		}
		for _, fifo := range fifos {
			if f.File == fifo {
				t.Errorf("a FIFO the walk skips got a finding: %+v", f)
			}
		}
	}
	for _, f := range []string{"app/good.yaml", "plain/good.yaml"} {
		if !judged[f] {
			t.Errorf("%s: not judged beside the FIFOs: %+v", f, findings)
		}
	}
	if !hasFinding(findings, "render-error", 0, "extra-values.yaml") {
		t.Errorf("the chart whose value file is a FIFO: no render-error naming it: %+v", findings)
	}
	if configCode != exitUsage || !strings.Contains(configErr.String(), "config/pipe.yaml: not a regular file") {
		t.Errorf("--config naming a FIFO: exit %d, %q; want %d and the file named", configCode, configErr.String(), exitUsage)
	}
}

const argoApplication = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: chart, namespace: argocd}
spec:
  project: default
  destination: {namespace: apps, server: https://kubernetes.default.svc}
  source:
    repoURL: https://example.invalid/repo.git
    path: chart
    helm:
      valueFiles: [extra-values.yaml]
`
