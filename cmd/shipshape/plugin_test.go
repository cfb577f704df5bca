package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestArgv0Command(t *testing.T) {
	tests := []struct{ argv0, want string }{
		{"/home/u/.config/kustomize/plugin/shipshape.dev/v1alpha1/shipshapeconfig/ShipshapeConfig", "plugin-exec"},
		{"ShipshapeConfig.exe", "plugin-exec"},
		{"/usr/local/bin/shipshape-fn", "fn"},
		{"./shipshape-fn", "fn"},
		{"/usr/local/bin/shipshape", ""},
		{"shipshapeconfig", ""},
	}
	for _, tt := range tests {
		if got := argv0Command(tt.argv0); got != tt.want {
			t.Errorf("argv0Command(%q) = %q, want %q", tt.argv0, got, tt.want)
		}
	}
}

// The legacy exec plugin protocol: config file argument, YAML stream in,
// YAML stream out. kubectl kustomize itself is driven in integration/.
func TestPluginExec(t *testing.T) {
	const stream = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\n  annotations:\n    kustomize.config.k8s.io/id: |\n      kind: DaemonSet\n      name: agent\nspec:\n  replicas: 3 # leftover\n  selector:\n    matchLabels: {app: agent}\n  template:\n    metadata:\n      labels: {app: agent}\n    spec:\n      containers:\n        - name: a\n          image: a:1\n"
	tests := []struct {
		name     string
		config   string
		wantCode int
		wantOut  string // "" means: the input, byte for byte
		stderr   []string
	}{
		{name: "lint fails, stream unchanged", config: "spec:\n  mode: lint\n", wantCode: 1,
			stderr: []string{"shipshape: DaemonSet/agent: spec.replicas: error daemonset-replicas:", "1 finding at or above error; 1 fixable with mode: fix"}},
		{name: "lint below the fail level", config: "spec:\n  rules:\n    daemonset-replicas: {severity: warning}\n"},
		{name: "fix", config: "spec:\n  mode: fix\n", wantOut: strings.Replace(stream, "  replicas: 3 # leftover\n", "", 1)},
		{name: "bad config", config: "spec:\n  mood: fix\n", wantCode: 2, stderr: []string{"mood"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "config.yaml")
			data := "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nmetadata:\n  name: t\n" + tt.config
			if err := os.WriteFile(cfg, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := run([]string{"plugin-exec", cfg}, strings.NewReader(stream), &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
			if tt.wantCode == 2 {
				return
			}
			want := tt.wantOut
			if want == "" {
				want = stream
			}
			if stdout.String() != want {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), want)
			}
		})
	}
}

func TestPluginInstall(t *testing.T) {
	for _, symlink := range []bool{false, true} {
		dir := t.TempDir()
		args := []string{"plugin", "install", "--dir", dir}
		if symlink {
			args = append(args, "--symlink")
		}
		var stdout, stderr bytes.Buffer
		if code := run(args, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		p := filepath.Join(dir, "shipshape.dev", "v1alpha1", "shipshapeconfig", "ShipshapeConfig")
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm()&0o111 == 0 {
			t.Fatalf("%v: plugin %s not executable: %v", args, p, err)
		}
		lst, _ := os.Lstat(p)
		if got := lst.Mode()&os.ModeSymlink != 0; got != symlink {
			t.Errorf("%v: symlink = %v", args, got)
		}
		// Installing again replaces the plugin.
		if code := run(args, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("%v again: exit %d: %s", args, code, stderr.String())
		}
	}
}
