package gittree

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// resolve reads ref as git's rev-parse does for the forms a base is named
// by: NAME followed by any number of ~N (the Nth first-parent ancestor)
// and ^N (the Nth parent; ^0 the commit itself). NAME is a full SHA, a
// ref (HEAD, refs/..., a tag, a branch, a remote-tracking branch, by
// git's expansion rules, in git's order) or else an abbreviated SHA.
func (r *Repo) resolve(ref string) (*Commit, error) {
	name, suffix := ref, ""
	if i := strings.IndexAny(ref, "~^"); i >= 0 {
		name, suffix = ref[:i], ref[i:]
	}
	commit, err := r.resolveName(name)
	if err != nil {
		return nil, err
	}
	for suffix != "" {
		op := suffix[0]
		j := 1
		for j < len(suffix) && suffix[j] >= '0' && suffix[j] <= '9' {
			j++
		}
		n := 1
		if j > 1 {
			if n, err = strconv.Atoi(suffix[1:j]); err != nil {
				return nil, fmt.Errorf("bad count in %q", suffix[:j])
			}
		}
		suffix = suffix[j:]
		switch {
		case op == '~':
			for k := 0; k < n; k++ {
				if commit, err = r.parent(commit, 1); err != nil {
					return nil, err
				}
			}
		case n > 0:
			if commit, err = r.parent(commit, n); err != nil {
				return nil, err
			}
		}
	}
	return commit, nil
}

// parent is the nth parent (1-based) of c.
func (r *Repo) parent(c *Commit, n int) (*Commit, error) {
	if n > c.NumParents() {
		if c.NumParents() == 0 {
			return nil, fmt.Errorf("commit %s has no parent", c.Hash.String()[:7])
		}
		return nil, fmt.Errorf("commit %s has %d parent(s), not %d", c.Hash.String()[:7], c.NumParents(), n)
	}
	p, err := r.commit(c.ParentHashes[n-1])
	if err != nil {
		return nil, fmt.Errorf("parent %d of %s: %w", n, c.Hash.String()[:7], err)
	}
	return p, nil
}

func (r *Repo) resolveName(name string) (*Commit, error) {
	if len(name) == 40 && isHex(name) {
		return r.peel(plumbing.NewHash(name))
	}
	for _, rule := range plumbing.RefRevParseRules {
		ref, err := storer.ResolveReference(r.store, plumbing.ReferenceName(fmt.Sprintf(rule, name)))
		if err == nil {
			return r.peel(ref.Hash())
		}
	}
	if len(name) >= 4 && isHex(name) {
		prefix, _ := hex.DecodeString(name[:len(name)&^1])
		hashes, err := r.store.HashesWithPrefix(prefix)
		if err != nil {
			return nil, err
		}
		var found []*Commit
		for _, h := range hashes {
			if !strings.HasPrefix(h.String(), strings.ToLower(name)) {
				continue // an odd-length prefix is matched on its even part first
			}
			if c, err := r.peel(h); err == nil {
				found = append(found, c)
			}
		}
		switch len(found) {
		case 1:
			return found[0], nil
		case 0:
		default:
			return nil, fmt.Errorf("the short SHA %s is ambiguous (%d commits start with it)", name, len(found))
		}
	}
	return nil, plumbing.ErrReferenceNotFound
}

// peel is the commit that h names: the commit itself, or what an
// annotated tag (or a tag of a tag) points at.
func (r *Repo) peel(h plumbing.Hash) (*Commit, error) {
	for range 10 {
		obj, err := r.store.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return nil, err
		}
		switch obj.Type() {
		case plumbing.CommitObject:
			return decodeCommit(obj)
		case plumbing.TagObject:
			if h, err = tagTarget(obj); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("%s is a %s, not a commit", h.String()[:7], obj.Type())
		}
	}
	return nil, errors.New("tags nested too deep")
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
