package manifest

import (
	"os"
	"path/filepath"
	"sync"
)

// WorkDir is filepath.Abs with the working directory read once:
// filepath.Abs asks the OS for it (two stats) on every call with a
// relative path, and a run asks for thousands. A run does not change
// directory; keep one WorkDir per run.
type WorkDir struct {
	once sync.Once
	wd   string
	err  error
}

// Abs returns path made absolute and clean.
func (w *WorkDir) Abs(path string) (string, error) {
	if filepath.IsAbs(path) {
		return filepath.Clean(path), nil
	}
	w.once.Do(func() { w.wd, w.err = os.Getwd() })
	if w.err != nil {
		return "", w.err
	}
	return filepath.Join(w.wd, path), nil
}
