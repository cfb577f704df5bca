// Package integration runs shipshape inside the real tools its users run
// it in: kustomize, kubectl kustomize, kpt, pre-commit, and the report
// formats CI systems read. Each test drives the tool's own binary against
// the examples under kustomize-plugin/; nothing here imitates a protocol.
//
// A missing tool skips its tests with a message saying how to install it,
// except in CI (CI=true), where a missing tool fails them: .ci/run installs
// every tool these tests need.
package integration

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var (
	// root is the module root; examples are read from root/kustomize-plugin.
	root string
	// binDir holds the shipshape binary built for this run, and the
	// shipshape-fn link to it; it is first on PATH for every tool run.
	binDir string
	// buildErr is why the binary could not be built.
	buildErr error
)

func TestMain(m *testing.M) {
	code := func() int {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		root = filepath.Dir(wd)
		tmp, err := os.MkdirTemp("", "shipshape-integration-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(tmp)
		// The runs' cache is the test's, not the user's: tests that
		// wrote there grew it past 100,000 entries.
		os.Setenv("SHIPSHAPE_CACHE", filepath.Join(tmp, "cache"))
		binDir = filepath.Join(tmp, "bin")
		buildErr = build(binDir)
		return m.Run()
	}()
	os.Exit(code)
}

// build compiles shipshape once for the whole run.
func build(dir string) error {
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "shipshape"), "./cmd/shipshape")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/shipshape: %v\n%s", err, out)
	}
	return os.Symlink("shipshape", filepath.Join(dir, "shipshape-fn"))
}

// inCI reports whether missing tools must fail the tests.
func inCI() bool { return os.Getenv("CI") == "true" }

// need returns the path of tool, skipping the test (failing it in CI) when
// the tool is not installed. It also fails the test when the shipshape
// binary could not be built.
func need(t *testing.T, tool, install string) string {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	p, err := exec.LookPath(tool)
	if err != nil {
		if inCI() {
			t.Fatalf("%s is not installed (CI=true, so this fails instead of skipping): %s", tool, install)
		}
		t.Skipf("skipped: %s is not installed; %s (in CI, CI=true, this fails instead)", tool, install)
	}
	return p
}

const (
	installKustomize = "go install sigs.k8s.io/kustomize/kustomize/v5@v5.8.2 and put $(go env GOPATH)/bin on PATH"
	installKubectl   = "kubectl v1.32 is on the machine image at /usr/bin/kubectl"
	installKpt       = "kpt is on the machine image at /usr/bin/kpt"
	installPreCommit = "apt-get install -y pre-commit"
)

// result is what one tool run produced.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// run runs name with args in dir, with binDir first on PATH and env added.
func run(t *testing.T, dir string, env []string, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(toolEnv(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		r.code = ee.ExitCode()
	}
	return r
}

// toolEnv is the environment for tool runs: binDir first on PATH, no
// colour, and no terminal.
func toolEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
}

// example is the path of a file or directory under kustomize-plugin/.
func example(parts ...string) string {
	return filepath.Join(append([]string{root, "kustomize-plugin"}, parts...)...)
}

// readTree maps each file below dir to its bytes.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// badFindings are the lines every integration must show for the example
// manifests in kustomize-plugin/base: the rule and the resource, in the
// form `shipshape: [FILE: ]KIND/NAME: FIELD: error RULE: ...`.
var badFindings = []string{
	"DaemonSet/node-agent: spec.replicas: error daemonset-replicas: DaemonSet has no spec.replicas",
	"DaemonSet/node-agent: spec.strategy: error daemonset-deployment-field: DaemonSet has no spec.strategy",
}

// yesFinding is reported by the tools that hand shipshape the text the
// user wrote (kpt, kustomize fn run); kustomize build quotes "yes" itself.
const yesFinding = `Deployment/web: metadata.labels.active: error ambiguous-scalar: unquoted value yes`

func wantAll(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

func wantNone(t *testing.T, what, got string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(got, w) {
			t.Errorf("%s has %q:\n%s", what, w, got)
		}
	}
}

// fixedBase is what the fixed manifests of kustomize-plugin/base contain,
// whichever tool fixed them, and what they no longer contain.
var (
	fixedHas = []string{`active: "yes"`, "updateStrategy:", "maxUnavailable: 1"}
	fixedNot = []string{"replicas: 3", "\n  strategy:"}
)
