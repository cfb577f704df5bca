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
// preCommit is what a pre-commit test works with: the hook repository (a
// commit of the working tree) and a user's project to fill.
type preCommit struct {
	t       *testing.T
	tool    string
	git     string
	hooks   string
	project string
	gitEnv  []string
	env     []string // gitEnv, and pre-commit's cache and the module cache
}

func newPreCommit(t *testing.T) *preCommit {
	t.Helper()
	pc := &preCommit{t: t, tool: need(t, "pre-commit", installPreCommit), git: need(t, "git", "apt-get install -y git")}
	goTool := need(t, "go", "Go is on the machine image")
	tmp := t.TempDir()
	pc.gitEnv = []string{
		"GIT_AUTHOR_NAME=shipshape test", "GIT_AUTHOR_EMAIL=test@shipshape.invalid",
		"GIT_COMMITTER_NAME=shipshape test", "GIT_COMMITTER_EMAIL=test@shipshape.invalid",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
	}

	// The hook repository: the working tree as it is now, committed.
	pc.hooks = filepath.Join(tmp, "hooks")
	files := pc.mustRun(root, pc.git, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
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
		writeFile(t, filepath.Join(pc.hooks, f), string(data))
		os.Chmod(filepath.Join(pc.hooks, f), st.Mode().Perm())
		n++
	}
	if n == 0 {
		t.Fatal("no files in the working tree")
	}
	pc.mustRun(pc.hooks, pc.git, "init", "-q")
	pc.mustRun(pc.hooks, pc.git, "add", "-A")
	pc.mustRun(pc.hooks, pc.git, "commit", "-q", "--no-verify", "-m", "snapshot of the working tree")

	pc.project = filepath.Join(tmp, "project")
	if err := os.MkdirAll(pc.project, 0o755); err != nil {
		t.Fatal(err)
	}
	pc.mustRun(pc.project, pc.git, "init", "-q")
	gomodcache, err := exec.Command(goTool, "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	pc.env = append(pc.gitEnv,
		"PRE_COMMIT_HOME="+filepath.Join(tmp, "pre-commit-cache"),
		"GOMODCACHE="+strings.TrimSpace(string(gomodcache)),
		"PRE_COMMIT_COLOR=never",
	)
	return pc
}

func (pc *preCommit) mustRun(dir, name string, args ...string) result {
	pc.t.Helper()
	r := run(pc.t, dir, pc.gitEnv, name, args...)
	if r.code != 0 {
		pc.t.Fatalf("%s %s: %v", name, strings.Join(args, " "), r)
	}
	return r
}

// tryRepo runs the hooks on the project: try-repo installs them afresh
// (go install ./... in a new temporary clone) on every call.
func (pc *preCommit) tryRepo(args ...string) result {
	return run(pc.t, pc.project, pc.env, pc.tool, append([]string{"try-repo", pc.hooks}, args...)...)
}

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
	pc := newPreCommit(t)
	project := pc.project

	// The user's repository, with a bad manifest and a YAML file that is
	// not a Kubernetes object (skipped).
	for _, f := range []string{"web.yaml", "node-agent.yaml"} {
		data, err := os.ReadFile(example("base", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(project, "deploy", f), string(data))
	}
	writeFile(t, filepath.Join(project, ".github", "workflows", "ci.yaml"), "on: push\njobs: {}\n")
	pc.mustRun(project, pc.git, "add", "-A")

	tryRepo := func(hook ...string) result {
		return pc.tryRepo(append(hook, "--all-files", "--verbose")...)
	}

	// Twice: all hooks (lint fails, then fix changes the files), then
	// lint alone.
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

// TestPreCommitStagedService: pre-commit names only the staged files, and
// shipshape reads the rest of the repository for the cross-resource rules:
// a Service staged alone, whose pods a committed Deployment makes, gets no
// finding; a Service whose selector no template carries gets one.
func TestPreCommitStagedService(t *testing.T) {
	t.Parallel()
	pc := newPreCommit(t)
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: rng\nspec:\n  selector:\n    matchLabels: {app: rng}\n  template:\n    metadata:\n      labels: {app: rng}\n    spec:\n      containers:\n        - name: rng\n          image: dockercoins/rng:v0.1\n"
	service := func(name, selector string) string {
		return "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + name + "\nspec:\n  selector:\n" + selector + "  ports:\n    - port: 80\n"
	}
	writeFile(t, filepath.Join(pc.project, "apps", "rng", "deployment.yaml"), deployment)
	pc.mustRun(pc.project, pc.git, "add", "-A")
	pc.mustRun(pc.project, pc.git, "commit", "-q", "--no-verify", "-m", "the workload")

	writeFile(t, filepath.Join(pc.project, "apps", "rng", "service.yaml"), service("rng", "    app: rng\n"))
	pc.mustRun(pc.project, pc.git, "add", "apps/rng/service.yaml")
	good := pc.tryRepo("shipshape", "--verbose")
	if good.code != 0 || strings.Contains(good.stdout, "service-no-matching-pods") {
		t.Fatalf("a Service whose pods a committed Deployment makes: %v", good)
	}
	wantAll(t, "lint hook output", good.stdout, "1 file")

	writeFile(t, filepath.Join(pc.project, "apps", "rng", "active.yaml"), service("rng-active", "    app: rng\n    active: \"yes\"\n"))
	pc.mustRun(pc.project, pc.git, "add", "apps/rng/active.yaml")
	bad := pc.tryRepo("shipshape", "--verbose")
	wantAll(t, "lint hook output", bad.stdout,
		`apps/rng/active.yaml:8:5: warning service-no-matching-pods: Service/rng-active: Service "rng-active" selects active=yes, app=rng, which no pod template in namespace default carries: Deployment/rng has app=rng but not active=yes`)
}

// The language: system hooks run the shipshape on PATH (here this run's
// build, first on PATH) and build nothing: pre-commit makes no Go
// environment for them. The lint hook fails on the bad manifest, the fix
// hook fixes it, and the lint hook then passes.
func TestPreCommitSystemHooks(t *testing.T) {
	t.Parallel()
	pc := newPreCommit(t)
	data, err := os.ReadFile(example("base", "node-agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(pc.project, "deploy", "node-agent.yaml"), string(data))
	pc.mustRun(pc.project, pc.git, "add", "-A")

	lint := pc.tryRepo("shipshape-system", "--all-files", "--verbose")
	if lint.code != 1 {
		t.Fatalf("system lint hook on a bad manifest: %v; want exit 1", lint)
	}
	wantAll(t, "system lint hook output", lint.stdout,
		"deploy/node-agent.yaml:7:3: error daemonset-replicas: DaemonSet/node-agent: DaemonSet has no spec.replicas", "Failed")

	fix := pc.tryRepo("shipshape-fix-system", "--all-files", "--verbose")
	wantAll(t, "system fix hook output", fix.stdout, "files were modified by this hook", "fixed deploy/node-agent.yaml:7: daemonset-replicas")
	again := pc.tryRepo("shipshape-system", "--all-files", "--verbose")
	if again.code != 0 {
		t.Fatalf("system lint hook after the fix: %v", again)
	}

	var home string
	for _, kv := range pc.env {
		if v, ok := strings.CutPrefix(kv, "PRE_COMMIT_HOME="); ok {
			home = v
		}
	}
	if envs, _ := filepath.Glob(filepath.Join(home, "*", "golangenv-*")); len(envs) > 0 {
		t.Errorf("the system hooks built a Go environment: %v", envs)
	}
	if envs, _ := filepath.Glob(filepath.Join(home, "*")); len(envs) == 0 {
		t.Errorf("no pre-commit cache under %s: the check above saw nothing", home)
	}
}

// The change hook judges the staged change against HEAD: a selector
// widened in the staged change fails the commit, at its line; a harmless
// staged change (an image bump) passes while the same widening sits
// unstaged, since pre-commit stashes unstaged changes before the hooks
// run.
func TestPreCommitChangeHook(t *testing.T) {
	t.Parallel()
	pc := newPreCommit(t)
	deployment := func(selector, image string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n" + selector +
			"  template:\n    metadata:\n      labels:\n        app: web\n        tier: front\n    spec:\n      containers:\n        - name: web\n          image: " + image + "\n"
	}
	file := filepath.Join(pc.project, "deploy", "web.yaml")
	writeFile(t, file, deployment("", "nginx:1.27"))
	pc.mustRun(pc.project, pc.git, "add", "-A")
	pc.mustRun(pc.project, pc.git, "commit", "-q", "--no-verify", "-m", "the workload")

	writeFile(t, file, deployment("      tier: front\n", "nginx:1.27"))
	pc.mustRun(pc.project, pc.git, "add", "deploy/web.yaml")
	refused := pc.tryRepo("shipshape-change-system", "--verbose")
	if refused.code != 1 {
		t.Fatalf("change hook on a staged selector change: %v; want exit 1", refused)
	}
	wantAll(t, "change hook output", refused.stdout,
		"deploy/web.yaml:9:13: error refused-update: Deployment/web: spec.selector.matchLabels.tier changes from absent", "Failed")

	// Staged: only an image bump; unstaged: the selector widened again.
	writeFile(t, file, deployment("", "nginx:1.28"))
	pc.mustRun(pc.project, pc.git, "add", "deploy/web.yaml")
	writeFile(t, file, deployment("      tier: front\n", "nginx:1.28"))
	harmless := pc.tryRepo("shipshape-change-system", "--verbose")
	if harmless.code != 0 || strings.Contains(harmless.stdout, "refused-update") {
		t.Fatalf("change hook on a staged image bump (the selector change unstaged): %v; want it to pass", harmless)
	}
}
