package testtree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tests that need a git repository build it with the git binary (the code
// under test never starts it): one copy of these helpers for all of them.

// Git runs git in dir with a fixed identity and no user or system
// configuration, and returns its trimmed output. It skips t when git is
// missing, or fails it when CI=true.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed (CI=true, so this fails instead of skipping)")
		}
		t.Skip("skipped: git is not installed (in CI, CI=true, this fails instead)")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(withoutGitDir(os.Environ()),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// withoutGitDir drops GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE (set when
// the tests run from a git hook), which would point git at another
// repository.
func withoutGitDir(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_DIR=") && !strings.HasPrefix(kv, "GIT_WORK_TREE=") && !strings.HasPrefix(kv, "GIT_INDEX_FILE=") {
			out = append(out, kv)
		}
	}
	return out
}

// GitRepo makes a repository on branch main in a fresh directory, its path
// with symbolic links resolved (so it compares with what the code finds).
func GitRepo(t testing.TB) string {
	t.Helper()
	// A GIT_DIR from a hook would send the code under test to another
	// repository too; t.Setenv restores it after the test.
	t.Setenv("GIT_DIR", "")
	os.Unsetenv("GIT_DIR")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q", "-b", "main")
	return dir
}

// Commit stages everything in dir, commits it with message msg, and
// returns the commit's hash.
func Commit(t testing.TB, dir, msg string) string {
	t.Helper()
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", msg)
	return Git(t, dir, "rev-parse", "HEAD")
}
