package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A chart whose template is a link out of the repository is not rendered:
// Helm's loader would follow the link and render (and quote, in an error)
// a file outside what was linted. It is a render-error at the chart, and
// nothing of the outside file is printed.
func TestChartWithALinkOutsideIsNotRendered(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "outside.yaml")
	writeFile(t, outside, "secret: CANARY-4711 {{ .Values.missing.key }}\n")
	repo := filepath.Join(root, "repo")
	writeFile(t, filepath.Join(repo, "chart", "Chart.yaml"), "apiVersion: v2\nname: leak\nversion: 0.1.0\n")
	writeFile(t, filepath.Join(repo, "chart", "templates", "cm.yaml"),
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n")
	if err := os.Symlink(outside, filepath.Join(repo, "chart", "templates", "leak.yaml")); err != nil {
		t.Skip(err)
	}
	out := runIn(t, repo, exitOK, "lint", "-v", "--fail-on", "none", repo)
	if !strings.Contains(out, "render-error") || !strings.Contains(out, "a link leads out of the directories linted") {
		t.Errorf("the chart was not refused:\n%s", out)
	}
	if strings.Contains(out, "CANARY-4711") {
		t.Errorf("the outside file was read:\n%s", out)
	}
}

// pre-commit names only the files staged: a template named alone still
// renders its chart; the findings placed in the files named are reported
// (the chart's other files are context, as a kustomize root's are).
func TestChartTemplateNamedAloneRendersItsChart(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "render", "helm-chart")
	shop := filepath.Join(dir, "shop")
	out := runIn(t, dir, exitOK, "lint", "--fail-on", "none", filepath.Join(shop, "templates", "agent.yaml"))
	if !strings.Contains(out, "shop/templates/agent.yaml:9:3: error daemonset-deployment-field") || strings.Contains(out, "values.yaml") {
		t.Errorf("want the template's finding only:\n%s", out)
	}
	if strings.Contains(out, "template-skipped") {
		t.Errorf("the template was skipped:\n%s", out)
	}
	out = runIn(t, dir, exitOK, "lint", "--fail-on", "none", filepath.Join(shop, "templates", "agent.yaml"), filepath.Join(shop, "values.yaml"))
	if !strings.Contains(out, "shop/values.yaml:3:13: error daemonset-replicas") {
		t.Errorf("no finding at the values line:\n%s", out)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
