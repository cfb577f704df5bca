// Package shard splits a lint run across CI machines (--shard k/n): each
// finding belongs to one application, and each application to one shard,
// by a stable hash of the application's path relative to the repository
// root, so that the n shards' findings together are one run's, each once.
//
// A finding's application is the first (in byte order of the repository
// relative path) of the kustomize roots it names (analysis.Finding.Roots:
// the roots whose rendered objects it is about, or that read its file);
// a finding that names none is about a file judged as written, whose
// application is the directory holding it (Argo CD and Flux apply a
// directory). A file several roots read thus has each finding reported
// by one shard: that of its first root.
package shard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Shard is shard K of N (1 <= K <= N). The zero Shard is the whole run.
type Shard struct{ K, N int }

// Whole reports whether s is the whole run (no --shard).
func (s Shard) Whole() bool { return s.N == 0 }

// String is "k/n", as --shard takes it.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Parse reads "k/n", the shard k (1-based) of n.
func Parse(text string) (Shard, error) {
	ks, ns, ok := strings.Cut(text, "/")
	if !ok {
		return Shard{}, fmt.Errorf("--shard %q: want k/n, e.g. 2/5 for the second of five shards", text)
	}
	k, errK := strconv.Atoi(ks)
	n, errN := strconv.Atoi(ns)
	if err := errors.Join(errK, errN); err != nil {
		return Shard{}, fmt.Errorf("--shard %q: want k/n with whole numbers, e.g. 2/5", text)
	}
	switch {
	case n < 1:
		return Shard{}, fmt.Errorf("--shard %q: the number of shards must be at least 1", text)
	case k < 1 || k > n:
		return Shard{}, fmt.Errorf("--shard %q: the shard must be between 1 and %d", text, n)
	}
	return Shard{K: k, N: n}, nil
}

// Of is the shard (1..n) of the application at rel, a slash-separated
// path relative to the repository root: FNV-1a 64 of its bytes, modulo
// n, so that every machine and every order of the run agree.
func Of(rel string, n int) int {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(rel); i++ {
		h ^= uint64(rel[i])
		h *= prime
	}
	return int(h%uint64(n)) + 1
}

// Assigner gives findings their application and shard.
type Assigner struct {
	root string // the repository root, absolute
	wd   string // the directory the findings' paths are relative to
}

// NewAssigner is an Assigner for findings whose paths are relative to wd,
// in the repository holding wd (the nearest directory up with a .git, or
// wd itself outside a repository).
func NewAssigner(wd string) (*Assigner, error) {
	wd, err := filepath.Abs(wd)
	if err != nil {
		return nil, err
	}
	return &Assigner{root: RepoRoot(wd), wd: wd}, nil
}

// RepoRoot is the nearest directory at or above dir holding .git (a
// directory, or a file in a worktree), else dir.
func RepoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// Application is the repository-relative, slash-separated path of f's
// application (see the package comment).
func (a *Assigner) Application(f analysis.Finding) string {
	if len(f.Roots) > 0 {
		apps := make([]string, len(f.Roots))
		for i, r := range f.Roots {
			apps[i] = a.rel(r)
		}
		return slices.Min(apps)
	}
	if f.File == "" || f.File == manifest.Stdin {
		return f.File
	}
	return a.rel(filepath.Dir(f.File))
}

// rel is path (relative to wd, or absolute) relative to the repository
// root, with slashes; a path outside the repository stays absolute.
func (a *Assigner) rel(path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(a.wd, path)
	}
	if r, err := filepath.Rel(a.root, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(filepath.Clean(path))
}

// Keep is the findings of s, in their order: all of them for the whole run.
func (a *Assigner) Keep(s Shard, findings []analysis.Finding) []analysis.Finding {
	if s.Whole() {
		return findings
	}
	kept := make([]analysis.Finding, 0, len(findings)/s.N+1)
	for _, f := range findings {
		if Of(a.Application(f), s.N) == s.K {
			kept = append(kept, f)
		}
	}
	return kept
}
