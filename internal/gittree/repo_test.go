package gittree

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// history makes a repository with three commits on main (a.yaml holding
// "v1", "v2", "v3"), a lightweight tag v1 at the first, an annotated tag
// v2 at the second and a branch old at the first. It returns the
// directory and the three SHAs.
func history(t *testing.T) (string, [3]string) {
	t.Helper()
	dir := testtree.GitRepo(t)
	var shas [3]string
	for i := range shas {
		testtree.Write(t, dir, map[string]string{"app/a.yaml": "v" + string(rune('1'+i)) + "\n"})
		shas[i] = testtree.Commit(t, dir, "commit "+string(rune('1'+i)))
	}
	testtree.Git(t, dir, "tag", "v1", shas[0])
	testtree.Git(t, dir, "tag", "-a", "-m", "annotated", "v2", shas[1])
	testtree.Git(t, dir, "branch", "old", shas[0])
	return dir, shas
}

func TestResolve(t *testing.T) {
	dir, shas := history(t)
	r := open(t, filepath.Join(dir, "app")) // a subdirectory finds the root
	if r.Root() != dir {
		t.Fatalf("Root = %s, want %s", r.Root(), dir)
	}
	for ref, want := range map[string]string{
		"HEAD":      shas[2],
		"main":      shas[2],
		"old":       shas[0],
		"v1":        shas[0],
		"v2":        shas[1], // annotated: peeled to its commit
		shas[1][:7]: shas[1],
		shas[0]:     shas[0],
		"HEAD~1":    shas[1],
		"HEAD~2":    shas[0],
		"HEAD^":     shas[1],
		"main~1":    shas[1],
		"HEAD^0":    shas[2],
		"v2~1":      shas[0],
		"HEAD~1^":   shas[0],
		"main^~":    shas[0],
	} {
		rev, err := r.Resolve(ref)
		if err != nil {
			t.Errorf("%s: %v", ref, err)
			continue
		}
		if got := rev.Commit.Hash.String(); got != want {
			t.Errorf("%s resolved to %s, want %s", ref, got, want)
		}
		if rev.Ref != ref || rev.Short() != want[:7] {
			t.Errorf("%s: Ref %q Short %q", ref, rev.Ref, rev.Short())
		}
	}
	for ref, reason := range map[string]string{
		"no-such-branch": "no branch, tag or commit has this name",
		"":               "the revision is empty",
		"deadbeef":       "no branch, tag or commit has this name",
		"HEAD^2":         "has 1 parent(s), not 2",
		"HEAD~3":         "has no parent",
	} {
		_, err := r.Resolve(ref)
		var re *ResolveError
		if !errors.As(err, &re) {
			t.Errorf("%q: want a *ResolveError, got %v", ref, err)
			continue
		}
		if re.Ref != ref || !strings.Contains(re.Error(), reason) || re.Reason == "" {
			t.Errorf("%q: %v (Reason %q), want the reason %q", ref, err, re.Reason, reason)
		}
	}
}

func TestReadAtRevision(t *testing.T) {
	dir, _ := history(t)
	testtree.Write(t, dir, map[string]string{"app/a.yaml": "work tree\n"})
	r := open(t, dir)
	for ref, want := range map[string]string{"HEAD": "v3\n", "v1": "v1\n", "HEAD~1": "v2\n"} {
		if got := readAt(t, r, resolve(t, r, ref), "app/a.yaml"); got != want {
			t.Errorf("app/a.yaml at %s = %q, want %q", ref, got, want)
		}
	}
}

func TestOpenOutsideRepository(t *testing.T) {
	testtree.Git(t, t.TempDir(), "version")
	os.Unsetenv("GIT_DIR")
	_, err := Open(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "not inside a git repository") {
		t.Fatalf("want 'not inside a git repository', got %v", err)
	}
}

func TestMergeBase(t *testing.T) {
	dir, shas := history(t)
	testtree.Git(t, dir, "checkout", "-q", "-b", "feature", shas[1])
	testtree.Write(t, dir, map[string]string{"app/b.yaml": "feature\n"})
	testtree.Commit(t, dir, "feature work")
	r := open(t, dir)
	base, err := r.MergeBase("main", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if got := base.Commit.Hash.String(); got != shas[1] {
		t.Errorf("merge base = %s, want the fork point %s", got, shas[1])
	}
	if _, err := r.MergeBase("main", "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("a bad side: %v", err)
	}

	testtree.Git(t, dir, "checkout", "-q", "--orphan", "unrelated")
	testtree.Commit(t, dir, "unrelated root")
	_, err = r.MergeBase("main", "unrelated")
	var re *ResolveError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "no common ancestor") {
		t.Errorf("unrelated histories: %v", err)
	}
}

// A shallow clone (CI's default checkout) reads HEAD's tree; a parent it
// does not have is an error that says the clone is shallow. The clone's
// remote is a loopback port that counts connections: none is made.
func TestShallowClone(t *testing.T) {
	src, shas := history(t)
	testtree.Git(t, src, "config", "uploadpack.allowFilter", "true")
	dst := filepath.Join(t.TempDir(), "clone")
	testtree.Git(t, filepath.Dir(dst), "clone", "-q", "--depth", "1", "file://"+src, dst)
	remote := countingListener(t)
	testtree.Git(t, dst, "remote", "set-url", "origin", "http://"+remote.addr()+"/repo.git")

	r := open(t, filepath.Join(dst, "app"))
	if !r.Shallow() {
		t.Fatal("the clone is not shallow")
	}
	head := resolve(t, r, "HEAD")
	if head.Commit.Hash.String() != shas[2] {
		t.Errorf("HEAD = %s, want %s", head.Commit.Hash, shas[2])
	}
	if got := readAt(t, r, head, "app/a.yaml"); got != "v3\n" {
		t.Errorf("app/a.yaml = %q", got)
	}
	_, err := r.Resolve("HEAD~1")
	var re *ResolveError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "shallow") || !strings.Contains(re.Reason, "fetch-depth: 0") {
		t.Errorf("HEAD~1 of a shallow clone: %v", err)
	}
	if _, err := r.Resolve("origin/main"); err != nil {
		t.Errorf("origin/main: %v", err)
	}
	if n := remote.accepted(); n != 0 {
		t.Errorf("the remote was contacted %d times", n)
	}
}

// Packed objects (git gc) read as loose ones do.
func TestPackedObjects(t *testing.T) {
	dir, shas := history(t)
	testtree.Git(t, dir, "gc", "-q", "--aggressive", "--prune=now")
	loose, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "??", "*"))
	if len(loose) != 0 {
		t.Fatalf("git gc left %d loose objects", len(loose))
	}
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	if len(packs) == 0 {
		t.Fatal("git gc made no pack")
	}
	r := open(t, dir)
	for i, sha := range shas {
		if got, want := readAt(t, r, resolve(t, r, sha[:8]), "app/a.yaml"), "v"+string(rune('1'+i))+"\n"; got != want {
			t.Errorf("at %s: %q, want %q", sha[:8], got, want)
		}
	}
	if got := readAt(t, r, resolve(t, r, "v2"), "app/a.yaml"); got != "v2\n" {
		t.Errorf("at v2 (packed annotated tag): %q", got)
	}
}

// A linked worktree (`git worktree add`: a .git file pointing into the
// main repository) and GIT_DIR (as git sets it for hooks) both open.
func TestLinkedWorktreeAndGitDir(t *testing.T) {
	dir, shas := history(t)
	linked := filepath.Join(t.TempDir(), "linked")
	testtree.Git(t, dir, "worktree", "add", "-q", "-b", "side", linked, shas[0])
	linked, _ = filepath.EvalSymlinks(linked)
	testtree.Write(t, linked, map[string]string{"app/a.yaml": "side\n"})
	testtree.Commit(t, linked, "side")

	r := open(t, filepath.Join(linked, "app"))
	if r.Root() != linked {
		t.Errorf("Root = %s, want %s", r.Root(), linked)
	}
	if got := readAt(t, r, resolve(t, r, "HEAD"), "app/a.yaml"); got != "side\n" {
		t.Errorf("linked HEAD: %q", got)
	}
	if got := readAt(t, r, resolve(t, r, "main"), "app/a.yaml"); got != "v3\n" {
		t.Errorf("main from the linked worktree: %q", got)
	}
	// Its .git file is not an untracked file.
	if changed, err := r.Changed(resolve(t, r, "HEAD")); err != nil || len(changed) != 0 {
		t.Errorf("Changed(HEAD) in a clean linked worktree: %v, %v", changed, err)
	}

	// As in a hook run from the linked worktree: GIT_DIR is its git
	// directory inside the main repository, the current directory its top.
	t.Chdir(linked)
	t.Setenv("GIT_DIR", testtree.Git(t, linked, "rev-parse", "--absolute-git-dir"))
	r = open(t, "app")
	if r.Root() != linked {
		t.Errorf("with GIT_DIR: Root = %s, want %s", r.Root(), linked)
	}
	if got := readAt(t, r, resolve(t, r, "HEAD~1"), "app/a.yaml"); got != "v1\n" {
		t.Errorf("with GIT_DIR, HEAD~1: %q", got)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "outside the work tree") {
		t.Errorf("a path outside GIT_DIR's work tree: %v", err)
	}
}

// A merge base reached by two paths is the best common ancestor only:
// a branch forked at commit 1 that then merged commit 2 of main shares
// both with main, and git's merge base is commit 2 (commit 1 is its
// ancestor). The answer is checked against the git binary's own.
func TestMergeBaseBest(t *testing.T) {
	dir, shas := history(t)
	testtree.Git(t, dir, "checkout", "-q", "-b", "side", shas[0])
	testtree.Write(t, dir, map[string]string{"app/side.yaml": "side\n"})
	testtree.Commit(t, dir, "side work")
	testtree.Git(t, dir, "merge", "-q", "--no-edit", shas[1])
	r := open(t, dir)
	base, err := r.MergeBase("main", "side")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(testtree.Git(t, dir, "merge-base", "main", "side"))
	if got := base.Commit.Hash.String(); got != want || got != shas[1] {
		t.Errorf("merge base = %s, want git's %s (commit 2, %s)", got, want, shas[1])
	}
	bases, err := r.mergeBases(resolve(t, r, "main").Commit, resolve(t, r, "side").Commit)
	if err != nil || len(bases) != 1 {
		t.Errorf("merge bases: %d (%v), want commit 2 alone (git merge-base --all)", len(bases), err)
	}
}
