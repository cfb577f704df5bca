package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// kpt fn eval DIR --exec "shipshape fn", with --fn-config and with
// -- key=value (a ConfigMap of flat keys).
func TestKptFnEval(t *testing.T) {
	t.Parallel()
	kpt := need(t, "kpt", installKpt)
	tests := []struct {
		name     string
		src      string // copied, since kpt writes the output back
		args     []string
		wantCode int
		stderr   []string // in kpt's output (it relays the function's stderr)
		results  []string // in results.yaml
		fixed    bool
	}{
		{
			name: "lint with --fn-config fails", src: example("base"), wantCode: 1,
			args:    []string{"--fn-config", example("fn-config", "lint.yaml")},
			stderr:  []string{"[error] apps/v1/DaemonSet/node-agent spec.replicas: daemonset-replicas", "[error] apps/v1/Deployment/web metadata.labels.active: ambiguous-scalar", "shipshape: 3 findings at or above warning; 3 fixable with mode: fix (listed in the results)"},
			results: []string{"rule: daemonset-replicas", "path: node-agent.yaml", "line: \"7\"", "kind: DaemonSet", "name: node-agent", "path: spec.replicas"},
		},
		{
			name: "lint with key=value fails", src: example("base"), wantCode: 1,
			args:   []string{"--", "mode=lint", "failOn=error"},
			stderr: []string{"[error] apps/v1/DaemonSet/node-agent spec.strategy: daemonset-deployment-field"},
		},
		{
			name: "fix with --fn-config", src: example("base"), fixed: true,
			args:    []string{"--fn-config", example("fn-config", "fix.yaml")},
			results: []string{"severity: info", "fixed: \"true\"", "rule: ambiguous-scalar"},
		},
		{
			name: "fix with key=value", src: example("base"), fixed: true,
			args: []string{"--", "mode=fix"},
		},
		{
			name: "clean passes and its files stay byte for byte", src: example("clean"),
			args: []string{"--", "mode=lint", "failOn=info"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pkg := filepath.Join(dir, "pkg")
			testtree.Copy(t, tt.src, pkg)
			resultsDir := filepath.Join(dir, "results")
			args := append([]string{"fn", "eval", pkg, "--exec", "shipshape fn", "--results-dir", resultsDir}, tt.args...)
			r := run(t, root, nil, kpt, args...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d: %v", r.code, tt.wantCode, r)
			}
			wantAll(t, "kpt output", r.stdout+r.stderr, tt.stderr...)
			wantOnce(t, r.stdout+r.stderr)
			res, err := os.ReadFile(filepath.Join(resultsDir, "results.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			wantAll(t, "results.yaml", string(res), tt.results...)
			after := readTree(t, pkg)
			switch {
			case tt.fixed:
				all := after["web.yaml"] + after["node-agent.yaml"]
				wantAll(t, "fixed files", all, fixedHas...)
				wantNone(t, "fixed files", all, fixedNot...)
				// The comments the user wrote stay.
				wantAll(t, "fixed files", all, "# kubectl reads the label value yes")
			case tt.wantCode == 0:
				before := readTree(t, tt.src)
				for name, data := range before {
					if after[name] != data {
						t.Errorf("%s changed:\n--- before\n%s\n--- after\n%s", name, data, after[name])
					}
				}
			}
		})
	}
}

// kpt fn render --allow-exec with a Kptfile pipeline that runs shipshape as
// a mutator (fix) and a validator (lint): kustomize-plugin/kpt.
func TestKptFnRender(t *testing.T) {
	t.Parallel()
	kpt := need(t, "kpt", installKpt)

	t.Run("mutator fixes, validator passes", func(t *testing.T) {
		t.Parallel()
		r := run(t, root, nil, kpt, "fn", "render", "--allow-exec", example("kpt"), "-o", "unwrap")
		if r.code != 0 {
			t.Fatalf("render: %v", r)
		}
		wantAll(t, "rendered", r.stdout, fixedHas...)
		wantNone(t, "rendered", r.stdout, fixedNot...)
		wantAll(t, "kpt output", r.stderr, "[info] apps/v1/DaemonSet/node-agent spec.replicas: fixed daemonset-replicas")
	})

	t.Run("validator fails on findings", func(t *testing.T) {
		t.Parallel()
		pkg := filepath.Join(t.TempDir(), "kpt")
		testtree.Copy(t, example("kpt"), pkg)
		kptfile := readTree(t, pkg)["Kptfile"]
		i, j := strings.Index(kptfile, "  mutators:"), strings.Index(kptfile, "  validators:")
		if i < 0 || j < i {
			t.Fatalf("unexpected Kptfile:\n%s", kptfile)
		}
		writeFile(t, filepath.Join(pkg, "Kptfile"), kptfile[:i]+kptfile[j:])
		r := run(t, root, nil, kpt, "fn", "render", "--allow-exec", pkg, "-o", "unwrap")
		if r.code != 1 {
			t.Fatalf("exit %d, want 1: %v", r.code, r)
		}
		wantAll(t, "kpt output", r.stderr, "[error] apps/v1/DaemonSet/node-agent spec.replicas: daemonset-replicas", "[error] apps/v1/Deployment/web metadata.labels.active: ambiguous-scalar")
		wantOnce(t, r.stderr)
	})

	t.Run("without --allow-exec kpt refuses", func(t *testing.T) {
		t.Parallel()
		r := run(t, root, nil, kpt, "fn", "render", example("kpt"), "-o", "unwrap")
		if r.code == 0 {
			t.Fatalf("render without --allow-exec succeeded: %v", r)
		}
	})

	t.Run("clean package renders unchanged", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		with := filepath.Join(dir, "with")
		testtree.Copy(t, example("clean"), with)
		kptfile := readTree(t, example("kpt"))["Kptfile"]
		fix, _ := os.ReadFile(example("kpt", "shipshape-fix.yaml"))
		check, _ := os.ReadFile(example("kpt", "shipshape-check.yaml"))
		writeFile(t, filepath.Join(with, "Kptfile"), kptfile)
		writeFile(t, filepath.Join(with, "shipshape-fix.yaml"), string(fix))
		writeFile(t, filepath.Join(with, "shipshape-check.yaml"), string(check))
		without := filepath.Join(dir, "without")
		testtree.Copy(t, with, without)
		i := strings.Index(kptfile, "pipeline:")
		writeFile(t, filepath.Join(without, "Kptfile"), kptfile[:i])

		a := run(t, root, nil, kpt, "fn", "render", "--allow-exec", with, "-o", "unwrap")
		b := run(t, root, nil, kpt, "fn", "render", without, "-o", "unwrap")
		if a.code != 0 || b.code != 0 {
			t.Fatalf("render: %v\n%v", a, b)
		}
		// The Kptfiles differ by their pipelines; everything else is the same.
		strip := func(s string) string { return s[strings.Index(s, "---\n"):] }
		if strip(a.stdout) != strip(b.stdout) {
			t.Errorf("render with shipshape differs from render without:\n--- with\n%s\n--- without\n%s", a.stdout, b.stdout)
		}
	})
}

// wantOnce: kpt prints the function's results and then its stderr; each
// finding of the example package is in kpt's output once, not in both.
func wantOnce(t *testing.T, out string) {
	t.Helper()
	for _, msg := range []string{"DaemonSet has no spec.replicas", "DaemonSet has no spec.strategy", "unquoted value yes is read"} {
		if n := strings.Count(out, msg); n > 1 {
			t.Errorf("kpt shows %q %d times:\n%s", msg, n, out)
		}
	}
}
