package render

import (
	"errors"
	"io/fs"
	"os"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// source is where a graph reads its kustomizations and the files they
// name: the disk (fsys nil), or a revision of the repository (lint
// --base reads the tree at REF through gittree's read-only file system,
// under the work tree's own absolute paths, with no checkout). Every
// read the graph and the renderer make of a kustomization's files goes
// through it, so the base is rendered from the base's bytes only.
type source struct{ fsys filesys.FileSystem }

// regular reports whether path is a regular file.
func (s source) regular(path string) bool {
	if s.fsys == nil {
		st, err := os.Stat(path)
		return err == nil && st.Mode().IsRegular()
	}
	return s.fsys.Exists(path) && !s.fsys.IsDir(path)
}

// isDir reports whether path is a directory.
func (s source) isDir(path string) bool {
	if s.fsys == nil {
		st, err := os.Stat(path)
		return err == nil && st.IsDir()
	}
	return s.fsys.IsDir(path)
}

// kind reports whether path is a directory, and whether it is a regular
// file, with one stat.
func (s source) kind(path string) (isDir, regular bool) {
	if s.fsys == nil {
		st, err := os.Stat(path)
		return err == nil && st.IsDir(), err == nil && st.Mode().IsRegular()
	}
	isDir = s.fsys.IsDir(path)
	return isDir, !isDir && s.fsys.Exists(path)
}

// missing reports whether path does not exist (a link is followed); a
// file that cannot be stat'ed for another reason is not missing.
func (s source) missing(path string) bool {
	if s.fsys == nil {
		_, err := os.Stat(path)
		return errors.Is(err, fs.ErrNotExist)
	}
	return !s.fsys.Exists(path)
}

// read returns the file's bytes: a regular file only, as the renderer
// reads it (readOnlyFS.ReadFile), so that a kustomization linked to
// /dev/zero is refused rather than read without end.
func (s source) read(path string) ([]byte, error) {
	// The render budgets bound what a root may cost, not one file's size.
	return s.readRegular(path, manifest.NoSizeLimit)
}

// size is the file's size in bytes, 0 when it cannot be read.
func (s source) size(path string) int64 {
	if s.fsys == nil {
		if st, err := os.Stat(path); err == nil {
			return st.Size()
		}
		return 0
	}
	f, err := s.fsys.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		return st.Size()
	}
	return 0
}

// readRegular is manifest.ReadRegular on the disk, ReadFile of a
// revision (which holds only regular files and links).
func (s source) readRegular(path string, limit int64) ([]byte, error) {
	if s.fsys == nil {
		return manifest.ReadRegular(path, limit)
	}
	return s.fsys.ReadFile(path)
}

// AtRevision is an empty graph over the same scope that reads the
// kustomizations, and renders, from fsys (a revision's tree under the
// work tree's paths) instead of the disk: Load the roots to render there.
// Paths are resolved as on disk (Real): a link the revision changed is
// not followed as the revision has it.
func (g *Graph) AtRevision(fsys filesys.FileSystem) *Graph {
	b := &Graph{ByDir: map[string]*Kustomization{}, scope: g.scope, src: source{fsys}}
	b.real.scope = g.scope
	return b
}

// SetRoots makes roots (loaded with Load) the graph's roots, for a graph
// that was not discovered (AtRevision).
func (g *Graph) SetRoots(roots []*Kustomization) { g.Roots = roots }
