package gittree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"
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
	revTree := newTreeReader(r.store, rev.Commit.TreeHash)
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

// candidates is every slash-separated path that may differ (differs
// decides): the files of rev's tree and of the index that differ in
// blob or presence (what the commits since rev and the staged changes
// did), the index entries whose file's size or modification time is not
// what the index recorded (unstaged changes, as git status finds them),
// and the files neither in the index nor ignored (untracked).
func (r *Repo) candidates(rev *Revision) (map[string]bool, error) {
	out := map[string]bool{}
	idx, err := r.store.Index()
	if err != nil {
		return nil, fmt.Errorf("reading the index: %w", err)
	}
	indexed := make(map[string]*index.Entry, len(idx.Entries))
	for _, e := range idx.Entries {
		indexed[e.Name] = e
	}
	inTree := map[string]bool{}
	err = walkTree(r.store, rev.Commit.TreeHash, "", func(name string, entry treeEntry) {
		inTree[name] = true
		if e := indexed[name]; e == nil || e.Hash != entry.Hash {
			out[name] = true
		}
	})
	if err != nil {
		return nil, fmt.Errorf("reading the tree of %s: %w", rev.Short(), err)
	}
	for name, e := range indexed {
		if !inTree[name] {
			out[name] = true
			continue
		}
		st, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(name)))
		if err != nil || st.Size() != int64(e.Size) || !st.ModTime().Equal(e.ModifiedAt) {
			out[name] = true
		}
	}
	untracked, err := r.untracked(indexed)
	if err != nil {
		return nil, err
	}
	for _, name := range untracked {
		out[name] = true
	}
	return out, nil
}

// untracked lists the files of the work tree that the index does not
// hold and .gitignore, .git/info/exclude do not ignore. Nested
// repositories (a directory with its own .git) are not entered.
func (r *Repo) untracked(indexed map[string]*index.Entry) ([]string, error) {
	patterns, err := gitignore.ReadPatterns(osfs.New(r.root), nil)
	if err != nil {
		return nil, fmt.Errorf("reading .gitignore files: %w", err)
	}
	ignored := gitignore.NewMatcher(patterns)
	var out []string
	err = filepath.WalkDir(r.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == r.root {
			return nil
		}
		rel, _ := filepath.Rel(r.root, path)
		rel = filepath.ToSlash(rel)
		parts := strings.Split(rel, "/")
		if d.Name() == ".git" && !d.IsDir() {
			return nil // a linked worktree's or a submodule's `gitdir:` file
		}
		if d.IsDir() {
			if d.Name() == ".git" || ignored.Match(parts, true) {
				return filepath.SkipDir
			}
			if _, err := os.Lstat(filepath.Join(path, ".git")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if indexed[rel] == nil && !ignored.Match(parts, false) {
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}

// differs reports whether the file rel (slash-separated) differs between
// the revision's tree and the work tree: present in one only, or with
// other content (a symbolic link's content is its target).
func (r *Repo) differs(revTree *treeReader, rel string) (bool, error) {
	entry, found, err := revTree.find(rel)
	if err != nil {
		return false, fmt.Errorf("looking up %s: %w", rel, err)
	}
	inRev := found && entry.Mode != filemode.Dir && entry.Mode != filemode.Submodule
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
