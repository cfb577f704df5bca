package gittree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Changed lists, as absolute paths under Root, the files whose content
// differs between rev and the work tree: changed, added or removed by
// the commits since rev, by staged or by unstaged changes, and untracked
// files (not ignored by .gitignore), so that what a pre-commit hook sees
// (the staged change, unstaged changes stashed away) and what a CI
// checkout holds are both judged. A file whose content came back to
// rev's is not listed; a change of the executable bit alone is not
// listed either (nothing that renders manifests reads it).
func (r *Repo) Changed(rev *Revision) ([]string, error) {
	candidates, err := r.candidates(rev)
	if err != nil {
		return nil, err
	}
	revTree, err := rev.Commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("reading the tree of %s: %w", rev.Short(), err)
	}
	var changed []string
	for rel := range candidates {
		differs, err := r.differs(revTree, rel)
		if err != nil {
			return nil, err
		}
		if differs {
			changed = append(changed, filepath.Join(r.root, filepath.FromSlash(rel)))
		}
	}
	sort.Strings(changed)
	return changed, nil
}

// candidates is every slash-separated path that may differ: those the
// commits from rev to HEAD touch, and those git status reports.
func (r *Repo) candidates(rev *Revision) (map[string]bool, error) {
	out := map[string]bool{}
	head, err := r.repo.Head()
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound): // no commit yet
	case err != nil:
		return nil, fmt.Errorf("reading HEAD: %w", err)
	case head.Hash() != rev.Commit.Hash:
		headCommit, err := r.repo.CommitObject(head.Hash())
		if err != nil {
			return nil, fmt.Errorf("reading HEAD's commit: %w", err)
		}
		from, err := rev.Commit.Tree()
		if err != nil {
			return nil, err
		}
		to, err := headCommit.Tree()
		if err != nil {
			return nil, err
		}
		changes, err := object.DiffTree(from, to)
		if err != nil {
			return nil, fmt.Errorf("comparing %s with HEAD: %w", rev.Short(), err)
		}
		for _, c := range changes {
			for _, name := range []string{c.From.Name, c.To.Name} {
				if name != "" {
					out[name] = true
				}
			}
		}
	}
	wt, err := r.repo.Worktree()
	if err != nil {
		return nil, err
	}
	status, err := wt.Status()
	if err != nil {
		return nil, fmt.Errorf("reading the work tree's status: %w", err)
	}
	for name, s := range status {
		if s.Staging != git.Unmodified || s.Worktree != git.Unmodified {
			out[name] = true
		}
	}
	return out, nil
}

// differs reports whether the file rel (slash-separated) differs between
// the revision's tree and the work tree: present in one only, or with
// other content (a symbolic link's content is its target).
func (r *Repo) differs(revTree *object.Tree, rel string) (bool, error) {
	entry, err := revTree.FindEntry(rel)
	inRev := err == nil && entry.Mode != filemode.Dir && entry.Mode != filemode.Submodule
	if err != nil && !errors.Is(err, object.ErrEntryNotFound) && !errors.Is(err, object.ErrDirectoryNotFound) {
		return false, fmt.Errorf("looking up %s: %w", rel, err)
	}
	abs := filepath.Join(r.root, filepath.FromSlash(rel))
	st, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && st.IsDir()) {
		return inRev, nil
	}
	if err != nil {
		return false, err
	}
	if !inRev {
		return true, nil
	}
	var content []byte
	if st.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(abs)
		if err != nil {
			return false, err
		}
		content = []byte(filepath.ToSlash(target))
	} else if content, err = os.ReadFile(abs); err != nil {
		return false, err
	}
	return plumbing.ComputeHash(plumbing.BlobObject, content) != entry.Hash, nil
}
