package render

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests start processes (the kustomize binary to compare with,
// unshare, the test binary itself); the code under test never does.

// inCI reports whether missing tools must fail the tests.
func inCI() bool { return os.Getenv("CI") == "true" }

// corpusTrees lists the corpus's trees (one directory per repository).
func corpusTrees(tb testing.TB, corpus string) []string {
	tb.Helper()
	entries, err := os.ReadDir(corpus)
	if err != nil {
		tb.Fatal(err)
	}
	var trees []string
	for _, e := range entries {
		p := filepath.Join(corpus, e.Name())
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			trees = append(trees, p)
		}
	}
	if len(trees) == 0 {
		tb.Fatalf("no trees in %s", corpus)
	}
	return trees
}

var (
	kustomizeOnce sync.Once
	kustomizePath string
	kustomizeErr  string
)

// kustomizeBinary returns the path of kustomize v5.8.2: on PATH, else in
// $GOPATH/bin or ~/go/bin. Missing (or another version), it skips tb, or
// fails it when CI=true.
func kustomizeBinary(tb testing.TB) string {
	tb.Helper()
	kustomizeOnce.Do(func() {
		var candidates []string
		if p, err := exec.LookPath("kustomize"); err == nil {
			candidates = append(candidates, p)
		}
		if gp := os.Getenv("GOPATH"); gp != "" {
			candidates = append(candidates, filepath.Join(gp, "bin", "kustomize"))
		}
		if home, err := os.UserHomeDir(); err == nil {
			candidates = append(candidates, filepath.Join(home, "go", "bin", "kustomize"))
		}
		kustomizeErr = "kustomize v5.8.2 is not installed (go install sigs.k8s.io/kustomize/kustomize/v5@v5.8.2)"
		for _, c := range candidates {
			out, err := exec.Command(c, "version").Output()
			if err != nil {
				continue
			}
			if v := strings.TrimSpace(string(out)); v != "v5.8.2" {
				kustomizeErr = c + " is kustomize " + v + ", not v5.8.2"
				continue
			}
			kustomizePath = c
			return
		}
	})
	if kustomizePath == "" {
		if inCI() {
			tb.Fatalf("%s (CI=true, so this fails instead of skipping)", kustomizeErr)
		}
		tb.Skipf("skipped: %s (in CI, CI=true, this fails instead)", kustomizeErr)
	}
	return kustomizePath
}

// unshareWorks reports whether `unshare -n` can make a network namespace
// here (it needs root or user namespaces).
var unshareWorks = sync.OnceValue(func() bool {
	p, err := exec.LookPath("unshare")
	if err != nil {
		return false
	}
	return exec.Command(p, "-n", "true").Run() == nil
})

// buildRun is one `kustomize build` run.
type buildRun struct {
	stdout, stderr []byte
	err            error
	took           time.Duration
}

// kustomizeBuild runs `kustomize build dir` with flags (none, as the
// corpus is built), inside a network namespace without network when
// offline is set (the binary would otherwise try to fetch remote bases).
func kustomizeBuild(bin, dir string, offline bool, flags ...string) buildRun {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{bin, "build", dir}, flags...)
	if offline {
		args = append([]string{"unshare", "-n"}, args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	return buildRun{stdout.Bytes(), stderr.Bytes(), err, time.Since(start)}
}
