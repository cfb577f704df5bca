package render

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// The scans' walk of a tree: replayed from the run's walk of its inputs
// (manifest.Listing) when that walk listed the tree whole, else a walk of
// their own; and what the listing answers of the entries kustomizations
// name, without a stat.

// walkTree reads every kustomization under dir (absolute, clean), in
// walk order: from the run's own walk of the inputs when it recorded dir
// whole (see manifest.Listing: the same WalkDir, the same directories
// skipped, so the same entries in the same order), else with a walk of
// its own.
//
// The kustomizations are loaded once the walk is over, in the order it
// met them: by then every directory of the tree is known walked, so that
// their entries resolve from the listing (inWalked, listedFile) rather
// than by a resolution of each directory above them.
func (g *Graph) walkTree(dir string) []*Kustomization {
	var dirs []string // holding a kustomization, in walk order
	seen := map[string]bool{}
	sep := string(filepath.Separator)
	if strings.HasSuffix(dir, sep) {
		sep = "" // the file system's root
	}
	types := map[string]fs.FileMode{}
	var entered []string
	replayed := g.walked.Replay(dir, func(e manifest.ListedEntry) {
		path := dir
		if e.Rel != "." {
			path = dir + sep + e.Rel
		}
		switch {
		case e.Entered:
			g.enterDir(path, dir)
			entered = append(entered, path)
		case !e.Type.IsDir(): // not a hidden directory, skipped
			dirs = g.meetFile(path, filepath.Base(path), seen, dirs)
		}
		types[path] = e.Type
	})
	if replayed {
		g.mu.Lock()
		if g.types == nil {
			g.types, g.typed = types, map[string]bool{}
		} else {
			maps.Copy(g.types, types)
		}
		for _, d := range entered {
			g.typed[d] = true
		}
		g.mu.Unlock()
	} else {
		// No whole record of dir (Replay called fn for nothing).
		g.walkOwn(dir, seen, &dirs)
	}
	var found []*Kustomization
	for _, d := range dirs {
		if k := g.Load(d); k != nil {
			found = append(found, k)
		}
	}
	return found
}

// walkOwn is the walk of dir when no walk of the run's recorded it: the
// directories entered, and the kustomizations' directories appended to
// dirs.
func (g *Graph) walkOwn(dir string, seen map[string]bool, dirs *[]string) {
	_ = manifest.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			g.enterDir(path, dir)
			return nil
		}
		*dirs = g.meetFile(path, d.Name(), seen, *dirs)
		return nil
	})
}

// enterDir records a directory the scan of root walked.
func (g *Graph) enterDir(path, root string) {
	g.mu.Lock()
	if g.listed == nil {
		g.listed = map[string]bool{}
	}
	if _, ok := g.listed[path]; !ok {
		g.listed[path] = false
	}
	g.mu.Unlock()
	if path != root {
		g.real.entered(path)
	}
}

// meetFile notes the file at path (named name) that a scan met: a
// fleet.yaml, or a kustomization, whose directory it appends to dirs once
// (seen).
func (g *Graph) meetFile(path, name string, seen map[string]bool, dirs []string) []string {
	// A directory is loaded when the walk meets a kustomization file
	// in it, rather than probed for each name: most directories have
	// none, and the probes were most of a scan's system calls.
	if name == "fleet.yaml" {
		g.noteFleet(filepath.Dir(path))
	}
	if parent := filepath.Dir(path); slices.Contains(KustomizationNames, name) && !seen[parent] {
		seen[parent] = true
		g.mu.Lock()
		g.listed[parent] = true
		g.mu.Unlock()
		dirs = append(dirs, parent)
	}
	return dirs
}

// inWalked answers for an entry's path (absolute, clean) that names no
// link, in a directory a scan walked whose walked path is its real path:
// its real path is itself (the walk entered every directory above it
// without following a link, so none of them is one), and its directory's
// listing (a replayed walk's) or else one Lstat says what it is, where
// resolving it (scope.Resolve: an Lstat) and then asking (a Stat) were
// two. Anything else (a link, a directory no scan walked, a revision's
// tree) is not answered (ok false).
func (g *Graph) inWalked(path string) (real string, isDir, regular, ok bool) {
	if g.src.fsys != nil {
		return "", false, false, false
	}
	dir := filepath.Dir(path)
	g.mu.Lock()
	_, walked := g.listed[dir]
	g.mu.Unlock()
	if !walked {
		return "", false, false, false
	}
	if realDir, known := g.real.load(dir); !known || realDir != dir {
		return "", false, false, false
	}
	// A directory a replayed walk listed (every entry of it, and every
	// directory it entered, is in types): its listing says what Lstat
	// would, as of this run's walk.
	g.mu.Lock()
	typ, listed := g.types[path]
	dirListed := g.typed[dir]
	g.mu.Unlock()
	if dirListed {
		switch {
		case !listed:
			return path, false, false, true
		case typ&fs.ModeSymlink != 0:
			return "", false, false, false
		}
		return path, typ.IsDir(), typ.IsRegular(), true
	}
	st, err := os.Lstat(path)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", false, false, false
	case err != nil: // missing: resolved as written, as scope.Resolve does
		return path, false, false, true
	case st.Mode()&fs.ModeSymlink != 0:
		return "", false, false, false
	}
	return path, st.IsDir(), st.Mode().IsRegular(), true
}

// listedFile answers for a file in a directory a replayed walk listed
// whose walked path is its real path (see inWalked) whether it is a
// regular file that is no link, as its directory's listing says; ok is
// false when the listing cannot say (a link, a directory not listed).
func (g *Graph) listedFile(file string) (regular, ok bool) {
	if g.src.fsys != nil {
		return false, false
	}
	dir := filepath.Dir(file)
	g.mu.Lock()
	typ, present := g.types[file]
	typed := g.typed[dir]
	g.mu.Unlock()
	if !typed {
		return false, false
	}
	if realDir, known := g.real.load(dir); !known || realDir != dir {
		return false, false
	}
	switch {
	case !present:
		return false, true // no such entry: stat would fail
	case typ&fs.ModeSymlink != 0:
		return false, false // what it points to is not listed
	}
	return typ.IsRegular(), true
}
