package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lint --base reads the base from the repository's objects: no process
// is started (no git, no kustomize exec plugin, no helm) and no network is
// used, even when the base revision's kustomization names a remote base
// and the repository's remote is a URL. strace records every process and
// network call of shipshape and its threads.
func TestBaseNoProcessNoNetwork(t *testing.T) {
	strace := need(t, "strace", "apt-get install strace")
	git := need(t, "git", "apt-get install -y git")
	repo := t.TempDir()
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.invalid", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	gitRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir, cmd.Env = repo, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.27\n"
	writeFile(t, filepath.Join(repo, "app", "deploy.yaml"), deploy)
	writeFile(t, filepath.Join(repo, "app", "kustomization.yaml"), "resources:\n  - deploy.yaml\n  - https://github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v1.0.6\n")
	writeFile(t, filepath.Join(repo, "plain", "deploy.yaml"), deploy)
	gitRun("init", "-q", "-b", "main")
	gitRun("remote", "add", "origin", "https://127.0.0.1:9/repo.git")
	gitRun("add", "-A")
	gitRun("commit", "-q", "-m", "base")
	writeFile(t, filepath.Join(repo, "app", "kustomization.yaml"), "resources:\n  - deploy.yaml\ncommonLabels:\n  tier: front\n")
	writeFile(t, filepath.Join(repo, "plain", "deploy.yaml"), strings.Replace(deploy, "{app: web}\n  template", "{app: web, tier: front}\n  template", 1))
	gitRun("commit", "-q", "-am", "head")

	log := filepath.Join(t.TempDir(), "strace.log")
	cmd := exec.Command(strace, "-f", "-qq", "-e", "trace=process,network", "-o", log, filepath.Join(binDir, "shipshape"), "lint", "--base", "HEAD~1", ".")
	cmd.Dir = repo
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), "plain/deploy.yaml:7:") || !strings.Contains(string(out), "refused-update") {
		t.Fatalf("lint --base: exit %d; want 1 with the plain Deployment's refused selector:\n%s", code, out)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	execs := 0
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.Contains(line, "execve("):
			execs++
		case strings.Contains(line, "fork(") || (strings.Contains(line, "clone(") || strings.Contains(line, "clone3(")) && !strings.Contains(line, "CLONE_THREAD"):
			t.Errorf("a process was started: %s", line)
		case strings.Contains(line, "connect(") || strings.Contains(line, "socket(AF_INET"):
			t.Errorf("the network was used: %s", line)
		}
	}
	if execs != 1 {
		t.Errorf("%d execve calls; want 1 (strace starting shipshape)", execs)
	}
}
