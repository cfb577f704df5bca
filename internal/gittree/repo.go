// Package gittree reads a repository's files as they were at a revision
// (a REF: HEAD, a branch, a tag, a SHA or an abbreviation of one, HEAD~1,
// a merge base), from the repository's own git objects and in-process:
// no `git` process is started and no remote is contacted (go-git's
// transports are never called: nothing here fetches). Loose and packed
// objects and shallow clones are read alike.
//
// The tree at a revision is offered as a read-only kustomize file system
// (FS) whose paths are the work tree's absolute paths, so a kustomize root
// renders from it under the same names as from disk; Changed lists the
// paths whose content differs between a revision and the work tree
// (committed, staged, unstaged and untracked changes), so that only the
// applications whose inputs differ need rendering at the base.
package gittree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// Only go-git's storage and format packages are used, not its top-level
// package (it links every transport, HTTP, SSH, git://, into the binary:
// 3.7 MB of code this package never calls), nor plumbing/object (see
// objects.go).

// Repo is a repository with a work tree, opened read-only.
type Repo struct {
	store *filesystem.Storage
	// root is the work tree's top directory, symbolic links resolved (as
	// kustomize's CleanedAbs resolves them), so FS paths are the names
	// the renderer gives the same files on disk.
	root string
}

// Open opens the repository whose work tree holds path (a file or a
// directory), looking upwards for `.git` as git does: a directory, or a
// file pointing elsewhere (`gitdir: ...`, a linked worktree, whose objects
// and refs live in the main repository's common directory). When GIT_DIR
// is set, as git sets it for hooks, it names the git directory and the
// work tree is GIT_WORK_TREE, else the current directory, as for git.
func Open(path string) (*Repo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	gitDir, workTree := os.Getenv("GIT_DIR"), os.Getenv("GIT_WORK_TREE")
	if gitDir != "" {
		if gitDir, err = filepath.Abs(gitDir); err != nil {
			return nil, err
		}
		if st, err := os.Stat(gitDir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("GIT_DIR=%s is not a directory", gitDir)
		}
		if workTree == "" {
			if workTree, err = os.Getwd(); err != nil {
				return nil, err
			}
		}
	} else if gitDir, workTree, err = findGitDir(abs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	root, err := filepath.EvalSymlinks(workTree)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil && !within(root, real) {
		return nil, fmt.Errorf("%s is outside the work tree %s of GIT_DIR", path, root)
	}
	return &Repo{store: filesystem.NewStorage(repositoryFS(gitDir), cache.NewObjectLRUDefault()), root: root}, nil
}

// findGitDir walks up from path to the first directory holding `.git`
// and returns the git directory and the work tree's top.
func findGitDir(path string) (gitDir, workTree string, err error) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		path = filepath.Dir(path)
	}
	for dir := path; ; dir = filepath.Dir(dir) {
		dotGit := filepath.Join(dir, ".git")
		st, err := os.Stat(dotGit)
		switch {
		case err == nil && st.IsDir():
			return dotGit, dir, nil
		case err == nil:
			target, err := gitdirFile(dotGit)
			return target, dir, err
		case !errors.Is(err, os.ErrNotExist):
			return "", "", err
		}
		if filepath.Dir(dir) == dir {
			return "", "", errors.New("not inside a git repository (no .git found in it or any parent directory)")
		}
	}
}

// gitdirFile reads a `.git` file (`gitdir: PATH`, relative to its
// directory), as linked worktrees and submodules have.
func gitdirFile(dotGit string) (string, error) {
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir: ")
	if !ok {
		return "", fmt.Errorf("%s: not a `gitdir: PATH` file", dotGit)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(dotGit), target)
	}
	return target, nil
}

// repositoryFS is the git directory, joined with its `commondir` when it
// is a linked worktree's (.git/worktrees/NAME: HEAD and index here,
// objects and refs in the main repository).
func repositoryFS(gitDir string) billy.Filesystem {
	dot := osfs.New(gitDir)
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return dot
	}
	common := strings.TrimSpace(string(data))
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	return dotgit.NewRepositoryFilesystem(dot, osfs.New(common))
}

// Root is the work tree's top directory (symbolic links resolved).
func (r *Repo) Root() string { return r.root }

// Revision is one commit, named as the user named it.
type Revision struct {
	// Ref is what the user wrote (HEAD, main, v1.2, 1a2b3c4, HEAD~1).
	Ref    string
	Commit *Commit
}

// Short is the commit's abbreviated hash, for messages.
func (v *Revision) Short() string { return v.Commit.Hash.String()[:7] }

// ResolveError is a REF that names no commit readable here, with the
// reason (the CLI reports it as a usage error).
type ResolveError struct {
	Ref    string
	Reason string
	Err    error // go-git's error, when there is one
}

func (e *ResolveError) Error() string {
	return fmt.Sprintf("cannot resolve %q: %s", e.Ref, e.Reason)
}

func (e *ResolveError) Unwrap() error { return e.Err }

// Resolve finds the commit that ref names: a branch, a remote-tracking
// branch, a tag (annotated tags are peeled to their commit), a full or
// abbreviated SHA, HEAD, and the ~N and ^N suffixes (revision.go).
func (r *Repo) Resolve(ref string) (*Revision, error) {
	if strings.TrimSpace(ref) == "" {
		return nil, &ResolveError{Ref: ref, Reason: "the revision is empty"}
	}
	commit, err := r.resolve(ref)
	if err != nil {
		return nil, r.resolveError(ref, err)
	}
	return &Revision{Ref: ref, Commit: commit}, nil
}

// resolveError explains why ref did not resolve, naming a shallow clone
// when that is the likely reason (a parent or a merge base that was not
// fetched: CI checkouts are shallow unless told otherwise).
func (r *Repo) resolveError(ref string, err error) error {
	reason := "no branch, tag or commit has this name"
	if !errors.Is(err, plumbing.ErrReferenceNotFound) {
		reason = err.Error()
	}
	if errors.Is(err, plumbing.ErrObjectNotFound) || strings.ContainsAny(ref, "~^") {
		if r.Shallow() {
			reason += "; the clone is shallow, so older commits are not here (fetch full history, e.g. GitHub Actions `fetch-depth: 0`)"
		}
	}
	return &ResolveError{Ref: ref, Reason: reason, Err: err}
}

// Shallow reports whether the clone is shallow (some parents were not
// fetched).
func (r *Repo) Shallow() bool {
	commits, err := r.store.Shallow()
	return err == nil && len(commits) > 0
}

// MergeBase is the best common ancestor of a and b (`git merge-base a b`),
// what a pull request is judged against: the change the branch makes,
// without what the target branch gained since.
func (r *Repo) MergeBase(a, b string) (*Revision, error) {
	ra, err := r.Resolve(a)
	if err != nil {
		return nil, err
	}
	rb, err := r.Resolve(b)
	if err != nil {
		return nil, err
	}
	name := "merge-base(" + a + ", " + b + ")"
	bases, err := r.mergeBases(ra.Commit, rb.Commit)
	if err != nil {
		return nil, r.resolveError(name, err)
	}
	if len(bases) == 0 {
		reason := a + " and " + b + " have no common ancestor"
		if r.Shallow() {
			reason += "; the clone is shallow, so it may not be here (fetch full history, e.g. GitHub Actions `fetch-depth: 0`)"
		}
		return nil, &ResolveError{Ref: name, Reason: reason}
	}
	return &Revision{Ref: name, Commit: bases[0]}, nil
}

// within reports whether path is root or below it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
