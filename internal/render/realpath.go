package render

import (
	"path/filepath"
	"sync"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/scope"
)

// realPaths resolves symbolic links in absolute paths, once per path and
// its directories. kustomize loads a base through its resolved directory
// (its loader confirms every directory with EvalSymlinks), so a base
// listed through a linked directory is the same base as the directory the
// link points at; the files of a run are keyed by their resolved paths so
// that one file reached under two names is read, judged and fixed once.
//
// It holds an entry per file of the run (16 thousand over the 11-fold
// corpus): a map under a lock costs a third of a sync.Map's bytes, and a
// path with no link in it is kept as its own resolution, not a copy.
//
// Links are resolved through the run's scope: a link whose target is
// outside it resolves to that target, unread (see scope.Scope.Resolve).
type realPaths struct {
	mu    sync.RWMutex
	m     map[string]string // path (absolute and clean, or as named) -> resolved
	wd    manifest.WorkDir
	scope *scope.Scope
	once  sync.Once // sets scope for a Graph not made by Discover
}

func (rp *realPaths) load(p string) (string, bool) {
	rp.mu.RLock()
	defer rp.mu.RUnlock()
	real, ok := rp.m[p]
	return real, ok
}

func (rp *realPaths) store(p, real string) {
	if real == p {
		real = p
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.m == nil {
		rp.m = map[string]string{}
	}
	rp.m[p] = real
}

// resolve returns p (absolute and clean) with every link in it resolved,
// its last element too. A path that does not exist keeps its missing part
// as written.
func (rp *realPaths) resolve(p string) string {
	if real, ok := rp.load(p); ok {
		return real
	}
	rp.once.Do(func() {
		if rp.scope == nil {
			rp.scope = scope.Of(nil) // the working directory's
		}
	})
	real, _ := rp.scope.Resolve(p)
	rp.store(p, real)
	return real
}

// entered records dir (absolute and clean), a directory a walk entered
// below one it entered before: a walk does not follow links, so its real
// path is its parent's and its own name, found with no stat.
func (rp *realPaths) entered(dir string) {
	if _, ok := rp.load(dir); ok {
		return
	}
	rp.store(dir, filepath.Join(rp.resolve(filepath.Dir(dir)), filepath.Base(dir)))
}

// Real returns path as an absolute path with its symbolic links
// resolved: the key by which the graph, the locations of findings and a
// run's files name a file or directory. Paths that cannot be made
// absolute are returned as given.
func (g *Graph) Real(path string) string { return g.real.of(path, false) }

// RealFile is Real for a file known not to be a link itself (a regular
// file a directory walk found): only its directories are resolved, which
// saves a stat per file of the run.
func (g *Graph) RealFile(path string) string { return g.real.of(path, true) }

func (rp *realPaths) of(path string, regular bool) string {
	if real, ok := rp.load(path); ok { // as named before, relative or not
		return real
	}
	abs, err := rp.wd.Abs(path)
	if err != nil {
		return path
	}
	var real string
	if regular {
		real = filepath.Join(rp.resolve(filepath.Dir(abs)), filepath.Base(abs))
	} else {
		real = rp.resolve(abs)
	}
	rp.store(path, real)
	return real
}
