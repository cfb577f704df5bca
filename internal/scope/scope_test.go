package scope

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// tree makes dir/repo (a repository) and dir/victim beside it, with links
// from inside the repository to both.
func tree(t *testing.T) (repo, victim string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo, victim = filepath.Join(dir, "repo"), filepath.Join(dir, "victim")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "app", "base"), victim} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, data := range map[string]string{
		filepath.Join(repo, "app", "base", "a.yaml"): "kind: A\n",
		filepath.Join(victim, "x.yaml"):              "secret\n",
	} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"app/out.yaml":   "../../victim/x.yaml", // a file outside
		"app/abs.yaml":   filepath.Join(victim, "x.yaml"),
		"app/outdir":     "../../victim", // a directory outside
		"app/in.yaml":    "base/a.yaml",  // inside
		"app/chain.yaml": "in.yaml",      // a link to a link inside
		"app/hop.yaml":   "out.yaml",     // a link to a link outside
		"app/loop.yaml":  "loop.yaml",    // a loop
		"app/basedir":    "base",         // a directory inside
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
	}
	return repo, victim
}

func TestResolve(t *testing.T) {
	repo, victim := tree(t)
	s := Of([]string{filepath.Join(repo, "app")})
	if got := s.Dirs(); len(got) != 2 || got[0] != repo {
		t.Fatalf("Dirs() = %v, want the repository first", got)
	}
	for _, tc := range []struct {
		path   string
		want   string
		inside bool
	}{
		{"app/base/a.yaml", "app/base/a.yaml", true},
		{"app/in.yaml", "app/base/a.yaml", true},
		{"app/chain.yaml", "app/base/a.yaml", true},
		{"app/basedir/a.yaml", "app/base/a.yaml", true},
		{"app/missing.yaml", "app/missing.yaml", true},
		{"app/loop.yaml", "app/loop.yaml", true},
		{"app/out.yaml", victim + "/x.yaml", false},
		{"app/abs.yaml", victim + "/x.yaml", false},
		{"app/hop.yaml", victim + "/x.yaml", false},
		{"app/outdir/x.yaml", victim + "/x.yaml", false},
		{"app/../../victim/x.yaml", victim + "/x.yaml", false},
	} {
		want := tc.want
		if !filepath.IsAbs(want) {
			want = filepath.Join(repo, want)
		}
		got, inside := s.Resolve(filepath.Join(repo, tc.path))
		if got != want || inside != tc.inside {
			t.Errorf("Resolve(%s) = %s, %v; want %s, %v", tc.path, got, inside, want, tc.inside)
		}
	}
	if s.Holds(filepath.Join(victim, "x.yaml")) || !s.Holds(filepath.Join(repo, "app", "out.yaml")) {
		t.Error("Holds judges by name: the victim is not held, the link to it is")
	}
}

// A directory named on the command line is in the scope even when it is
// a link elsewhere; a file named is not: its target must be inside.
func TestNamedLinks(t *testing.T) {
	repo, victim := tree(t)
	s := Of([]string{filepath.Join(repo, "app", "outdir")})
	if !s.Contains(filepath.Join(repo, "app", "outdir", "x.yaml")) {
		t.Error("a directory named through a link is in the scope")
	}
	s = Of([]string{filepath.Join(repo, "app", "out.yaml")})
	if s.Contains(filepath.Join(repo, "app", "out.yaml")) || s.Contains(filepath.Join(victim, "x.yaml")) {
		t.Error("a file named through a link to outside the repository is not in the scope")
	}
}

func TestRootOf(t *testing.T) {
	repo, victim := tree(t)
	if got := RootOf(filepath.Join(repo, "app", "base", "a.yaml"), false); got != repo {
		t.Errorf("RootOf(file in repo) = %s, want %s", got, repo)
	}
	if got := RootOf(victim, true); got != victim {
		t.Errorf("RootOf(directory outside a repository and the working directory) = %s, want itself", got)
	}
	if got := RootOf(filepath.Join(victim, "x.yaml"), false); got != victim {
		t.Errorf("RootOf(file outside) = %s, want its directory", got)
	}
}

// TestScope: the repository root is the nearest directory with .git (a
// directory, or a worktree's file); outside a repository, the working
// directory when it holds the file, else the file's directory.
func TestRootOfWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"repo/.git/HEAD":              "x",
		"repo/a/b/f.yaml":             "x",
		"wt/.git":                     "gitdir: /elsewhere\n",
		"wt/c/f.yaml":                 "x",
		"norepo/d/e/f.yaml":           "x",
		"norepo/d/kustomization.yaml": "resources: [e/f.yaml]\n",
	})
	t.Chdir(filepath.Join(dir, "norepo"))
	for file, want := range map[string]string{
		"repo/a/b/f.yaml":   "repo",
		"wt/c/f.yaml":       "wt",
		"norepo/d/e/f.yaml": "norepo",
	} {
		if got := RootOf(filepath.Join(dir, file), false); got != filepath.Join(dir, want) {
			t.Errorf("RootOf(%s) = %s, want %s", file, got, filepath.Join(dir, want))
		}
	}
	// Outside the working directory: the file's own directory.
	t.Chdir(filepath.Join(dir, "repo"))
	if got, want := RootOf(filepath.Join(dir, "norepo/d/e/f.yaml"), false), filepath.Join(dir, "norepo/d/e"); got != want {
		t.Errorf("RootOf from another directory = %s, want %s", got, want)
	}
	// A working directory that holds everything (a container's /, a home
	// directory) is no project: the file's own directory.
	t.Setenv("HOME", filepath.Join(dir, "norepo"))
	t.Chdir(filepath.Join(dir, "norepo"))
	if got, want := RootOf(filepath.Join(dir, "norepo/d/e/f.yaml"), false), filepath.Join(dir, "norepo/d/e"); got != want {
		t.Errorf("RootOf from the home directory = %s, want %s", got, want)
	}
	t.Chdir("/")
	if got, want := RootOf(filepath.Join(dir, "norepo/d/e/f.yaml"), false), filepath.Join(dir, "norepo/d/e"); got != want {
		t.Errorf("RootOf from / = %s, want %s", got, want)
	}
}
