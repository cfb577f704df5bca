// Package rules holds shipshape's checks, one file per rule. A rule is an
// analysis.Rule: metadata plus a small function over a pass; see README.md
// in this directory for how to add one. The package is only implementations:
// the vocabulary is internal/analysis, and drivers get the rules from All.
package rules

//go:generate go run ../internal/cmd/gendocs ../docs/rules.md

import (
	"sort"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

var registry = map[string]*analysis.Rule{}

// Register adds a rule; rules register themselves from their own file.
// The rule's Doc, Bad and Good come from its files under doc/ (see
// readDoc), never from Go strings.
func Register(r *analysis.Rule) *analysis.Rule {
	if _, dup := registry[r.ID]; dup {
		panic("rules: duplicate rule " + r.ID)
	}
	if r.Doc != "" || r.Bad != "" || r.Good != "" {
		panic("rules: " + r.ID + " sets Doc, Bad or Good in Go; they are read from rules/doc/" + r.ID + ".md and rules/doc/" + r.ID + "/")
	}
	r.Doc, r.Bad, r.Good = readDoc(r.ID)
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
