package manifest

import (
	"errors"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/scope"
)

// Stdin is the path that names standard input.
const Stdin = "-"

// Input is one file to read, found by Collect.
type Input struct {
	Path string
	// Explicit is set for paths named on the command line: those are read
	// whatever their extension.
	Explicit bool
	// Context is set for files read only so that cross-resource rules see
	// the whole application (see ContextFor): nothing is reported on them.
	Context bool
	// Link is set for a symbolic link to a regular file that a directory
	// walk found: its real path is its target's, not its directory's.
	Link bool
}

// WalkError is a path that could not be walked.
type WalkError struct {
	Path string
	Err  error
}

func (e WalkError) Error() string { return e.Path + ": " + e.Err.Error() }

// Collect expands paths into the files to lint: directories recursively
// (*.yaml and *.yml, skipping hidden directories such as .git and hidden
// files such as .travis.yml), files as
// named, "-" for stdin. Order is stable: arguments in order, each directory
// in lexical order. Non-regular files (FIFOs, devices, sockets) are skipped
// so that a walk never blocks on a read.
func Collect(paths []string) ([]Input, []WalkError) {
	var errs []WalkError
	inputs := slices.Collect(Walk(paths, &errs))
	return inputs, errs
}

// Walk is Collect as a sequence: each input is yielded as the walk finds
// it, so that a caller can read and lint files while the walk goes on.
// Paths that cannot be walked are appended to errs.
func Walk(paths []string, errs *[]WalkError) iter.Seq[Input] {
	return WalkListed(paths, errs, nil)
}

// WalkListed is Walk recording in listed what its directory walks see
// (see Listing); a nil listed records nothing.
func WalkListed(paths []string, errs *[]WalkError, listed *Listing) iter.Seq[Input] {
	return func(yield func(Input) bool) {
		if len(paths) == 0 {
			paths = []string{"."}
		}
		seen := map[string]bool{}
		stopped := false
		// Nothing outside the run's scope is read: a link that leads
		// there, in a directory or named, is reported instead.
		sc := scope.Of(paths)
		add := func(in Input) {
			if !seen[in.Path] {
				seen[in.Path] = true
				stopped = !yield(in)
			}
		}
		for _, p := range paths {
			if stopped {
				return
			}
			if p == Stdin {
				add(Input{Path: Stdin, Explicit: true})
				continue
			}
			// Asked before the stat, which would follow a link out: a
			// directory named is in the scope (scope.Of), a file only
			// when its target is.
			if abs, err := filepath.Abs(p); err == nil && !sc.Contains(abs) {
				*errs = append(*errs, WalkError{p, errOutside})
				continue
			}
			st, err := os.Stat(p)
			if err != nil {
				*errs = append(*errs, WalkError{p, err})
				continue
			}
			if !st.IsDir() {
				if st.Mode().IsRegular() {
					add(Input{Path: p, Explicit: true})
				} else {
					*errs = append(*errs, WalkError{p, errNotRegular})
				}
				continue
			}
			rec := listed.startWalk(p)
			complete := true
			err = WalkDir(p, func(path string, d fs.DirEntry, err error) error {
				if stopped {
					complete = false
					return fs.SkipAll
				}
				if err != nil {
					complete = false
					// A directory that vanished or cannot be read: say so,
					// keep walking the rest.
					*errs = append(*errs, WalkError{path, err})
					if d != nil && d.IsDir() {
						return fs.SkipDir
					}
					return nil
				}
				name := d.Name()
				if d.IsDir() {
					if path != p && strings.HasPrefix(name, ".") && name != "." && name != ".." {
						rec.entry(path, p, d, false)
						return fs.SkipDir
					}
					rec.entry(path, p, d, true)
					return nil
				}
				rec.entry(path, p, d, false)
				// Hidden files (.travis.yml, .gitlab-ci.yml, .golangci.yaml)
				// configure tools, not clusters; named, they are linted.
				if strings.HasPrefix(name, ".") {
					return nil
				}
				if leavesScope(sc, path, d) {
					*errs = append(*errs, WalkError{path, errOutside})
					return nil
				}
				if ok, link := yamlFile(path, d); ok {
					add(Input{Path: path, Link: link})
				}
				return nil
			})
			rec.end(complete && err == nil && !stopped)
			if err != nil {
				*errs = append(*errs, WalkError{p, err})
			}
		}
	}
}

// WalkDir is filepath.WalkDir, except that a root that is a symbolic link
// to a directory is walked, with paths named below the link: a path named
// on the command line is followed (as Stat follows it) wherever it points,
// while filepath.WalkDir would see only the link and find nothing below
// it. Links met below the root are not followed.
func WalkDir(root string, fn fs.WalkDirFunc) error {
	st, err := os.Lstat(root)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return filepath.WalkDir(root, fn)
	}
	target, err := filepath.EvalSymlinks(root)
	if err != nil {
		return filepath.WalkDir(root, fn)
	}
	return filepath.WalkDir(target, func(path string, d fs.DirEntry, err error) error {
		if path == target {
			path = root // as given, as filepath.WalkDir passes it
		} else if rel, rerr := filepath.Rel(target, path); rerr == nil {
			path = filepath.Join(root, rel)
		}
		return fn(path, d, err)
	})
}

// yamlFile reports whether the entry d at path, met in a directory, is a
// YAML file to read: a regular file, or a symbolic link to one (link), as
// kubectl apply -f DIR and Argo CD read it. A link to a directory is not
// followed (a loop would trap the walk), nor is anything else special.
func yamlFile(path string, d fs.DirEntry) (ok, link bool) {
	if !IsYAMLName(d.Name()) {
		return false, false
	}
	if d.Type().IsRegular() {
		return true, false
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false, false
	}
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular(), true
}

// leavesScope reports whether the entry d at path, met in a directory,
// is a link to a YAML name that leads out of sc: it is not followed (not
// even to see what it is), and it is reported.
func leavesScope(sc *scope.Scope, path string, d fs.DirEntry) bool {
	if d.Type()&fs.ModeSymlink == 0 || !IsYAMLName(d.Name()) {
		return false
	}
	abs, err := filepath.Abs(path)
	return err != nil || !sc.Contains(abs)
}

// errOutside is a link that leads out of the run's scope.
var errOutside = errors.New("a link to a file outside the repository (or the paths given): not read")

type notRegular struct{}

func (notRegular) Error() string { return "not a regular file (skipped)" }

var errNotRegular error = notRegular{}

// IsYAMLName reports whether a file name has a YAML extension.
func IsYAMLName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}
