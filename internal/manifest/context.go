package manifest

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/shipshape-dev/shipshape/internal/scope"
)

// ContextFor returns the files that cross-resource rules must also read
// so that what a file named alone gets does not depend on which other
// files were named (pre-commit names only the staged ones): every YAML
// file of the repository that holds it, or, outside a repository, of its
// directory (not below it). Those already among inputs are left
// out; the rest are marked Context (read, never reported on).
func ContextFor(inputs []Input) []Input { return ContextForListed(inputs, nil) }

// ContextForListed is ContextFor recording in listed what its walks of
// repositories see (see Listing).
func ContextForListed(inputs []Input, listed *Listing) []Input {
	// A directory named is the tree the user chose; a file named alone
	// (pre-commit names the staged ones) is judged in its repository, as
	// when the repository is linted.
	alone := func(in Input) bool { return in.Path != Stdin && !in.Context && in.Explicit }
	if !slices.ContainsFunc(inputs, alone) {
		return nil
	}
	var wd WorkDir
	have := map[string]bool{}
	for _, in := range inputs {
		if in.Path != Stdin {
			if abs, err := wd.Abs(in.Path); err == nil {
				have[abs] = true
			}
		}
	}
	var out []Input
	add := func(in Input) {
		if !have[in.Path] {
			have[in.Path] = true
			out = append(out, Input{Path: in.Path, Context: true, Link: in.Link})
		}
	}
	walked := map[string]bool{}
	var errs []WalkError // a file that cannot be walked is only context
	for _, in := range inputs {
		if !alone(in) {
			continue
		}
		dir := filepath.Dir(in.Path)
		if root := scope.RepositoryRoot(dir); root != "" {
			if !walked[root] {
				walked[root] = true
				for c := range WalkListed([]string{root}, &errs, listed) {
					add(c)
				}
			}
			continue
		}
		abs, err := wd.Abs(dir)
		if err != nil || walked[abs] {
			continue
		}
		walked[abs] = true
		sc := scope.Of([]string{in.Path})
		entries, _ := os.ReadDir(abs)
		for _, e := range entries {
			path := filepath.Join(abs, e.Name())
			if leavesScope(sc, path, e) {
				continue // context only: the walk of the inputs reports it
			}
			if ok, link := yamlFile(path, e); ok {
				add(Input{Path: path, Link: link})
			}
		}
	}
	return out
}
