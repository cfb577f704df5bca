package manifest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Stdin is the path that names standard input.
const Stdin = "-"

// Input is one file to read, found by Collect.
type Input struct {
	Path string
	// Explicit is set for paths named on the command line: those are read
	// whatever their extension.
	Explicit bool
}

// WalkError is a path that could not be walked.
type WalkError struct {
	Path string
	Err  error
}

func (e WalkError) Error() string { return e.Path + ": " + e.Err.Error() }

// Collect expands paths into the files to lint: directories recursively
// (*.yaml and *.yml, skipping hidden directories such as .git), files as
// named, "-" for stdin. Order is stable: arguments in order, each directory
// in lexical order. Non-regular files (FIFOs, devices, sockets) are skipped
// so that a walk never blocks on a read.
func Collect(paths []string) ([]Input, []WalkError) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var out []Input
	var errs []WalkError
	seen := map[string]bool{}
	add := func(in Input) {
		if !seen[in.Path] {
			seen[in.Path] = true
			out = append(out, in)
		}
	}
	for _, p := range paths {
		if p == Stdin {
			add(Input{Path: Stdin, Explicit: true})
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			errs = append(errs, WalkError{p, err})
			continue
		}
		if !st.IsDir() {
			if st.Mode().IsRegular() {
				add(Input{Path: p, Explicit: true})
			} else {
				errs = append(errs, WalkError{p, errNotRegular})
			}
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				// A directory that vanished or cannot be read: say so,
				// keep walking the rest.
				errs = append(errs, WalkError{path, err})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			name := d.Name()
			if d.IsDir() {
				if path != p && strings.HasPrefix(name, ".") && name != "." && name != ".." {
					return fs.SkipDir
				}
				return nil
			}
			if !IsYAMLName(name) || !d.Type().IsRegular() {
				return nil
			}
			add(Input{Path: path})
			return nil
		})
		if err != nil {
			errs = append(errs, WalkError{p, err})
		}
	}
	return out, errs
}

type notRegular struct{}

func (notRegular) Error() string { return "not a regular file (skipped)" }

var errNotRegular error = notRegular{}

// IsYAMLName reports whether a file name has a YAML extension.
func IsYAMLName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}
