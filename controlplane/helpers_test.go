package controlplane

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// kubectl runs /usr/bin/kubectl (or the one on PATH) against the cluster,
// bounded to two minutes.
func kubectl(t testing.TB, args ...string) ([]byte, error) {
	t.Helper()
	return kubectlIn(t, "", args...)
}

func kubectlIn(t testing.TB, dir string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	full := append([]string{"--kubeconfig=" + cluster.Kubeconfig, "--cache-dir=" + filepath.Join(cluster.Dir, "kubectl-cache")}, args...)
	cmd := exec.CommandContext(ctx, "kubectl", full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECTL_KUBERC=false")
	return cmd.CombinedOutput()
}

// firstMatch returns the index of the first of lines that re matches, or -1.
func firstMatch(lines []string, re string) int {
	r := regexp.MustCompile(re)
	for i, l := range lines {
		if r.MatchString(l) {
			return i
		}
	}
	return -1
}
