package engine

import (
	"fmt"
	"os"
	"path/filepath"
)

// What a chart's rendering may read: the run's scope, no link leading
// out of it.

// mayLoadChart: a file:// dependency's directory is read only inside the
// scope, with no link under it leading out.
func (e *Engine) mayLoadChart(dir string) error {
	if !e.contains(dir) {
		return fmt.Errorf("%s: outside the directories linted", dir)
	}
	if link := e.linkOutside(dir); link != "" {
		return fmt.Errorf("%s: a link leads out of the directories linted", link)
	}
	return nil
}

// linkOutside is the first symbolic link under dir whose target is outside
// the run's scope, or "".
func (e *Engine) linkOutside(dir string) string {
	sc := e.kusts.Scope
	if sc == nil {
		return ""
	}
	var found string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || found != "" {
			return filepath.SkipDir
		}
		if d.Type()&os.ModeSymlink != 0 && !sc.Contains(p) {
			found = p
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// holds says whether the run may look at dir (the scope holds it by name);
// everything when no scope is set.
func (e *Engine) holds(dir string) bool {
	return e.kusts.Scope == nil || e.kusts.Scope.Holds(dir)
}

// contains reports whether path resolves, links followed one hop at a
// time, to a place inside the scope: what may be opened.
func (e *Engine) contains(path string) bool {
	return e.kusts.Scope == nil || e.kusts.Scope.Contains(path)
}
