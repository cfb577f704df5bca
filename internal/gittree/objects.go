package gittree

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// The objects a revision's tree is read from (commits, annotated tags,
// trees, blobs) are decoded here from go-git's storage, not by go-git's
// plumbing/object: that package links an OpenPGP implementation (to verify
// signed commits, which nothing here does), a diff library and 61 packages
// in all, whose package inits cost every run of shipshape start-up time
// (docs/performance.md, "Start-up"). The formats are git's own
// (Documentation/gitformat-*): a header of "key value" lines, and a tree's
// "MODE NAME\0" followed by the raw hash of each entry.

// Commit is one commit: what a revision's tree and history are read from.
type Commit struct {
	Hash         plumbing.Hash
	TreeHash     plumbing.Hash
	ParentHashes []plumbing.Hash
	// CommitTime is the committer's timestamp (seconds since the epoch),
	// which orders merge bases as git orders them, newest first.
	CommitTime int64
}

// NumParents is how many parents the commit has.
func (c *Commit) NumParents() int { return len(c.ParentHashes) }

// hashSize is the length of a raw hash in a tree object (git's SHA-1 object
// format, the one go-git's plumbing.Hash holds).
const hashSize = len(plumbing.ZeroHash)

// treeEntry is one entry of a tree object.
type treeEntry struct {
	Name string
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// errBadObject wraps what is wrong with an object's encoding.
var errBadObject = errors.New("malformed git object")

// readObject is the content of the object h, which must be of type want.
func readObject(store storer.EncodedObjectStorer, want plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	obj, err := store.EncodedObject(want, h)
	if err != nil {
		return nil, err
	}
	return objectBytes(obj)
}

// maxObjectSize bounds an object read whole: git hosts keep files over
// 100 MB out, and the engine refuses files over --max-file-size (64 MB
// by default) in the work tree.
const maxObjectSize = 1 << 30

// objectBytes reads obj whole, no more than the size its header declares:
// a compressed stream that inflates past it is refused, not followed.
func objectBytes(obj plumbing.EncodedObject) ([]byte, error) {
	size := obj.Size()
	if size < 0 || size > maxObjectSize {
		return nil, fmt.Errorf("object %s declares %d bytes, over the %d-byte limit", obj.Hash(), size, maxObjectSize)
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	buf := bytes.NewBuffer(make([]byte, 0, size+1))
	if _, err := buf.ReadFrom(io.LimitReader(rd, size+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) != size {
		return nil, fmt.Errorf("object %s holds %d bytes or more, not the %d its header declares", obj.Hash(), buf.Len(), size)
	}
	return buf.Bytes(), nil
}

// header calls fn with each "key value" line of a commit's or a tag's
// header (continuation lines, as a signature's, are skipped).
func header(data []byte, fn func(key, value string) error) error {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			return nil // the message follows
		}
		if line[0] == ' ' {
			continue
		}
		key, value, _ := bytes.Cut(line, []byte{' '})
		if err := fn(string(key), string(value)); err != nil {
			return err
		}
	}
	return nil
}

// parseHash reads a hash written in hex.
func parseHash(s string) (plumbing.Hash, error) {
	if !plumbing.IsHash(s) {
		return plumbing.ZeroHash, fmt.Errorf("%w: %q is not a hash", errBadObject, s)
	}
	return plumbing.NewHash(s), nil
}

// decodeCommit reads the commit object obj.
func decodeCommit(obj plumbing.EncodedObject) (*Commit, error) {
	data, err := objectBytes(obj)
	if err != nil {
		return nil, err
	}
	c := &Commit{Hash: obj.Hash()}
	err = header(data, func(key, value string) error {
		var err error
		switch key {
		case "tree":
			c.TreeHash, err = parseHash(value)
		case "parent":
			var p plumbing.Hash
			if p, err = parseHash(value); err == nil {
				c.ParentHashes = append(c.ParentHashes, p)
			}
		case "committer":
			// "Name <email> SECONDS ZONE": the seconds are the next to last field.
			fields := bytes.Fields([]byte(value))
			if len(fields) >= 2 {
				c.CommitTime, _ = strconv.ParseInt(string(fields[len(fields)-2]), 10, 64)
			}
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", obj.Hash(), err)
	}
	if c.TreeHash.IsZero() {
		return nil, fmt.Errorf("commit %s: %w: no tree", obj.Hash(), errBadObject)
	}
	return c, nil
}

// tagTarget is the object an annotated tag points at.
func tagTarget(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	data, err := objectBytes(obj)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	target := plumbing.ZeroHash
	err = header(data, func(key, value string) error {
		var err error
		if key == "object" {
			target, err = parseHash(value)
		}
		return err
	})
	if err == nil && target.IsZero() {
		err = fmt.Errorf("%w: no object", errBadObject)
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("tag %s: %w", obj.Hash(), err)
	}
	return target, nil
}

// commit reads the commit h.
func (r *Repo) commit(h plumbing.Hash) (*Commit, error) {
	obj, err := r.store.EncodedObject(plumbing.CommitObject, h)
	if err != nil {
		return nil, err
	}
	return decodeCommit(obj)
}

// readTree reads the entries of the tree object h.
func readTree(store storer.EncodedObjectStorer, h plumbing.Hash) ([]treeEntry, error) {
	data, err := readObject(store, plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	var entries []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+1+hashSize {
			return nil, fmt.Errorf("tree %s: %w", h, errBadObject)
		}
		mode, err := filemode.New(string(data[:sp]))
		if err != nil {
			return nil, fmt.Errorf("tree %s: %w: %v", h, errBadObject, err)
		}
		e := treeEntry{Name: string(data[sp+1 : nul]), Mode: mode}
		copy(e.Hash[:], data[nul+1:nul+1+hashSize])
		entries = append(entries, e)
		data = data[nul+1+hashSize:]
	}
	return entries, nil
}

// walkTree calls fn with the slash-separated path of every file (not
// directory) under the tree h, recursively.
func walkTree(store storer.EncodedObjectStorer, h plumbing.Hash, prefix string, fn func(path string, e treeEntry)) error {
	entries, err := readTree(store, h)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Mode == filemode.Dir {
			if err := walkTree(store, e.Hash, prefix+e.Name+"/", fn); err != nil {
				return err
			}
			continue
		}
		fn(prefix+e.Name, e)
	}
	return nil
}

// mergeBases are the best common ancestors of a and b, as `git merge-base
// --all` finds them: the common ancestors that are no ancestor of another
// common ancestor, newest first.
func (r *Repo) mergeBases(a, b *Commit) ([]*Commit, error) {
	ofA := map[plumbing.Hash]bool{}
	if err := r.ancestors(a, func(c *Commit) bool { ofA[c.Hash] = true; return true }); err != nil {
		return nil, err
	}
	var common []*Commit
	if err := r.ancestors(b, func(c *Commit) bool {
		if ofA[c.Hash] {
			common = append(common, c)
			return false // its ancestors are common too, and not best
		}
		return true
	}); err != nil {
		return nil, err
	}
	var best []*Commit
	for _, c := range common {
		redundant := false
		for _, d := range common {
			if d.Hash == c.Hash || redundant {
				continue
			}
			if err := r.ancestors(d, func(x *Commit) bool {
				if x.Hash == c.Hash {
					redundant = true
				}
				return !redundant
			}); err != nil {
				return nil, err
			}
		}
		if !redundant {
			best = append(best, c)
		}
	}
	sort.SliceStable(best, func(i, j int) bool { return best[i].CommitTime > best[j].CommitTime })
	return best, nil
}

// ancestors visits start and its ancestors, each once, breadth first;
// visit returns false to leave a commit's parents unvisited.
func (r *Repo) ancestors(start *Commit, visit func(*Commit) bool) error {
	seen := map[plumbing.Hash]bool{start.Hash: true}
	queue := []*Commit{start}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if !visit(c) {
			continue
		}
		for _, p := range c.ParentHashes {
			if seen[p] {
				continue
			}
			seen[p] = true
			pc, err := r.commit(p)
			if err != nil {
				return fmt.Errorf("parent %s of %s: %w", p.String()[:7], c.Hash.String()[:7], err)
			}
			queue = append(queue, pc)
		}
	}
	return nil
}

// treeReader reads the trees under one commit's tree, each once.
type treeReader struct {
	store storer.EncodedObjectStorer
	top   plumbing.Hash
	trees map[plumbing.Hash][]treeEntry
}

func newTreeReader(store storer.EncodedObjectStorer, top plumbing.Hash) *treeReader {
	return &treeReader{store: store, top: top, trees: map[plumbing.Hash][]treeEntry{}}
}

func (t *treeReader) entries(h plumbing.Hash) ([]treeEntry, error) {
	if es, ok := t.trees[h]; ok {
		return es, nil
	}
	es, err := readTree(t.store, h)
	if err != nil {
		return nil, err
	}
	t.trees[h] = es
	return es, nil
}

// find is the entry at the slash-separated path rel; found is false when
// the tree has no such path (an element missing, or a file where a
// directory would be).
func (t *treeReader) find(rel string) (e treeEntry, found bool, err error) {
	dir := t.top
	for {
		name, rest, more := strings.Cut(rel, "/")
		es, err := t.entries(dir)
		if err != nil {
			return treeEntry{}, false, err
		}
		i := slices.IndexFunc(es, func(e treeEntry) bool { return e.Name == name })
		if i < 0 {
			return treeEntry{}, false, nil
		}
		if !more {
			return es[i], true, nil
		}
		if es[i].Mode != filemode.Dir {
			return treeEntry{}, false, nil
		}
		dir, rel = es[i].Hash, rest
	}
}
