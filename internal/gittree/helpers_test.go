package gittree

import (
	"path/filepath"
	"testing"
)

// The tests build real repositories with the git binary (the code under
// test never starts it).

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
