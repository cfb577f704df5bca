package analysis

import (
	"fmt"
	"strings"
)

// Targets is the set of inputs a rule judges, declared on the rule; the
// engine gives each object to the rules whose targets include what the
// object is. A rule targets Objects or SourceFiles, never both: it judges
// objects as they are applied, or files as they are read.
type Targets uint8

const (
	// Objects are the objects as applied: a plain manifest's objects and
	// a kustomize root's rendered objects (never the root's sources,
	// whose findings the engine places in them).
	Objects Targets = 1 << iota
	// Patches are partial objects (kustomize patches): for rules that
	// judge single values, which a patch sets like a whole object does.
	Patches
	// SourceFiles are the files as read, a kustomize root's bases and
	// patches and kuttl or chainsaw assert files included, and never
	// rendered objects: rules about how a file is read (YAML 1.1
	// scalars, duplicate keys).
	SourceFiles
	// RenderedValues are the values of a rendered object that no file
	// shows as it is read (set by a JSON patch or a patch written inline
	// in a kustomization), judged by the rule's Rendered visitor. Only
	// with SourceFiles.
	RenderedValues
	// Changes are the changes `lint --base` judges: an application's
	// objects at the base revision beside those at head, given to the
	// rule's Change (see ChangePass). Only alone, and only with Change.
	Changes
)

// targetNames are the targets in their bit order, as docs name them.
var targetNames = []struct {
	t    Targets
	name string
}{
	{Objects, "objects"},
	{Patches, "kustomize patches"},
	{SourceFiles, "source files as read"},
	{RenderedValues, "values set by JSON or inline patches"},
	{Changes, "changes from the base revision (lint --base)"},
}

// Has reports whether every target of u is in t.
func (t Targets) Has(u Targets) bool { return t&u == u }

// String lists the targets, as explain shows them.
func (t Targets) String() string {
	var names []string
	for _, n := range targetNames {
		if t.Has(n.t) {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Setting is a configuration key a rule reads: shown by explain and in
// docs/rules.md, so a user finds what changes a rule where the rule is.
type Setting struct {
	Name    string // the key as written in .shipshape.yaml's spec, dotted: lws.engine
	Default string // what an unset key means
	Doc     string // what the value changes in the rule, one sentence
}

// DeclarationError says what is wrong with how r declares its targets:
// nil for a rule the engine can dispatch.
func DeclarationError(r *Rule) error {
	t := r.Targets
	switch {
	case r.Change != nil || t.Has(Changes):
		if t != Changes || r.Change == nil || r.Check != nil || r.Visit != nil || r.Cross != nil || r.CheckFile != nil {
			return fmt.Errorf("%s: a change rule sets Change alone and Targets: analysis.Changes, got %s", r.ID, t)
		}
	case r.Check == nil && r.Visit == nil && r.Cross == nil && r.CheckFile == nil:
		return nil // reported by the engine itself (yaml-syntax, ...)
	case r.Check == nil && r.Visit == nil && r.CheckFile == nil:
		if t != Objects {
			return fmt.Errorf("%s: a cross-resource rule judges objects only (Targets: analysis.Objects), got %s", r.ID, t)
		}
	case t.Has(Objects) == t.Has(SourceFiles):
		return fmt.Errorf("%s: Targets has either Objects or SourceFiles, got %s", r.ID, t)
	case t.Has(RenderedValues) && !t.Has(SourceFiles):
		return fmt.Errorf("%s: RenderedValues goes with SourceFiles", r.ID)
	case t.Has(RenderedValues) != (r.Rendered != nil):
		return fmt.Errorf("%s: RenderedValues and the Rendered visitor go together", r.ID)
	}
	return nil
}
