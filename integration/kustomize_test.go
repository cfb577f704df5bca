package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/testtree"
	"github.com/shipshape-dev/shipshape/internal/yaml11"
	"go.yaml.in/yaml/v3"
)

// kustomize build --enable-alpha-plugins --enable-exec with shipshape as an
// exec KRM function under transformers: (kustomize-plugin/krm/...).
func TestKustomizeBuildExecTransformer(t *testing.T) {
	t.Parallel()
	kustomize := need(t, "kustomize", installKustomize)
	plain := run(t, root, nil, kustomize, "build", example("clean"))
	if plain.code != 0 {
		t.Fatalf("kustomize build clean: %v", plain)
	}
	tests := []struct {
		name     string
		dir      string
		wantCode int
		stderr   []string // lines shipshape must print
		stdout   []string
		notOut   []string
		sameAs   string // byte-identical to this build without shipshape
	}{
		{name: "fix mode", dir: example("krm", "fix"), stdout: fixedHas, notOut: fixedNot},
		{name: "check-only transformer fails on findings", dir: example("krm", "check"), wantCode: 1,
			stderr: append(badFindings, "shipshape: 2 findings at or above error; 2 fixable with mode: fix")},
		{name: "check-only transformer passes clean manifests unchanged", dir: example("krm", "check-clean"), sameAs: plain.stdout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, root, nil, kustomize, "build", "--enable-alpha-plugins", "--enable-exec", tt.dir)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d: %v", r.code, tt.wantCode, r)
			}
			wantAll(t, "stderr", r.stderr, tt.stderr...)
			wantAll(t, "stdout", r.stdout, tt.stdout...)
			wantNone(t, "stdout", r.stdout, tt.notOut...)
			if tt.wantCode == 0 && r.stderr != "" {
				t.Errorf("stderr is not empty on success:\n%s", r.stderr)
			}
			if tt.sameAs != "" && r.stdout != tt.sameAs {
				t.Errorf("output differs from kustomize build without shipshape:\n--- with\n%s\n--- without\n%s", r.stdout, tt.sameAs)
			}
		})
	}
}

// kustomize resolves a relative exec path against the directory of the
// kustomization that lists the transformer, not the current directory.
func TestKustomizeExecPathRelativeToKustomization(t *testing.T) {
	t.Parallel()
	kustomize := need(t, "kustomize", installKustomize)
	dir := t.TempDir()
	testtree.Copy(t, example("clean"), filepath.Join(dir, "clean"))
	if err := os.Symlink(filepath.Join(binDir, "shipshape"), filepath.Join(dir, "tools-shipshape")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "overlay", "kustomization.yaml"), "resources: [../clean]\ntransformers: [shipshape.yaml]\n")
	cfg, err := os.ReadFile(example("krm", "check-clean", "shipshape.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "overlay", "shipshape.yaml"), strings.Replace(string(cfg), "path: shipshape", "path: ../tools-shipshape", 1))
	// Run from elsewhere: ../tools-shipshape only exists relative to overlay/.
	r := run(t, t.TempDir(), []string{"PATH=/usr/bin:/bin"}, kustomize, "build", "--enable-alpha-plugins", "--enable-exec", filepath.Join(dir, "overlay"))
	if r.code != 0 {
		t.Fatalf("relative exec path: %v", r)
	}
	wantAll(t, "stdout", r.stdout, "name: api")
}

// kustomize reads resources before any transformer runs: value: 1.10
// reaches shipshape as the number 1.1. Lint catches it (the API would
// reject the number); the fix can only quote "1.1", which is why the README
// says to fix the source files.
func TestKustomizeReadsNumbersFirst(t *testing.T) {
	t.Parallel()
	kustomize := need(t, "kustomize", installKustomize)
	r := run(t, root, nil, kustomize, "build", "--enable-alpha-plugins", "--enable-exec", filepath.Join("integration", "testdata", "kustomize-number"))
	if r.code != 1 {
		t.Fatalf("exit %d, want 1: %v", r.code, r)
	}
	wantAll(t, "stderr", r.stderr, `ConfigMap/versions: data.VERSION: error ambiguous-scalar: unquoted value 1.1 is read by kubectl (YAML 1.1) as number 1.1`)
}

// kubectl kustomize --enable-alpha-plugins runs shipshape as a legacy exec
// plugin installed by shipshape plugin install (kustomize-plugin/legacy/...).
func TestKubectlKustomizeLegacyPlugin(t *testing.T) {
	t.Parallel()
	kubectl := need(t, "kubectl", installKubectl)
	plain := run(t, root, nil, kubectl, "kustomize", example("clean"))
	if plain.code != 0 {
		t.Fatalf("kubectl kustomize clean: %v", plain)
	}
	// A clean kustomization with the legacy check transformer.
	cleanCheck := t.TempDir()
	testtree.Copy(t, example("clean"), filepath.Join(cleanCheck, "clean"))
	testtree.Copy(t, example("legacy", "check"), filepath.Join(cleanCheck, "check"))
	writeFile(t, filepath.Join(cleanCheck, "check", "kustomization.yaml"), "resources: [../clean]\ntransformers: [shipshape.yaml]\n")

	for _, install := range []string{"copy", "symlink"} {
		t.Run(install, func(t *testing.T) {
			home := t.TempDir()
			args := []string{"plugin", "install", "--dir", home}
			if install == "symlink" {
				args = append(args, "--symlink")
			}
			r := run(t, root, nil, filepath.Join(binDir, "shipshape"), args...)
			plugin := filepath.Join(home, "shipshape.dev", "v1alpha1", "shipshapeconfig", "ShipshapeConfig")
			if r.code != 0 || !strings.Contains(r.stdout, plugin) {
				t.Fatalf("plugin install: %v", r)
			}
			env := []string{"KUSTOMIZE_PLUGIN_HOME=" + home}
			tests := []struct {
				name     string
				dir      string
				wantCode int
				stderr   []string
				stdout   []string
				notOut   []string
				sameAs   string
			}{
				{name: "check fails", dir: example("legacy", "check"), wantCode: 1,
					stderr: append(badFindings, "shipshape: 2 findings at or above error; 2 fixable with mode: fix")},
				{name: "fix", dir: example("legacy", "fix"), stdout: fixedHas, notOut: fixedNot},
				{name: "clean passes unchanged", dir: filepath.Join(cleanCheck, "check"), sameAs: plain.stdout},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					r := run(t, root, env, kubectl, "kustomize", "--enable-alpha-plugins", tt.dir)
					if r.code != tt.wantCode {
						t.Fatalf("exit %d, want %d: %v", r.code, tt.wantCode, r)
					}
					wantAll(t, "stderr", r.stderr, tt.stderr...)
					wantAll(t, "stdout", r.stdout, tt.stdout...)
					wantNone(t, "stdout", r.stdout, tt.notOut...)
					if tt.sameAs != "" && r.stdout != tt.sameAs {
						t.Errorf("output differs from kubectl kustomize without shipshape:\n--- with\n%s\n--- without\n%s", r.stdout, tt.sameAs)
					}
				})
			}
		})
	}
}

// kustomize fn run DIR --enable-exec --exec-path: the exec path takes no
// arguments, so shipshape answers to the name shipshape-fn; a relative
// path is relative to the current directory.
func TestKustomizeFnRun(t *testing.T) {
	t.Parallel()
	kustomize := need(t, "kustomize", installKustomize)

	t.Run("lint fails on the base", func(t *testing.T) {
		r := run(t, root, nil, kustomize, "fn", "run", example("base"), "--enable-exec", "--exec-path", "shipshape-fn", "--dry-run", "--", "mode=lint")
		if r.code != 1 {
			t.Fatalf("exit %d, want 1: %v", r.code, r)
		}
		wantAll(t, "stderr", r.stderr, "shipshape: node-agent.yaml: "+badFindings[0], "shipshape: web.yaml: "+yesFinding)
	})

	t.Run("fix writes the fixed files", func(t *testing.T) {
		dir := t.TempDir()
		testtree.Copy(t, example("base"), dir)
		r := run(t, root, nil, kustomize, "fn", "run", dir, "--enable-exec", "--exec-path", "shipshape-fn", "--", "mode=fix")
		if r.code != 0 {
			t.Fatalf("fix: %v", r)
		}
		files := readTree(t, dir)
		all := files["web.yaml"] + files["node-agent.yaml"]
		wantAll(t, "fixed files", all, fixedHas...)
		wantNone(t, "fixed files", all, fixedNot...)
		// and the fixed directory lints clean
		if r := run(t, root, nil, kustomize, "fn", "run", dir, "--enable-exec", "--exec-path", "shipshape-fn", "--dry-run"); r.code != 0 {
			t.Errorf("lint after fix: %v", r)
		}
	})

	t.Run("clean passes unchanged, relative exec path", func(t *testing.T) {
		// From the module root, ./integration/... is relative to the
		// current directory; identity is cat (a ResourceList in, the
		// same ResourceList out), through the same writer.
		dir := t.TempDir()
		testtree.Copy(t, example("clean"), filepath.Join(dir, "clean"))
		if err := os.Symlink(filepath.Join(binDir, "shipshape"), filepath.Join(dir, "shipshape-fn")); err != nil {
			t.Fatal(err)
		}
		r := run(t, dir, []string{"PATH=/usr/bin:/bin"}, kustomize, "fn", "run", "clean", "--enable-exec", "--exec-path", "./shipshape-fn", "--dry-run", "--", "mode=lint")
		if r.code != 0 {
			t.Fatalf("clean: %v", r)
		}
		same := run(t, dir, nil, kustomize, "fn", "run", "clean", "--enable-exec", "--exec-path", "/bin/cat", "--dry-run", "--", "mode=lint")
		if same.code != 0 {
			t.Fatalf("identity (cat): %v", same)
		}
		if r.stdout != same.stdout {
			t.Errorf("output differs from an identity function:\n--- shipshape\n%s\n--- cat\n%s", r.stdout, same.stdout)
		}
	})
}

// TestKustomizeReadsScalars holds yaml11.Kustomize, which ambiguous-scalar's
// messages rely on for files kustomize reads, to the kustomize binary: each
// plain scalar either comes out as the string written (kept) or as the
// value yaml11.Kustomize names.
func TestKustomizeReadsScalars(t *testing.T) {
	t.Parallel()
	kustomize := need(t, "kustomize", installKustomize)
	values := []string{"yes", "no", "on", "off", "y", "n", "Y", "NO", "True", "true", "false", "~", "null", "1.10", "0755", "0o17", "0x1F", "1e3", "1_000", "+12", "-0", ".5", "12:30", "1:20:30", "0b101", "web-1", "v1.2", "1.0", "007", "08", "", "2024-01-01", "2024-1-1", "2024-01-01 10:20:30", "2024-01-01T10:20:30Z"}
	dir := t.TempDir()
	var cm strings.Builder
	cm.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scalars\ndata:\n")
	for i, v := range values {
		fmt.Fprintf(&cm, "  k%02d: %s\n", i, v)
	}
	writeFile(t, filepath.Join(dir, "cm.yaml"), cm.String())
	writeFile(t, filepath.Join(dir, "kustomization.yaml"), "resources:\n- cm.yaml\n")
	r := run(t, dir, nil, kustomize, "build", ".")
	if r.code != 0 { // NaN and infinities would fail it: JSON has none
		t.Fatalf("kustomize build: %v", r)
	}
	var out struct {
		Data map[string]any `json:"data"`
	}
	if err := yaml.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	for i, v := range values {
		got := out.Data[fmt.Sprintf("k%02d", i)]
		want, changed := yaml11.Kustomize(v)
		_, isString := got.(string)
		b, _ := json.Marshal(got)
		switch {
		case !changed && got != v:
			t.Errorf("%s: yaml11.Kustomize says kustomize keeps the string, kustomize renders %s", v, b)
		case changed && want.Kind == yaml11.String: // a timestamp, written back as JSON writes a time
			if got != want.Text {
				t.Errorf("%s: yaml11.Kustomize says kustomize renders the string %q, kustomize renders %s", v, want.Text, b)
			}
		case changed && (isString || string(b) != want.Text):
			t.Errorf("%s: yaml11.Kustomize says kustomize renders %s, kustomize renders %s", v, want.Text, b)
		}
	}
}

// TestKustomizeReadsKustomizationAsYAML11 holds ambiguous-scalar's claim
// about kustomization files: kustomize reads them as YAML 1.1, so an
// unquoted yes or 1.10 in a label map is a boolean or a number, and the
// kustomization is rejected; quoted, it is the string.
func TestKustomizeReadsKustomizationAsYAML11(t *testing.T) {
	t.Parallel()
	kustomize := need(t, "kustomize", installKustomize)
	for _, tc := range []struct {
		value, refused string // refused: "" when kustomize builds
	}{
		{"yes", "cannot unmarshal bool"},
		{"on", "cannot unmarshal bool"},
		{"1.10", "cannot unmarshal number"},
		{`"yes"`, ""},
		{"web", ""},
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
		writeFile(t, filepath.Join(dir, "kustomization.yaml"),
			"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- cm.yaml\ncommonLabels:\n  tier: "+tc.value+"\n")
		r := run(t, dir, nil, kustomize, "build", ".")
		switch {
		case tc.refused == "" && r.code != 0:
			t.Errorf("tier: %s: kustomize refuses it: %v", tc.value, r)
		case tc.refused != "" && (r.code == 0 || !strings.Contains(r.stderr, tc.refused)):
			t.Errorf("tier: %s: want kustomize to refuse it (%s), got %v", tc.value, tc.refused, r)
		}
	}
}

// TestKustomizeBuildsAfterFix holds the render goldens about
// kustomizations kustomize cannot decode to the binary: kustomize build
// refuses the tree as written, and builds it once shipshape fix has
// quoted what ambiguous-scalar reports.
func TestKustomizeBuildsAfterFix(t *testing.T) {
	t.Parallel()
	kustomize := need(t, "kustomize", installKustomize)
	shipshape := filepath.Join(binDir, "shipshape")
	for _, tc := range []struct{ name, refused string }{
		{"kustomization-values", "cannot unmarshal bool into Go struct field Kustomization.commonLabels"},
		{"kustomization-scalars", "cannot unmarshal number into Go struct field Image.images.newTag"},
		{"kustomization-implied", "cannot unmarshal bool into Go struct field Kustomization.commonAnnotations"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Copy(t, filepath.Join(root, "rules", "testdata", "ambiguous-scalar", "render", tc.name), dir)
			app := filepath.Join(dir, "app")
			if r := run(t, dir, nil, kustomize, "build", app); r.code == 0 || !strings.Contains(r.stderr, tc.refused) {
				t.Fatalf("kustomize build as written: want it refused (%s), got %v", tc.refused, r)
			}
			if r := run(t, dir, nil, shipshape, "fix", "."); r.code != 0 {
				t.Fatalf("shipshape fix: %v", r)
			}
			if r := run(t, dir, nil, kustomize, "build", app); r.code != 0 {
				t.Fatalf("kustomize build after shipshape fix: %v", r)
			}
		})
	}
}
