package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// The cache's exactness: a warm run prints what a cold run printed, byte
// for byte, and after any edit what a run without the cache prints.

func TestCacheExact(t *testing.T) {
	wantCacheExact(t, filepath.Join("..", "..", "testdata", "render"), 16)
}

// TestCorpusCache is the same over the corpus and the kustomize corpus
// (without the race detector: .ci/run runs it by name).
func TestCorpusCache(t *testing.T) {
	// Edits per corpus: the kustomize corpus is where renderings are
	// cached; the corpus has few roots.
	srcs := []struct {
		dir   string
		edits int
	}{{corpus.KustomizeDir(t), 8}, {corpus.Dir(t), 4}}
	if corpus.Stride() > 1 {
		t.Skip("race detector on: the corpus cache test runs without it (.ci/run, go test -run Corpus)")
	}
	for _, src := range srcs {
		t.Run(filepath.Base(src.dir), func(t *testing.T) { wantCacheExact(t, src.dir, src.edits) })
	}
}

// wantCacheExact copies src, then compares a cold run with a warm one,
// and after each of edits random edits (seeded) a warm run with one
// without the cache.
func wantCacheExact(t *testing.T, src string, edits int) {
	wantCacheExactAfter(t, src, edits, (*editor).edit)
}

// wantCacheExactAfter is wantCacheExact with the edits edit makes.
func wantCacheExactAfter(t *testing.T, src string, edits int, edit func(*editor, int) string) {
	wantCacheExactNamed(t, src, edits, edit, "")
}

// wantCacheExactNamed is wantCacheExactAfter linting named (a path in the
// copy of src) instead of the whole copy, as pre-commit names a staged
// file: the copy is then made a repository (a .git directory), whose
// other files the run reads as context.
func wantCacheExactNamed(t *testing.T, src string, edits int, edit func(*editor, int) string, named string) {
	tree := filepath.Join(t.TempDir(), "tree")
	testtree.Copy(t, src, tree)
	target := tree
	if named != "" {
		target = filepath.Join(tree, named)
		if err := os.Mkdir(filepath.Join(tree, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Files older than the stat index's racy window, as a checkout is:
	// the index vouches for them, so edits that stat alone can tell
	// (same size, same mtime) are tried on files it does not read.
	ageFiles(t, tree, time.Now().Add(-time.Hour))
	cacheDir := t.TempDir()
	lint := func(flags ...string) string {
		return runIn(t, tree, exitOK, append(append([]string{"lint", "--fail-on", "none", "--format", "json"}, flags...), target)...)
	}
	cold := lint("--cache-dir", cacheDir)
	if entries := cacheEntries(t, cacheDir); len(entries) == 0 {
		t.Fatal("the cold run stored nothing")
	}
	if warm := lint("--cache-dir", cacheDir); warm != cold {
		t.Fatalf("the warm run differs from the cold one:\n%s", firstDiff(warm, cold))
	}
	rng := rand.New(rand.NewPCG(37, 2))
	ed := &editor{t: t, root: tree, rng: rng}
	for i := range edits {
		what := edit(ed, i)
		warm := lint("--cache-dir", cacheDir)
		if fresh := lint("--no-cache"); warm != fresh {
			t.Fatalf("after edit %d (%s), the warm run differs from one without the cache:\n%s", i, what, firstDiff(warm, fresh))
		}
		t.Logf("edit %d: %s", i, what)
	}
}

// ageFiles sets the modification time of every file under dir to at.
func ageFiles(t *testing.T, dir string, at time.Time) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, at, at)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		// Entries live in the store's subdirectories; beside them,
		// trim.txt is the last trim's time.
		if err == nil && !d.IsDir() && filepath.Dir(p) != dir {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// firstDiff shows where two outputs part.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n  got:  %s\n  want: %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// editor makes random edits of the kinds a repository sees between two
// commits.
type editor struct {
	t    *testing.T
	root string
	rng  *rand.Rand
	// pending is a file a kustomization was made to name, created by the
	// next edit.
	pending string
	// pendingDir is a directory a kustomization was made to name, made a
	// root by the next edit (editDiscovery).
	pendingDir string
	// link is the link an edit made a root list (editLink).
	link string
	// apps are the files an edit added an application object to (Argo
	// CD, Flux), for a later edit to change unseen by stat.
	apps []string
}

// labelsBlock is a block mapping of labels; its first entry's indent is
// the submatch.
var labelsBlock = regexp.MustCompile(`(?m)^\s*labels:\n( +)[\w"]`)

var scalarLine = regexp.MustCompile(`(?m)^(\s+[A-Za-z][\w.-]*: )([A-Za-z0-9][\w.-]*)$`)

func (e *editor) files(match func(string) bool) []string {
	var out []string
	_ = filepath.WalkDir(e.root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) && match(p) {
			out = append(out, p)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// listResource adds name first to the resources of a kustomization
// picked at random among those that list some, and returns its path ("":
// none does).
func (e *editor) listResource(name string) string {
	list := []byte("\nresources:\n- ")
	p := e.pick(e.files(func(p string) bool { return isKustomization(p) && bytes.Contains(e.read(p), list) }))
	if p != "" {
		e.write(p, bytes.Replace(e.read(p), list, append(slices.Clone(list), name+"\n- "...), 1))
	}
	return p
}

// sameStatEdit edits a match of re in one of files picked at random
// (edit changes bytes in place), keeping the file's size and mtime: only
// its ctime tells. It returns the file, its bytes before and the match,
// or "" when twenty picks found none.
func (e *editor) sameStatEdit(files []string, re *regexp.Regexp, edit func(b []byte, m []int)) (string, []byte, []int) {
	for range 20 {
		p := e.pick(files)
		if p == "" {
			return "", nil, nil
		}
		data := e.read(p)
		locs := re.FindAllSubmatchIndex(data, -1)
		if len(locs) == 0 {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			e.t.Fatal(err)
		}
		m := locs[e.rng.IntN(len(locs))]
		edited := slices.Clone(data)
		edit(edited, m)
		e.write(p, edited)
		if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
			e.t.Fatal(err)
		}
		return p, data, m
	}
	return "", nil, nil
}

func (e *editor) pick(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[e.rng.IntN(len(list))]
}

func (e *editor) rel(p string) string {
	r, _ := filepath.Rel(e.root, p)
	return r
}

func (e *editor) read(p string) []byte {
	data, err := os.ReadFile(p)
	if err != nil {
		e.t.Fatal(err)
	}
	return data
}

func (e *editor) write(p string, data []byte) {
	if err := os.WriteFile(p, data, 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// edit makes edit i and says what it did.
func (e *editor) edit(i int) string {
	if e.pending != "" {
		p := e.pending
		e.pending = ""
		e.write(p, []byte(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added-%d\n  labels: {app: added}\ndata: {k: v}\n", i)))
		return "created " + e.rel(p) + ", which a kustomization names"
	}
	if e.pendingDir != "" {
		p := e.pendingDir
		e.pendingDir = ""
		e.addApp(p, i)
		return "created the directory " + e.rel(p) + ", which a kustomization names"
	}
	any := func(string) bool { return true }
	switch kind := e.rng.IntN(12); kind {
	case 0, 1: // a value; half the time in a base other roots share
		inBase := func(p string) bool { return kind == 1 == strings.Contains(p, "/base/") }
		for range 20 {
			p := e.pick(e.files(inBase))
			if p == "" {
				p = e.pick(e.files(any))
			}
			data := e.read(p)
			locs := scalarLine.FindAllSubmatchIndex(data, -1)
			if len(locs) == 0 {
				continue
			}
			m := locs[e.rng.IntN(len(locs))]
			e.write(p, slices.Concat(data[:m[5]], []byte(fmt.Sprintf("x%d", i)), data[m[5]:]))
			return fmt.Sprintf("changed the value of %q in %s", bytes.TrimSpace(data[m[2]:m[3]]), e.rel(p))
		}
		return "no value to change"
	case 2: // a label
		p := e.pick(e.files(func(p string) bool { return labelsBlock.Match(e.read(p)) }))
		if p == "" {
			return "no labels to change"
		}
		data := e.read(p)
		m := labelsBlock.FindSubmatchIndex(data)
		indent := data[m[2]:m[3]]
		e.write(p, slices.Concat(data[:m[2]], []byte(fmt.Sprintf("%sedited-%d: %q\n", indent, i, "yes")), data[m[2]:]))
		return "added a label in " + e.rel(p)
	case 3: // broken YAML
		p := e.pick(e.files(any))
		e.write(p, append(e.read(p), []byte("\nbroken: [unclosed\n")...))
		return "broke the YAML of " + e.rel(p)
	case 4: // a rename
		p := e.pick(e.files(func(p string) bool { return !isKustomization(p) }))
		q := strings.TrimSuffix(p, filepath.Ext(p)) + "-renamed.yaml"
		if err := os.Rename(p, q); err != nil {
			e.t.Fatal(err)
		}
		return "renamed " + e.rel(p)
	case 5: // a deletion
		p := e.pick(e.files(func(p string) bool { return !isKustomization(p) }))
		if err := os.Remove(p); err != nil {
			e.t.Fatal(err)
		}
		return "deleted " + e.rel(p)
	case 7: // broken YAML, the file's size and mtime kept: only its ctime tells
		// An unclosed flow sequence: the file's own findings change.
		p, data, m := e.sameStatEdit(e.files(any), scalarLine, func(b []byte, m []int) { b[m[4]] = '[' })
		if p == "" {
			return "no value to change"
		}
		return fmt.Sprintf("broke the value of %q in %s, same size and mtime", bytes.TrimSpace(data[m[2]:m[3]]), e.rel(p))
	case 8: // a mode: unreadable (to all but root), or readable again
		p := e.pick(e.files(any))
		st, err := os.Stat(p)
		if err != nil {
			e.t.Fatal(err)
		}
		mode := os.FileMode(0o000)
		if st.Mode().Perm() == 0 {
			mode = 0o644
		}
		if err := os.Chmod(p, mode); err != nil {
			e.t.Fatal(err)
		}
		e.t.Cleanup(func() { os.Chmod(p, 0o644) })
		return fmt.Sprintf("made %s mode %v", e.rel(p), mode)
	case 9: // an application object added, or one made another kind unseen by stat
		return e.editApp(i)
	case 10, 11: // what discovery finds (cache_discover_test.go)
		return e.editDiscovery(i)
	default: // a kustomization names a file that does not exist yet
		name := fmt.Sprintf("added-%d.yaml", i)
		p := e.listResource(name)
		if p == "" {
			return "no kustomization lists resources"
		}
		e.pending = filepath.Join(filepath.Dir(p), name)
		return e.rel(p) + " names " + name + ", not there yet"
	}
}

// appObjects are objects that make applications of a kustomize root
// (%[1]s: its directory, relative to the tree; %[2]d: the edit): the scans
// for them must see a file that gains one, or loses one.
var appObjects = []string{
	"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: added-%[2]d, namespace: argocd}\nspec:\n  project: default\n  source:\n    repoURL: https://example.invalid/repo.git\n    path: %[1]s\n    kustomize: {namePrefix: added-%[2]d-}\n  destination: {server: https://kubernetes.default.svc, namespace: added-%[2]d}\n",
	"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: added-%[2]d, namespace: flux-system}\nspec:\n  path: ./%[1]s\n  interval: 5m\n  prune: true\n  sourceRef: {kind: GitRepository, name: repo}\n  targetNamespace: added-%[2]d\n",
}

// editApp appends an application object to a file, or, half the time
// when an earlier edit added one, turns that object's apiVersion into
// another group, the file's size and mtime kept.
func (e *editor) editApp(i int) string {
	if len(e.apps) > 0 && e.rng.IntN(2) == 0 {
		p := e.apps[e.rng.IntN(len(e.apps))]
		st, err := os.Stat(p)
		if err != nil {
			return "no application file to change" // renamed or deleted since
		}
		data := e.read(p)
		for _, group := range []string{"argoproj.io/", "fluxcd.io/"} {
			if j := bytes.LastIndex(data, []byte(group)); j >= 0 {
				edited := slices.Clone(data)
				edited[j] = 'x'
				e.write(p, edited)
				if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
					e.t.Fatal(err)
				}
				return fmt.Sprintf("made the %s object of %s another group, same size and mtime", group, e.rel(p))
			}
		}
		return "no application object left in " + e.rel(p)
	}
	kust := e.pick(e.files(func(p string) bool { return filepath.Base(p) == "kustomization.yaml" }))
	p := e.pick(e.files(func(p string) bool { return filepath.Base(p) != "kustomization.yaml" }))
	if kust == "" || p == "" {
		return "no root or file for an application"
	}
	obj := fmt.Sprintf(appObjects[e.rng.IntN(len(appObjects))], filepath.ToSlash(e.rel(filepath.Dir(kust))), i)
	e.write(p, slices.Concat(e.read(p), []byte("\n---\n"+obj)))
	// Older than the stat index's racy window, so that a later run's
	// index vouches for these bytes, and the next edit of them is seen
	// by their change time alone.
	if err := os.Chtimes(p, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour)); err != nil {
		e.t.Fatal(err)
	}
	e.apps = append(e.apps, p)
	return fmt.Sprintf("added an application of %s to %s", e.rel(filepath.Dir(kust)), e.rel(p))
}

// Damaged entries (cut short, a byte flipped) are ignored: the run prints
// what it printed cold.
func TestCacheDamaged(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tree")
	testtree.Copy(t, filepath.Join("..", "..", "testdata", "render", "shared-base"), tree)
	cacheDir := t.TempDir()
	args := []string{"lint", "--fail-on", "none", "--format", "json", "--cache-dir", cacheDir, tree}
	cold := runIn(t, tree, exitOK, args...)
	entries := cacheEntries(t, cacheDir)
	if len(entries) == 0 {
		t.Fatal("nothing stored")
	}
	for i, p := range entries {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			data = data[:len(data)*2/3]
		} else {
			data[len(data)-1-i%len(data)] ^= 0x20
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := runIn(t, tree, exitOK, args...); got != cold {
		t.Fatalf("with damaged entries:\n%s", firstDiff(got, cold))
	}
	if got := runIn(t, tree, exitOK, args...); got != cold {
		t.Fatalf("after damaged entries were replaced:\n%s", firstDiff(got, cold))
	}
}

// A cache that cannot be written: lint prints what it prints without one,
// and says so once on stderr.
func TestCacheUnwritable(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tree")
	testtree.Copy(t, filepath.Join("..", "..", "testdata", "render", "shared-base"), tree)
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want := runIn(t, tree, exitOK, "lint", "--fail-on", "none", "--no-cache", tree)
	for _, dir := range unwritableDirs(t, blocker) {
		var stdout, stderr bytes.Buffer
		wd, _ := os.Getwd()
		if err := os.Chdir(tree); err != nil {
			t.Fatal(err)
		}
		code := run([]string{"lint", "--fail-on", "none", "--cache-dir", dir, "."}, strings.NewReader(""), &stdout, &stderr)
		os.Chdir(wd)
		if code != exitOK || stdout.String() != want {
			t.Fatalf("cache %s: exit %d, output differs:\n%s", dir, code, firstDiff(stdout.String(), want))
		}
		if n := strings.Count(stderr.String(), "cannot be written"); n != 1 || !strings.Contains(stderr.String(), dir) {
			t.Fatalf("cache %s: said %d times (want once, naming it): %q", dir, n, stderr.String())
		}
	}
}

// unwritableDirs are cache directories this user cannot write: one below a
// file (even root cannot), and, without root's privileges, a read-only
// directory.
func unwritableDirs(t *testing.T, file string) []string {
	dirs := []string{filepath.Join(file, "cache")}
	if os.Geteuid() != 0 {
		ro := t.TempDir()
		if err := os.Chmod(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ro, 0o755) })
		dirs = append(dirs, ro)
	}
	return dirs
}

// isKustomization: the editor's kustomizations are kustomization.yaml.
func isKustomization(p string) bool { return filepath.Base(p) == "kustomization.yaml" }
