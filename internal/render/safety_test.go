package render

import (
	"context"
	"errors"
	"fmt"
	"go/build"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// refusedRoots are the golden roots that need the network or a process.
var refusedRoots = []string{
	"refused/remote-base", "refused/remote-in-base", "refused/remote-component", "refused/remote-patch",
	"refused/generator-file", "refused/transformer-config", "refused/helm", "refused/exec-fn", "refused/container-fn",
}

func TestIsRemote(t *testing.T) {
	for path, want := range map[string]bool{
		"https://github.com/argoproj/argo-workflows/manifests/base/crds/minimal?ref=v3.7.3": true,
		"http://example.com/deploy.yaml":                        true,
		"github.com/example/manifests//deploy/base?ref=v1.2.0":  true,
		"git@github.com:example/manifests.git//deploy?ref=main": true,
		"ssh://git@example.com/org/repo.git":                    true,
		"git::https://example.com/org/repo":                     true,
		"https://github.com/example/components.git//monitoring": true,
		"../base":                  false,
		"base":                     false,
		"deployment.yaml":          false,
		"./overlays/github.com":    false,
		"C:/manifests/deploy.yaml": false,
	} {
		if got := IsRemote(path); got != want {
			t.Errorf("IsRemote(%q) = %v, want %v", path, got, want)
		}
	}
}

// recordingTransport fails and counts every HTTP request.
type recordingTransport struct{ calls atomic.Int32 }

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.calls.Add(1)
	return nil, errors.New("shipshape test: the network was reached for " + req.URL.String())
}

// recordingPath makes a directory of programs (git, helm, docker, ...)
// that record being run by creating a file named after themselves in
// marks, and returns the directory and the marks directory.
func recordingPath(t *testing.T) (bin, marks string) {
	t.Helper()
	bin, marks = t.TempDir(), t.TempDir()
	for _, name := range []string{"git", "helm", "docker", "podman", "kustomize", "sh", "bash"} {
		script := fmt.Sprintf("#!/bin/sh\n: > %s/%s\nexit 0\n", marks, name)
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin, marks
}

func ran(t *testing.T, marks string) []string {
	t.Helper()
	entries, err := os.ReadDir(marks)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestNoProcessNoNetwork renders every refused golden root with a PATH of
// programs that record being run and an HTTP transport that records
// being used: each root is refused, nothing is run, nothing is fetched.
// Then it shows the recorders work: the same roots handed to krusty
// without the refusal (Renderer.run, as Render would without Refuse) do
// reach git and the network. That second half starts only the recording
// scripts, from a temporary PATH.
func TestNoProcessNoNetwork(t *testing.T) {
	bin, marks := recordingPath(t)
	t.Setenv("PATH", bin)
	t.Setenv("TMPDIR", t.TempDir()) // where a git clone would go
	tr := &recordingTransport{}
	saved := http.DefaultTransport
	http.DefaultTransport = tr
	defer func() { http.DefaultTransport = saved }()

	dir, _ := filepath.Abs("testdata")
	g, err := Discover([]string{filepath.Join(dir, "refused")})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRenderer(g)
	byDir := map[string]*Kustomization{}
	for _, res := range r.RenderAll(context.Background(), g.Roots) {
		byDir[res.Root.Dir] = res.Root
		if res.Problem == nil || !res.Problem.Refused {
			t.Errorf("%s: not refused: %+v", res.Root.Dir, res.Problem)
		}
	}
	for _, name := range refusedRoots {
		if byDir[filepath.Join(dir, name)] == nil {
			t.Errorf("%s is not a root", name)
		}
	}
	if got := ran(t, marks); len(got) > 0 {
		t.Errorf("programs were run while rendering: %v", got)
	}
	if n := tr.calls.Load(); n > 0 {
		t.Errorf("the network was reached %d times while rendering", n)
	}

	// The recorders catch krusty when it is not stopped first.
	for _, c := range []struct{ root, program string }{
		{"refused/remote-base", "git"},
		{"refused/remote-patch", ""},
	} {
		root := byDir[filepath.Join(dir, c.root)]
		if root == nil {
			continue
		}
		before := tr.calls.Load()
		_, err := r.run(root, false, nil)
		if err == nil {
			t.Errorf("%s: rendered without its remote entry", c.root)
		}
		if c.program != "" && !strings.Contains(strings.Join(ran(t, marks), " "), c.program) {
			t.Errorf("%s: krusty did not run %s without the refusal; the recorder would miss it (%v)", c.root, c.program, err)
		}
		if c.program == "" && tr.calls.Load() == before {
			t.Errorf("%s: krusty did not reach the network without the refusal; the recorder would miss it (%v)", c.root, err)
		}
	}
}

// TestOfflineNamespace re-runs this test binary inside a network
// namespace with no network (`unshare -n`) and an empty PATH (no git, no
// helm): there the refused roots are refused, the other golden roots
// render, and the process has had no child at all (getrusage
// RUSAGE_CHILDREN stays zero: any program kustomize started and waited
// for would show).
func TestOfflineNamespace(t *testing.T) {
	if os.Getenv("SHIPSHAPE_RENDER_OFFLINE_CHILD") == "1" {
		offlineChild(t)
		return
	}
	if !unshareWorks() {
		if inCI() {
			t.Fatal("unshare -n does not work here (CI=true, so this fails instead of skipping)")
		}
		t.Skip("skipped: unshare -n does not work here (needs root or user namespaces); in CI, CI=true, this fails instead")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	unshare, _ := exec.LookPath("unshare")
	cmd := exec.Command(unshare, "-n", self, "-test.run=^TestOfflineNamespace$", "-test.count=1", "-test.v")
	cmd.Env = []string{"SHIPSHAPE_RENDER_OFFLINE_CHILD=1", "PATH=", "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestOfflineNamespace") {
		t.Fatalf("offline run failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "offline: ") {
		t.Fatalf("the child did not report:\n%s", out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "offline: ") {
			t.Log(strings.TrimSpace(line))
		}
	}
}

func offlineChild(t *testing.T) {
	if _, err := exec.LookPath("git"); err == nil {
		t.Fatal("git is on PATH in the offline child")
	}
	dir, _ := filepath.Abs("testdata")
	g, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	refused, rendered := 0, 0
	for _, res := range NewRenderer(g).RenderAll(context.Background(), g.Roots) {
		rel, _ := filepath.Rel(dir, res.Root.Dir)
		isRefused := false
		for _, r := range refusedRoots {
			isRefused = isRefused || r == rel
		}
		switch {
		case isRefused && (res.Problem == nil || !res.Problem.Refused):
			t.Errorf("%s: not refused: %+v", rel, res.Problem)
		case isRefused:
			refused++
		case res.Problem != nil && rel != "missing/app":
			t.Errorf("%s: does not render offline: %v", rel, res.Problem)
		case res.Problem == nil:
			rendered++
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		t.Fatal(err)
	}
	if ru.Maxrss != 0 || ru.Utime.Usec+ru.Utime.Sec+ru.Stime.Usec+ru.Stime.Sec != 0 {
		t.Errorf("a child process ran: rusage %+v", ru)
	}
	if refused != len(refusedRoots) || rendered == 0 {
		t.Errorf("refused %d of %d roots, rendered %d", refused, len(refusedRoots), rendered)
	}
	fmt.Printf("offline: %d roots refused, %d rendered, no child process, in a network namespace without network and with an empty PATH\n", refused, rendered)
}

// TestNoNetworkImports holds this package to the rule of
// cmd/shipshape's TestNoNetworkNoExec: its own files import no
// networking or process package. kustomize/api, which it links, does
// (its git cloner runs git, its file loader fetches URLs, its exec and
// Helm plugins start programs); Refuse keeps every root that would reach
// those paths away from krusty (see its doc), which TestNoProcessNoNetwork
// and TestOfflineNamespace check at run time.
func TestNoNetworkImports(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range p.Imports {
		switch imp {
		case "net", "net/http", "net/rpc", "os/exec", "plugin":
			t.Errorf("internal/render imports %s", imp)
		}
	}
	if len(p.Imports) == 0 {
		t.Fatal("no imports read")
	}
}
