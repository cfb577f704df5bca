package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		glob, path string
		want       bool
	}{
		{"charts/**", "charts/a/b.yaml", true},
		{"charts/**", "charts", true},
		{"charts/**", "other/charts/a.yaml", false},
		{"**/charts/**", "other/charts/a.yaml", true},
		{"*.generated.yaml", "a/b/x.generated.yaml", true},
		{"*.generated.yaml", "a/b/x.yaml", false},
		{"vendor", "a/vendor/x.yaml", true},
		{"base/*.yaml", "base/a.yaml", true},
		{"base/*.yaml", "base/sub/a.yaml", false},
		{"./base/*.yaml", "base/a.yaml", true},
		{"**/*.yml", "deep/er/x.yml", true},
	}
	for _, tc := range tests {
		if got := MatchGlob(tc.glob, tc.path); got != tc.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tc.glob, tc.path, got, tc.want)
		}
	}
}

// TestExcluder: globs are relative to the config's directory, whether a
// file is named relative to the working directory or absolute; a file
// outside that directory is matched as named.
func TestExcluder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	c := &Config{Dir: filepath.Join(dir, "repo"), Exclude: []string{"charts/**", "*.generated.yaml"}}
	excluded := c.Excluder()
	for _, tc := range []struct {
		file string
		want bool
	}{
		{"repo/charts/a.yaml", true},
		{filepath.Join(dir, "repo/charts/a.yaml"), true},
		{"./repo/app/../charts/b.yaml", true},
		{"repo/app/x.generated.yaml", true},
		{"repo/app/deploy.yaml", false},
		{"charts/a.yaml", true}, // outside repo/: matched as named
		{"other/a.yaml", false},
		{"-", false},
	} {
		if got := excluded(tc.file); got != tc.want {
			t.Errorf("excluded(%q) = %v, want %v", tc.file, got, tc.want)
		}
	}
	// A config named by a relative path (-c repo/.shipshape.yaml).
	rel := (&Config{Dir: "repo", Exclude: []string{"charts/**"}}).Excluder()
	for _, f := range []string{"repo/charts/a.yaml", filepath.Join(dir, "repo/charts/a.yaml")} {
		if !rel(f) {
			t.Errorf("with Dir repo, excluded(%q) = false, want true", f)
		}
	}
	if (&Config{}).Excluder()("charts/a.yaml") {
		t.Error("a config without exclude globs excluded a file")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"typo", "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  exlude: [a]\n", "line 4: field exlude not found"},
		{"wrong kind", "apiVersion: v1\nkind: ConfigMap\n", "apiVersion/kind must be shipshape.dev/v1alpha1 ShipshapeConfig"},
		{"bad mode", "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  mode: apply\n", "spec.mode"},
		{"bad engine", "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  lws: {engine: helm}\n", "spec.lws.engine"},
		{"bad load restrictor", "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  loadRestrictor: none\n", "spec.loadRestrictor: \"none\" is not LoadRestrictionsRootOnly or LoadRestrictionsNone"},
		{"bad yaml", "apiVersion: [\n", "line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src), "x.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "x.yaml: ") {
				t.Errorf("err = %v, want it to name x.yaml and contain %q", err, tc.want)
			}
		})
	}
}

func TestFromFlatKeys(t *testing.T) {
	c, err := FromFlatKeys(map[string]string{
		"mode": "fix", "failOn": "warning", "disable": "a, b", "enable": "c",
		"d.severity": "info", "e.enabled": "false", "lws.engine": "kapp",
		"loadRestrictor": "LoadRestrictionsNone",
	}, "functionConfig")
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != "fix" || c.FailOn != "warning" || c.LWS.Engine != "kapp" || c.LoadRestrictor != "LoadRestrictionsNone" {
		t.Errorf("got %+v", c)
	}
	for id, on := range map[string]bool{"a": false, "b": false, "c": true, "e": false} {
		if rc := c.Rules[id]; rc.Enabled == nil || *rc.Enabled != on {
			t.Errorf("rule %s enabled = %v, want %v", id, rc.Enabled, on)
		}
	}
	if c.Rules["d"].Severity != "info" {
		t.Errorf("d severity = %q", c.Rules["d"].Severity)
	}
	if _, err := FromFlatKeys(map[string]string{"colour": "red"}, "functionConfig"); err == nil || !strings.Contains(err.Error(), "data.colour") {
		t.Errorf("unknown key: err = %v", err)
	}
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	os.MkdirAll(deep, 0o755)
	// Above the repository (a): never read.
	os.WriteFile(filepath.Join(root, FileName), []byte("apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\n"), 0o644)
	os.Mkdir(filepath.Join(root, "a", ".git"), 0o755)
	if got := Find(deep); got != "" && strings.HasPrefix(got, root) {
		t.Errorf("found %s before writing one", got)
	}
	cfg := filepath.Join(root, "a", FileName)
	os.WriteFile(cfg, []byte("apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\n"), 0o644)
	if got := Find(deep); got != cfg {
		t.Errorf("Find = %q, want %q", got, cfg)
	}
	c, err := Load(cfg)
	if err != nil || c.Dir != filepath.Join(root, "a") {
		t.Errorf("Load: %+v %v", c, err)
	}
}

// kubernetesVersion is read from the file and from a ConfigMap's flat keys;
// a version Helm cannot parse names where it was written.
func TestKubernetesVersion(t *testing.T) {
	c, err := Parse([]byte("apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  kubernetesVersion: 1.30\n"), "cfg.yaml")
	if err != nil || c.KubernetesVersion != "1.30" {
		t.Errorf("got %q, %v; want 1.30 as written", c.KubernetesVersion, err)
	}
	_, err = Parse([]byte("apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  kubernetesVersion: [1]\n"), "cfg.yaml")
	if err == nil || !strings.Contains(err.Error(), "cfg.yaml: line 4: spec.kubernetesVersion") {
		t.Errorf("a list: got %v", err)
	}
	c, err = FromFlatKeys(map[string]string{"kubernetesVersion": "v1.35.0"}, "fn-config")
	if err != nil || c.KubernetesVersion != "v1.35.0" {
		t.Errorf("flat key: got %q, %v", c.KubernetesVersion, err)
	}
	if _, err = FromFlatKeys(map[string]string{"kubernetesVersion": "next"}, "fn-config"); err == nil || !strings.Contains(err.Error(), "fn-config: data.kubernetesVersion: \"next\" is not a Kubernetes version") {
		t.Errorf("bad flat key: got %v", err)
	}
}
