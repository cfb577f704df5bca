package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Edits that change what discovery finds (the kustomizations, their
// entries and what the entries resolve to) while a cache keeps what it
// parsed of the kustomizations: the warm run must find what a run without
// the cache finds (wantCacheExact).

// TestCacheExactDiscovery makes every kind of editDiscovery's edits, in
// turn, a link pointed elsewhere twice.
func TestCacheExactDiscovery(t *testing.T) {
	kinds := []int{0, 1, 2, 3, -1, 4, 4, 0, 1, 2, 3, -1, 4, 0}
	wantCacheExactAfter(t, filepath.Join("..", "..", "testdata", "render"), len(kinds), func(e *editor, i int) string {
		if kinds[i] < 0 {
			return e.edit(i) // makes the directory the edit before named
		}
		return e.editDiscoveryOf(kinds[i], i)
	})
}

// TestCacheExactDiscoveryStaged is TestCacheExactDiscovery with one file
// named alone, as pre-commit names a staged file: the kustomizations are
// found from the walk of its repository that reads the other files as
// context (manifest.Listing), which the edits change between runs.
func TestCacheExactDiscoveryStaged(t *testing.T) {
	// -2 renames the kustomization of the named file's directory (to
	// each of kustomize's names in turn), -3 deletes that of an overlay
	// over it: the roots that reach the named file change.
	kinds := []int{-2, 0, 1, 2, -2, 3, -1, 4, 4, -3, -2, 1, 2, 3, -1, 4, 0}
	named := filepath.Join("shared-base", "base", "daemonset.yaml")
	names := []string{"kustomization.yaml", "Kustomization", "kustomization.yml"}
	renamed := 0
	wantCacheExactNamed(t, filepath.Join("..", "..", "testdata", "render"), len(kinds), func(e *editor, i int) string {
		switch kinds[i] {
		case -1:
			return e.edit(i)
		case -2:
			dir := filepath.Join(e.root, "shared-base", "base")
			from, to := filepath.Join(dir, names[renamed%3]), filepath.Join(dir, names[(renamed+1)%3])
			renamed++
			if err := os.Rename(from, to); err != nil {
				t.Fatal(err)
			}
			return "renamed " + e.rel(from) + " to " + e.rel(to)
		case -3:
			p := filepath.Join(e.root, "shared-base", "overlays", "dev", "kustomization.yaml")
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			return "deleted " + e.rel(p)
		}
		return e.editDiscoveryOf(kinds[i], i)
	}, named)
}

// entryLine is a `- entry` line of a list in a kustomization.
var entryLine = regexp.MustCompile(`(?m)^- [\w./-]+$`)

// editDiscovery makes one of those edits and says what it did.
func (e *editor) editDiscovery(i int) string { return e.editDiscoveryOf(e.rng.IntN(5), i) }

// editDiscoveryOf makes edit i of the kind given (0 to 4).
func (e *editor) editDiscoveryOf(kind, i int) string {
	switch kind {
	case 0: // an entry commented out, the file's size and mtime kept
		p, data, m := e.sameStatEdit(e.files(isKustomization), entryLine, func(b []byte, m []int) { b[m[0]], b[m[0]+1] = '#', '-' })
		if p == "" {
			return "no kustomization lists entries"
		}
		return fmt.Sprintf("commented out %q in %s, same size and mtime", data[m[0]:m[1]], e.rel(p))
	case 1: // a kustomization removed
		p := e.pick(e.files(isKustomization))
		if p == "" {
			return "no kustomization"
		}
		if err := os.Remove(p); err != nil {
			e.t.Fatal(err)
		}
		return "deleted " + e.rel(p)
	case 2: // a new directory holding a kustomization: a new root
		dir := filepath.Join(e.root, fmt.Sprintf("added-root-%d", i))
		e.addApp(dir, i)
		return "created " + e.rel(dir) + " with a kustomization"
	case 3: // a kustomization names a directory created by the next edit
		name := fmt.Sprintf("added-dir-%d", i)
		p := e.listResource(name)
		if p == "" {
			return "no kustomization lists resources"
		}
		e.pendingDir = filepath.Join(filepath.Dir(p), name)
		return e.rel(p) + " names the directory " + name + ", not there yet"
	default: // a link a root lists, made or pointed elsewhere
		return e.editLink(i)
	}
}

// addApp makes dir a kustomize root of one ConfigMap.
func (e *editor) addApp(dir string, i int) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	e.write(filepath.Join(dir, "kustomization.yaml"), []byte("resources:\n- cm.yaml\n"))
	e.write(filepath.Join(dir, "cm.yaml"), []byte(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dir-%d\n  labels: {app: added}\ndata: {k: v}\n", i)))
}

// editLink makes a root that lists a link to a directory holding a
// kustomization, or points the link such an edit made at another one.
func (e *editor) editLink(i int) string {
	kusts := e.files(func(p string) bool {
		return isKustomization(p) && !strings.Contains(p, "linked-root")
	})
	target := e.pick(kusts)
	if target == "" {
		return "no kustomization to link to"
	}
	target = filepath.Dir(target)
	if e.link != "" {
		if err := os.Remove(e.link); err != nil && !os.IsNotExist(err) {
			e.t.Fatal(err)
		}
		if err := os.Symlink(target, e.link); err != nil {
			e.t.Fatal(err)
		}
		return "pointed " + e.rel(e.link) + " at " + e.rel(target)
	}
	dir := filepath.Join(e.root, fmt.Sprintf("linked-root-%d", i))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	e.link = filepath.Join(dir, "base")
	if err := os.Symlink(target, e.link); err != nil {
		e.t.Fatal(err)
	}
	e.write(filepath.Join(dir, "kustomization.yaml"), []byte("resources:\n- base\n"))
	return "made " + e.rel(dir) + ", listing a link to " + e.rel(target)
}
