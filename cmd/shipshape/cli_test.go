package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const badConfigMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: yes\n"

func TestCLI(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.yaml", badConfigMap)
	svc := write("svc/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports: [{port: 80}]\n")
	cfgDisable := write("cfg/disable.yaml", "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  rules:\n    ambiguous-scalar:\n      enabled: false\n")
	cfgSeverity := write("cfg/severity.yaml", "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  rules:\n    service-empty-selector:\n      severity: error\n")
	cfgTypo := write("cfg/typo.yaml", "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  rules:\n    ambiguous-scalar:\n      enabeld: false\n")
	cfgUnknownRule := write("cfg/unknown.yaml", "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  rules:\n    no-such-rule: {enabled: true}\n")
	cfgBadSeverity := write("cfg/badsev.yaml", "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  rules:\n    ambiguous-scalar: {severity: fatal}\n")
	cfgExclude := write("cfg/exclude.yaml", "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  exclude: [\"bad.yaml\"]\n")
	os.Rename(cfgExclude, filepath.Join(dir, "exclude.yaml"))
	cfgExclude = filepath.Join(dir, "exclude.yaml")

	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		stdout   []string // substrings
		stderr   []string
		noStdout []string
	}{
		{name: "finding exits 1", args: []string{"lint", bad}, code: 1, stdout: []string{bad + ":6:6: error ambiguous-scalar", "1 fixable: run shipshape fix"}},
		{name: "warning below fail-on", args: []string{"lint", svc}, code: 0, stdout: []string{"warning service-empty-selector"}},
		{name: "fail-on warning", args: []string{"lint", "--fail-on", "warning", svc}, code: 1},
		{name: "fail-on none", args: []string{"lint", "--fail-on", "none", bad}, code: 0},
		{name: "fail-on bad", args: []string{"lint", "--fail-on", "fatal", bad}, code: 2, stderr: []string{"--fail-on"}},
		{name: "disable flag", args: []string{"lint", "--disable", "ambiguous-scalar", bad}, code: 0, stdout: []string{"no problems in 1 file (1 resource)"}},
		{name: "unknown rule flag", args: []string{"lint", "--disable", "nope", bad}, code: 2, stderr: []string{`unknown rule "nope"`}},
		{name: "config disables", args: []string{"lint", "--config", cfgDisable, bad}, code: 0},
		{name: "enable wins over config", args: []string{"lint", "--config", cfgDisable, "--enable", "ambiguous-scalar", bad}, code: 1},
		{name: "config severity", args: []string{"lint", "--config", cfgSeverity, svc}, code: 1, stdout: []string{"error service-empty-selector"}},
		{name: "config typo names field", args: []string{"lint", "--config", cfgTypo, bad}, code: 2, stderr: []string{"enabeld"}},
		{name: "config unknown rule", args: []string{"lint", "--config", cfgUnknownRule, bad}, code: 2, stderr: []string{"spec.rules.no-such-rule: unknown rule"}},
		{name: "config bad severity", args: []string{"lint", "--config", cfgBadSeverity, bad}, code: 2, stderr: []string{"spec.rules.ambiguous-scalar.severity"}},
		{name: "config exclude", args: []string{"lint", "--config", cfgExclude, bad}, code: 0, stdout: []string{"no problems in 0 files"}},
		{name: "missing config file", args: []string{"lint", "--config", filepath.Join(dir, "nope.yaml"), bad}, code: 2},
		{name: "stdin", args: []string{"lint", "-"}, stdin: badConfigMap, code: 1, stdout: []string{"-:6:6: error ambiguous-scalar"}},
		{name: "missing path", args: []string{"lint", filepath.Join(dir, "missing.yaml")}, code: 1, stdout: []string{"read-error"}},
		{name: "unknown format", args: []string{"lint", "--format", "xml", bad}, code: 2},
		{name: "github format", args: []string{"lint", "--format", "github", bad}, code: 1, stdout: []string{"::error file=" + bad + ",line=6,col=6,title=ambiguous-scalar::"}},
		{name: "unknown command", args: []string{"lnt"}, code: 2, stderr: []string{`unknown command "lnt"`}},
		{name: "rules", args: []string{"rules"}, code: 0, stdout: []string{"ambiguous-scalar", "selector-template-mismatch"}},
		{name: "explain", args: []string{"explain", "daemonset-replicas"}, code: 0, stdout: []string{"## daemonset-replicas", "Bad:", "Good:"}},
		{name: "explain unknown", args: []string{"explain", "nope"}, code: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout.String(), stderr.String())
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
		})
	}
}

func TestJSONShape(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.yaml")
	os.WriteFile(p, []byte(badConfigMap), 0o644)
	var stdout, stderr bytes.Buffer
	run([]string{"lint", "--format", "json", p}, strings.NewReader(""), &stdout, &stderr)
	var got map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	f := got["findings"].([]any)[0].(map[string]any)
	want := map[string]any{
		"rule": "ambiguous-scalar", "severity": "error", "file": p, "line": 6.0, "column": 6.0,
		"field": "data.a", "fixable": true,
		"resource": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "namespace": "", "name": "web"},
	}
	for k, v := range want {
		gv, _ := json.Marshal(f[k])
		wv, _ := json.Marshal(v)
		if string(gv) != string(wv) {
			t.Errorf("%s = %s, want %s", k, gv, wv)
		}
	}
	sum, _ := json.Marshal(got["summary"])
	if string(sum) != `{"errors":1,"files":1,"fixable":1,"infos":0,"resources":1,"warnings":0}` {
		t.Errorf("summary = %s", sum)
	}
}
