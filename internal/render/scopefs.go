package render

import (
	"fmt"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// The scope guard of readOnlyFS: kustomize's library is handed only
// roots whose every entry stays in the run's scope (Refuse), and this
// guard holds the same boundary for whatever the library derives itself,
// so that no read of a render leaves the scope (see scope.Scope).

// outsideScope is what a read outside the scope returns.
func outsideScope(path string) error {
	return fmt.Errorf("%s: outside the repository (or the paths given): shipshape reads nothing there", path)
}

// inScope reports whether path, with its links resolved, is in the
// scope. A readOnlyFS without a scope (a Renderer made without Discover)
// reads nothing.
func (f *readOnlyFS) inScope(path string) bool {
	if f.scope == nil {
		return false
	}
	abs, err := filepath.Abs(path)
	return err == nil && f.scope.Contains(abs)
}

// Open is the disk's, in the scope.
func (f *readOnlyFS) Open(path string) (filesys.File, error) {
	if !f.inScope(path) {
		return nil, outsideScope(path)
	}
	return f.FileSystem.Open(path)
}

// ReadDir is the disk's, in the scope.
func (f *readOnlyFS) ReadDir(path string) ([]string, error) {
	if !f.inScope(path) {
		return nil, outsideScope(path)
	}
	return f.FileSystem.ReadDir(path)
}

// Glob is the disk's, in the scope: the pattern's directory must be in
// it, and matches that lead out through a link are left out.
func (f *readOnlyFS) Glob(pattern string) ([]string, error) {
	if !f.inScope(filepath.Dir(pattern)) {
		return nil, outsideScope(pattern)
	}
	matches, err := f.FileSystem.Glob(pattern)
	kept := matches[:0]
	for _, m := range matches {
		if f.inScope(m) {
			kept = append(kept, m)
		}
	}
	return kept, err
}

// Walk is the disk's, in the scope (a walk does not follow links).
func (f *readOnlyFS) Walk(path string, walkFn filepath.WalkFunc) error {
	if !f.inScope(path) {
		return outsideScope(path)
	}
	return f.FileSystem.Walk(path, walkFn)
}
