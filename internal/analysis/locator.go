package analysis

import (
	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Locator is where a cross-resource rule will report about an object, if
// it reports at all: what placing a finding needs (the object, the node's
// position and field path) without the rest of a Finding. A summary keeps
// one per Service, controller or route until Finish, over a large tree
// tens of thousands of them, so it is under half a Finding's size; Finish
// builds the Finding (Finding) only for what it reports.
//
// It is plain exported data: summaries carry it through the per-file
// cache (internal/bincodec).
type Locator struct {
	Resource manifest.Resource
	Field    string // dotted path of the node, as Finding.Field
	File     string
	// Line and Column are the node's (1-based; 0 when there is no node).
	Line, Column int32
	// Doc and Item place the object in File, as Finding's.
	Doc, Item int32
	// Rendered: an object kustomize rendered (see Finding.Rendered).
	Rendered bool
}

// Locate is where node n (at dotted path path) of the pass's object is:
// what Finding(n, path, nil, "") places, kept small.
func (p *Pass) Locate(n *yaml.Node, path string) Locator {
	l := Locator{
		Resource: p.Object.Resource,
		Field:    path,
		File:     p.Object.File,
		Doc:      int32(p.Object.Doc),
		Item:     int32(p.Object.Item),
		Rendered: p.Object.Root != "",
	}
	if n != nil {
		l.Line, l.Column = int32(n.Line), int32(n.Column)
	}
	return l
}

// Finding is a finding at l, with no rule, message or fix yet: a
// CrossPass's Report gives it the rule and severity of the rule
// reporting it; the caller sets the message.
func (l Locator) Finding() Finding {
	return Finding{
		Resource: l.Resource,
		Field:    l.Field,
		File:     l.File,
		Line:     int(l.Line),
		Column:   int(l.Column),
		Doc:      int(l.Doc),
		Item:     int(l.Item),
		Rendered: l.Rendered,
	}
}
