// Package rules holds shipshape's checks, one file per rule. A rule is an
// analysis.Rule: metadata plus a small function over a pass; see README.md
// in this directory for how to add one. The package is only implementations:
// the vocabulary is internal/analysis, and drivers get the rules from All.
package rules

//go:generate go run ../internal/cmd/gendocs ../docs/rules.md

import (
	"sort"
	"sync"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

var registry = map[string]*analysis.Rule{}

// Register adds a rule; rules register themselves from their own file.
// The rule's documentation comes from its files under doc/ (see readDoc),
// never from Go strings, and is read at its first use (explain, docs,
// SARIF): Register runs for every rule while the package initialises, in
// every run of shipshape, and copying all of it there cost a quarter of a
// millisecond of start-up (docs/performance.md, "Start-up").
func Register(r *analysis.Rule) *analysis.Rule {
	if _, dup := registry[r.ID]; dup {
		panic("rules: duplicate rule " + r.ID)
	}
	if r.Docs != nil {
		panic("rules: " + r.ID + " sets Docs in Go; its documentation is read from rules/doc/" + r.ID + ".md and rules/doc/" + r.ID + "/")
	}
	id := r.ID
	r.Docs = sync.OnceValue(func() analysis.Documentation { return readDoc(id) })
	registry[r.ID] = r
	return r
}

// All returns every registered rule sorted by ID.
func All() []*analysis.Rule {
	out := make([]*analysis.Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Get returns the rule with the given ID, or nil.
func Get(id string) *analysis.Rule { return registry[id] }
