// Package scope is the boundary of one run: the directories shipshape may
// read from and write to. A pull request is untrusted input, so a
// kustomization entry, a Flux path or a symbolic link that leads out of
// the repository must not make shipshape open, judge or rewrite what lies
// there (kustomize follows a base anywhere on the disk; a link can name
// /etc/passwd). Every reader and the writer ask the same Scope.
//
// Resolving a path never touches anything outside the scope: links are
// followed one at a time, and a target outside the scope ends the walk
// there, unread. The one thing looked up above the paths given is `.git`,
// to find the repository that holds them (see RootOf).
package scope

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// maxHops bounds the links followed for one path, as the kernel's
// ELOOP does (40 on Linux).
const maxHops = 40

// Scope is the set of directories one run reads from and writes to. The
// zero value holds nothing; use Of.
type Scope struct {
	roots []root

	mu   sync.RWMutex
	memo map[string]resolved // absolute clean path -> its resolution
}

// root is one directory of the scope, as named and with its links
// resolved: paths reach it either way (the command line names it as
// written, kustomize's loader by its real path).
type root struct{ named, real string }

type resolved struct {
	path   string
	inside bool
}

// Of returns the scope of a run over paths, as given on the command line
// ("-", stdin, adds nothing; no path at all means the working
// directory): for each path the directory RootOf gives, and a directory
// named itself (the user chose it, even through a link).
func Of(paths []string) *Scope {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	s := &Scope{}
	for _, p := range paths {
		if p == "-" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		st, err := os.Stat(abs)
		isDir := err == nil && st.IsDir()
		s.add(RootOf(abs, isDir))
		if isDir {
			s.add(abs)
		}
	}
	return s
}

// Dirs returns the scope's directories (with links resolved), for
// messages.
func (s *Scope) Dirs() []string {
	var out []string
	for _, r := range s.roots {
		out = append(out, r.real)
	}
	return out
}

func (s *Scope) add(dir string) {
	real := dir
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		real = r
	}
	for _, r := range s.roots {
		if r.named == dir && r.real == real {
			return
		}
	}
	s.roots = append(s.roots, root{named: dir, real: real})
}

// RootOf is the directory that bounds a run over abs (absolute; a
// directory when isDir): the nearest directory at or above it holding
// `.git` (a directory, or the file of a git worktree), i.e. its
// repository. Outside a repository it is the working directory when that
// holds abs, else abs itself (a directory) or its directory (a file):
// reaching up to the filesystem root would read unrelated trees (a home
// directory), so a working directory that is the filesystem root (a
// container's) or the home directory is no project either.
func RootOf(abs string, isDir bool) string {
	dir := abs
	if !isDir {
		dir = filepath.Dir(abs)
	}
	if repo := RepositoryRoot(dir); repo != "" {
		return repo
	}
	if wd, err := os.Getwd(); err == nil && Within(abs, wd) && !everything(wd) {
		return wd
	}
	return dir
}

// RepositoryRoot is the nearest directory at or above dir that holds a
// .git entry, or "" when there is none.
func RepositoryRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// everything reports whether dir is the filesystem root or the home
// directory, which hold unrelated trees.
func everything(dir string) bool {
	if filepath.Dir(dir) == dir {
		return true
	}
	home, err := os.UserHomeDir()
	return err == nil && filepath.Clean(home) == filepath.Clean(dir)
}

// Within reports whether path is dir or below it (both absolute and
// clean); it looks at the names only.
func Within(path, dir string) bool {
	if path == dir {
		return true
	}
	if dir == string(filepath.Separator) {
		return strings.HasPrefix(path, dir)
	}
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}

// Holds reports whether path (absolute) is, by its name alone, in the
// scope: at or below one of its directories as named or as resolved. A
// path it holds may still lead out through a link: Resolve tells.
func (s *Scope) Holds(path string) bool {
	_, ok := s.rootOf(filepath.Clean(path))
	return ok
}

// rootOf returns the scope directory that holds path by name, the
// longest when several do.
func (s *Scope) rootOf(path string) (root, bool) {
	var best root
	found := false
	for _, r := range s.roots {
		for _, d := range [2]string{r.named, r.real} {
			if Within(path, d) && (!found || len(d) > len(best.named)) {
				best, found = root{named: d, real: r.real}, true
			}
		}
	}
	return best, found
}

// Resolve returns path (absolute) with its symbolic links resolved, and
// whether what it names is inside the scope. Only paths inside the scope
// are ever looked at: a link whose target lies outside is not followed
// further, and the path returned is that target (as written, cleaned),
// with false. A path that does not exist keeps its missing part as
// written.
func (s *Scope) Resolve(path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path, false
	}
	r := s.resolve(abs, 0)
	return r.path, r.inside
}

// Contains reports whether path (absolute) resolves to a place inside
// the scope.
func (s *Scope) Contains(path string) bool {
	_, inside := s.Resolve(path)
	return inside
}

func (s *Scope) resolve(p string, hops int) resolved {
	s.mu.RLock()
	r, ok := s.memo[p]
	s.mu.RUnlock()
	if ok {
		return r
	}
	r = s.resolveOnce(p, hops)
	s.mu.Lock()
	if s.memo == nil {
		s.memo = map[string]resolved{}
	}
	s.memo[p] = r
	s.mu.Unlock()
	return r
}

func (s *Scope) resolveOnce(p string, hops int) resolved {
	top, ok := s.rootOf(p)
	if !ok {
		return resolved{p, false} // outside: never looked at
	}
	if p == top.named {
		return resolved{top.real, true}
	}
	parent := s.resolve(filepath.Dir(p), hops)
	here := filepath.Join(parent.path, filepath.Base(p))
	if !parent.inside {
		return resolved{here, false}
	}
	st, err := os.Lstat(here)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		return resolved{here, true}
	}
	target, err := os.Readlink(here)
	if err != nil || hops >= maxHops {
		return resolved{here, true} // reading it fails as the kernel says (ELOOP)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(parent.path, target)
	}
	return s.resolve(filepath.Clean(target), hops+1)
}
