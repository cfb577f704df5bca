package manifest

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// A Listing records, for the kustomize discovery of the same run, what the
// inputs' directory walks (Walk, ContextFor) saw: every directory they
// entered and every file whose name discovery looks for (the kustomization
// names, fleet.yaml). Discovery used to list the same tree again with a
// walk of its own, beside the inputs' one; replaying this one gives it the
// same entries in the same order (the same WalkDir, the same hidden
// directories skipped), read once.
//
// Nothing in it outlives the run: it is what this run's walk read from
// the disk, so it answers whatever the tree became since an earlier run
// (a kustomization added, removed or renamed, a directory created, a link
// pointed elsewhere) exactly as discovery's own walk would have. A walk
// that met an error, or was stopped before its end, is not replayed
// (Replay says so and discovery walks itself): its record is not what a
// full walk sees.
type Listing struct {
	mu   sync.Mutex
	cond *sync.Cond
	// trees: the walks recorded, by absolute root as walked.
	trees map[string]*listedTree
	// closed: no walk will start any more (see Close).
	closed bool
	// names: the file names recorded (those discovery reads).
	names []string
}

// listedTree is one walk's record.
type listedTree struct {
	entries []ListedEntry
	// done: the walk ended; complete: it saw every entry without error.
	done, complete bool
}

// ListedEntry is a directory a walk entered, or a file of one of the
// names recorded.
type ListedEntry struct {
	// Rel is the path below the walk's root ("." for the root itself),
	// clean, with the platform's separators.
	Rel string
	// Dir is set for a directory.
	Dir bool
}

// NewListing returns a listing that records directories and the files
// named one of names.
func NewListing(names ...string) *Listing {
	l := &Listing{trees: map[string]*listedTree{}, names: names}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// Close says that no more walks will start: Replay of a root no walk
// recorded stops waiting. It may be called more than once.
func (l *Listing) Close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.cond.Broadcast()
}

// Replay calls fn with the entries the walk of root (absolute, clean)
// saw, in its order, as the walk finds them, and reports whether the walk
// was complete. False (fn called for none, some or all of the entries)
// means the record does not stand for a full walk: no walk of root was
// recorded before Close, or it met an error or was stopped; the caller
// walks itself, from the start.
func (l *Listing) Replay(root string, fn func(ListedEntry)) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var tree *listedTree
	for {
		if tree = l.trees[root]; tree != nil || l.closed {
			break
		}
		l.cond.Wait()
	}
	if tree == nil {
		return false
	}
	for i := 0; ; {
		for i == len(tree.entries) && !tree.done {
			l.cond.Wait()
		}
		if i == len(tree.entries) {
			return tree.complete
		}
		batch := tree.entries[i:]
		i = len(tree.entries)
		l.mu.Unlock()
		for _, e := range batch {
			fn(e)
		}
		l.mu.Lock()
	}
}

// listingWalk records one walk: nil records nothing.
type listingWalk struct {
	l      *Listing
	tree   *listedTree
	prefix string // what the walk's paths below its root start with
}

// startWalk begins the record of a walk of root (as given to WalkDir).
// A root walked before is not recorded again: its first record stands.
func (l *Listing) startWalk(root string) *listingWalk {
	if l == nil {
		return nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.trees[abs] != nil {
		return nil
	}
	tree := &listedTree{}
	l.trees[abs] = tree
	// WalkDir names an entry filepath.Join(parent, name): the root cleaned,
	// then the rest, except below "." where it is the rest alone.
	prefix := filepath.Clean(root) + string(filepath.Separator)
	if filepath.Clean(root) == "." {
		prefix = ""
	} else if strings.HasSuffix(filepath.Clean(root), string(filepath.Separator)) {
		prefix = filepath.Clean(root) // the file system's root
	}
	return &listingWalk{l: l, tree: tree, prefix: prefix}
}

// dir records a directory the walk entered (path as the walk names it,
// root the walk's root as given).
func (w *listingWalk) dir(path, root string) {
	if w == nil {
		return
	}
	rel := "."
	if path != root {
		rel = strings.TrimPrefix(path, w.prefix)
	}
	w.add(ListedEntry{Rel: rel, Dir: true})
}

// file records a file the walk met when its name is one recorded.
func (w *listingWalk) file(path, name string) {
	if w == nil || !slices.Contains(w.l.names, name) {
		return
	}
	w.add(ListedEntry{Rel: strings.TrimPrefix(path, w.prefix)})
}

func (w *listingWalk) add(e ListedEntry) {
	w.l.mu.Lock()
	w.tree.entries = append(w.tree.entries, e)
	w.l.mu.Unlock()
	w.l.cond.Broadcast()
}

// end closes the record: complete when the walk met no error and was
// not stopped.
func (w *listingWalk) end(complete bool) {
	if w == nil {
		return
	}
	w.l.mu.Lock()
	w.tree.done, w.tree.complete = true, complete
	w.l.mu.Unlock()
	w.l.cond.Broadcast()
}
