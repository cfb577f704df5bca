package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pre-commit try-repo with the hooks of .pre-commit-hooks.yaml: the lint
// hook fails on a bad manifest, the fix hook fixes it (and fails, as
// pre-commit does when a hook changes files), then the lint hook passes.
// Each try-repo builds the hooks (15-60 s, more on a loaded machine).
//
// pre-commit builds a language: golang hook with `go install ./...` in a
// clone of the hook repository at a commit, so the hook repository here is
// a throwaway commit of the current working tree (uncommitted and untracked
// files included, ignored ones not). The module cache is shared with this
// run's so that the build does not download every module again.
func TestPreCommitHooks(t *testing.T) {
	t.Parallel()
	precommit := need(t, "pre-commit", installPreCommit)
	git := need(t, "git", "apt-get install -y git")
	goTool := need(t, "go", "Go is on the machine image")

	tmp := t.TempDir()
	gitEnv := []string{
		"GIT_AUTHOR_NAME=shipshape test", "GIT_AUTHOR_EMAIL=test@shipshape.invalid",
		"GIT_COMMITTER_NAME=shipshape test", "GIT_COMMITTER_EMAIL=test@shipshape.invalid",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
	}
	mustRun := func(dir string, env []string, name string, args ...string) result {
		t.Helper()
		r := run(t, dir, env, name, args...)
		if r.code != 0 {
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), r)
		}
		return r
	}

	// The hook repository: the working tree as it is now, committed.
	hooks := filepath.Join(tmp, "hooks")
	files := mustRun(root, gitEnv, git, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	n := 0
	for _, f := range strings.Split(files.stdout, "\x00") {
		if f == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the working tree
		}
		st, _ := os.Stat(filepath.Join(root, f))
		writeFile(t, filepath.Join(hooks, f), string(data))
		os.Chmod(filepath.Join(hooks, f), st.Mode().Perm())
		n++
	}
	if n == 0 {
		t.Fatal("no files in the working tree")
	}
	mustRun(hooks, gitEnv, git, "init", "-q")
	mustRun(hooks, gitEnv, git, "add", "-A")
	mustRun(hooks, gitEnv, git, "commit", "-q", "--no-verify", "-m", "snapshot of the working tree")

	// The user's repository, with a bad manifest and a YAML file that is
	// not a Kubernetes object (skipped).
	project := filepath.Join(tmp, "project")
	for _, f := range []string{"web.yaml", "node-agent.yaml"} {
		data, err := os.ReadFile(example("base", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(project, "deploy", f), string(data))
	}
	writeFile(t, filepath.Join(project, ".github", "workflows", "ci.yaml"), "on: push\njobs: {}\n")
	mustRun(project, gitEnv, git, "init", "-q")
	mustRun(project, gitEnv, git, "add", "-A")

	gomodcache, err := exec.Command(goTool, "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	env := append(gitEnv,
		"PRE_COMMIT_HOME="+filepath.Join(tmp, "pre-commit-cache"),
		"GOMODCACHE="+strings.TrimSpace(string(gomodcache)),
		"PRE_COMMIT_COLOR=never",
	)
	// try-repo installs the hooks afresh (go install ./... in a new
	// temporary clone) on every call, so the test calls it twice: all
	// hooks (lint fails, then fix changes the files), then lint alone.
	tryRepo := func(hook ...string) result {
		args := append(append([]string{"try-repo", hooks}, hook...), "--all-files", "--verbose")
		return run(t, project, env, precommit, args...)
	}

	both := tryRepo()
	if both.code != 1 {
		t.Fatalf("hooks: exit %d, want 1: %v", both.code, both)
	}
	lint, fix, ok := strings.Cut(both.stdout, "shipshape fix")
	if !ok {
		t.Fatalf("no shipshape-fix hook in the output: %v", both)
	}
	// Each finding names its rule and its resource (issue 4).
	wantAll(t, "lint hook output", lint,
		"deploy/node-agent.yaml:7:3: error daemonset-replicas: DaemonSet/node-agent: DaemonSet has no spec.replicas",
		"deploy/node-agent.yaml:8:3: error daemonset-deployment-field: DaemonSet/node-agent: DaemonSet has no spec.strategy",
		"deploy/web.yaml:8:13: error ambiguous-scalar: Deployment/web: unquoted value yes",
		"Failed")
	wantNone(t, "lint hook output", lint, "ci.yaml")
	wantAll(t, "fix hook output", fix, "files were modified by this hook", "fixed deploy/node-agent.yaml:7: daemonset-replicas")

	fixed := readTree(t, filepath.Join(project, "deploy"))
	all := fixed["web.yaml"] + fixed["node-agent.yaml"]
	wantAll(t, "fixed files", all, fixedHas...)
	wantNone(t, "fixed files", all, fixedNot...)
	if ci := readTree(t, filepath.Join(project, ".github"))["workflows/ci.yaml"]; ci != "on: push\njobs: {}\n" {
		t.Errorf("the fix hook changed a file that is not a manifest:\n%s", ci)
	}

	again := tryRepo("shipshape")
	if again.code != 0 {
		t.Fatalf("lint hook after the fix: %v", again)
	}
	wantAll(t, "lint hook output", again.stdout, "Passed")
}
