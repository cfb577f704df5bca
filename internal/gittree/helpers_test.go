package gittree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tests build real repositories with the git binary (the code under
// test never starts it).

// needGit skips t when git is missing, or fails it when CI=true.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed (CI=true, so this fails instead of skipping)")
		}
		t.Skip("skipped: git is not installed (in CI, CI=true, this fails instead)")
	}
}

// runGit runs git in dir and returns its trimmed output.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	cmd.Env = withoutGitDir(cmd.Env)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// withoutGitDir drops GIT_DIR and GIT_WORK_TREE (set when the tests run
// from a git hook), which would point git at another repository.
func withoutGitDir(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_DIR=") && !strings.HasPrefix(kv, "GIT_WORK_TREE=") && !strings.HasPrefix(kv, "GIT_INDEX_FILE=") {
			out = append(out, kv)
		}
	}
	return out
}

// newRepo makes a repository in a fresh directory (symbolic links
// resolved, so paths compare with Root) on branch main.
func newRepo(t *testing.T) string {
	t.Helper()
	needGit(t)
	t.Setenv("GIT_DIR", "")
	os.Unsetenv("GIT_DIR")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "init", "-q", "-b", "main")
	return dir
}

// commit stages everything in dir and commits it with message msg.
func commit(t *testing.T, dir, msg string) string {
	t.Helper()
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "-m", msg)
	return runGit(t, dir, "rev-parse", "HEAD")
}

// open opens path's repository or fails t.
func open(t *testing.T, path string) *Repo {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// resolve resolves ref or fails t.
func resolve(t *testing.T, r *Repo, ref string) *Revision {
	t.Helper()
	rev, err := r.Resolve(ref)
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// readAt reads rel (slash-separated, under the root) at rev.
func readAt(t *testing.T, r *Repo, rev *Revision, rel string) string {
	t.Helper()
	data, err := r.FS(rev).ReadFile(filepath.Join(r.Root(), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
