package manifest

import (
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
)

// A Listing records, for the kustomize discovery of the same run, what the
// inputs' directory walks (Walk, ContextFor) saw: every directory they
// entered and every other entry of those, with its type (the kustomization
// names and fleet.yaml are what discovery looks for; the rest tells it
// what a kustomization's entry is without a stat). Discovery used to list the same tree again with a
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
}

// listedTree is one walk's record.
type listedTree struct {
	entries []ListedEntry
	// done: the walk ended; complete: it saw every entry without error.
	done, complete bool
}

// ListedEntry is one entry of a directory a walk entered (or the root).
type ListedEntry struct {
	// Rel is the path below the walk's root ("." for the root itself),
	// clean, with the platform's separators.
	Rel string
	// Type is the entry's type bits as its directory listed them
	// (fs.DirEntry.Type: a link is a link, not what it points to).
	Type fs.FileMode
	// Entered is set for a directory the walk entered (not a hidden one,
	// which it skips); its entries follow it, every one.
	Entered bool
}

// NewListing returns an empty listing.
func NewListing() *Listing {
	l := &Listing{trees: map[string]*listedTree{}}
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
// saw, in its order, once that walk is over, and reports whether fn was
// called: false means the record does not stand for a full walk (no walk
// of root was recorded before Close, or it met an error or was stopped),
// and the caller walks itself.
func (l *Listing) Replay(root string, fn func(ListedEntry)) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	var tree *listedTree
	for {
		// Closed, a walk still not done was abandoned (its iterator
		// left): it will not end.
		if tree = l.trees[root]; tree != nil && tree.done || l.closed {
			break
		}
		l.cond.Wait()
	}
	l.mu.Unlock()
	if tree == nil || !tree.done || !tree.complete {
		return false
	}
	// Done: the walk appends nothing more.
	for _, e := range tree.entries {
		fn(e)
	}
	return true
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

// entry records an entry the walk met (path as the walk names it, root
// the walk's root as given); entered is set for a directory it enters.
func (w *listingWalk) entry(path, root string, d fs.DirEntry, entered bool) {
	if w == nil {
		return
	}
	rel := "."
	if path != root {
		rel = strings.TrimPrefix(path, w.prefix)
	}
	w.add(ListedEntry{Rel: rel, Type: d.Type(), Entered: entered})
}

// add appends e; Replay reads the entries once the walk is over (end),
// so nobody is woken here.
func (w *listingWalk) add(e ListedEntry) {
	w.l.mu.Lock()
	w.tree.entries = append(w.tree.entries, e)
	w.l.mu.Unlock()
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
