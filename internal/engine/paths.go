package engine

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Paths as the user named them: the graph names files by absolute real
// path; findings and kustomize's messages show them below the paths named
// on the command line, else relative to the working directory.

// namedDir is a path as the user named it, with the directories it stands
// for: its absolute path and, when that is or lies below a link, its real
// path (the graph's names). Computed once per run: show runs per file.
type namedDir struct {
	name string
	dirs []string
}

func (t *renderState) nameDir(name, abs string) namedDir {
	d := namedDir{name: name, dirs: []string{abs}}
	if real := t.graph.Real(abs); real != abs {
		d.dirs = append(d.dirs, real)
	}
	return d
}

// namedPaths are the paths of a run that name files or directories: all
// but stdin, "." for none.
func namedPaths(paths []string) []string {
	if len(paths) == 0 {
		return []string{"."}
	}
	var named []string
	for _, p := range paths {
		if p != manifest.Stdin {
			named = append(named, p)
		}
	}
	return named
}

// relPaths writes the absolute paths in a message of kustomize's the way
// the user named them: below a path named, or else the working directory;
// a directory quoted alone ('/abs/dir') as its name. kustomize names files
// by their resolved paths, which the named dirs include.
func (t *renderState) relPaths(msg string) string {
	type pair struct{ abs, as string }
	var ps []pair
	sep := string(filepath.Separator)
	for _, n := range append(slices.Clip(t.named), t.wd) {
		name := filepath.Clean(n.name)
		below := name + sep
		if n.name == "" || name == "." {
			name, below = ".", ""
		}
		for _, dir := range n.dirs {
			ps = append(ps, pair{dir + sep, below}, pair{"'" + dir + "'", "'" + name + "'"})
		}
	}
	// The longest first: a path named below the working directory wins.
	slices.SortStableFunc(ps, func(a, b pair) int { return len(b.abs) - len(a.abs) })
	for _, p := range ps {
		msg = strings.ReplaceAll(msg, p.abs, p.as)
	}
	return msg
}

// show writes an absolute path the way the user named the paths: below a
// path named, as that path and the rest; else relative to the working
// directory. The graph names files by real path, and a path named (or the
// working directory) may be, or lie below, a symbolic link: below its
// real path is below it.
func (t *renderState) show(abs string) string {
	for _, n := range t.named {
		for _, dir := range n.dirs {
			if r, ok := below(dir, abs); ok {
				return filepath.Join(n.name, r)
			}
		}
	}
	if len(t.wd.dirs) == 0 {
		return abs
	}
	if r, ok := below(t.wd.dirs[len(t.wd.dirs)-1], abs); ok {
		return r
	}
	if r, err := filepath.Rel(t.wd.dirs[0], abs); err == nil {
		return r
	}
	return abs
}

// below returns path relative to dir, when path is dir or below it.
func below(dir, path string) (string, bool) {
	r, err := filepath.Rel(dir, path)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return r, true
}
