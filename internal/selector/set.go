package selector

import (
	"cmp"
	"iter"
	"slices"

	"github.com/shipshape-dev/shipshape/internal/intern"
)

// Label is one label of a Set.
type Label struct{ Key, Value string }

// Set is a label map in the compact form the cross-resource summaries
// keep until a run's end: sorted by key, each key once, key and value
// interned (a map of a few labels costs several times the slice, and the
// texts repeat across objects). Plain data: it round-trips through
// encoding/json.
type Set []Label

// SetOf returns m as a Set; nil when m is empty.
func SetOf(m map[string]string) Set {
	if len(m) == 0 {
		return nil
	}
	s := make(Set, 0, len(m))
	for k, v := range m {
		s = append(s, Label{intern.String(k), intern.String(v)})
	}
	slices.SortFunc(s, func(a, b Label) int { return cmp.Compare(a.Key, b.Key) })
	return s
}

// All yields s's keys and values, by key.
func (s Set) All() iter.Seq2[string, string] {
	return func(yield func(k, v string) bool) {
		for _, l := range s {
			if !yield(l.Key, l.Value) {
				return
			}
		}
	}
}

// Get returns the value of key k, and whether s has it.
func (s Set) Get(k string) (string, bool) {
	i, ok := slices.BinarySearchFunc(s, k, func(l Label, k string) int { return cmp.Compare(l.Key, k) })
	if !ok {
		return "", false
	}
	return s[i].Value, true
}

// MatchesSet is Matches over a Set.
func (s *Selector) MatchesSet(labels Set) (ok bool, failed *Requirement) {
	if s == nil {
		return false, nil
	}
	for i := range s.Requirements {
		r := &s.Requirements[i]
		if v, has := labels.Get(r.Key); !r.matchesValue(v, has) {
			return false, r
		}
	}
	return true, nil
}
