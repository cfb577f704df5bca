// Package transformers applies fixes: each primitive edit has two
// appliers, written once, on the node tree (KRM function mode) and on the
// source bytes (file mode), so that fixing a file changes only the bytes it
// must. Rules address their edits by object and field path
// (analysis.Edit); Resolve turns such an edit into an Edit on one parse,
// the form the appliers take. The package also holds the pure LWS ordering
// transformer (lws.go).
package transformers

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Op names a primitive edit.
type Op int

const (
	// QuoteScalar double-quotes the scalar Node, keeping the text the author
	// wrote: `active: yes` becomes `active: "yes"`. Works for keys and for
	// scalars inside flow collections.
	QuoteScalar Op = iota + 1
	// DeleteEntry removes the entry whose key node is Node from the block
	// mapping Parent, with the entry's trailing comment and the comment
	// lines directly above it.
	DeleteEntry
	// RenameKey replaces the key scalar Node's text with Value.
	RenameKey
	// SetEntry makes Parent (a mapping) hold Path[0]: Path[1]: ... : Key: Value,
	// creating the intermediate mappings that are missing. Value is a string
	// and is written double-quoted when it would not read back as that
	// string. An existing Key is overwritten.
	SetEntry
)

func (o Op) String() string {
	switch o {
	case QuoteScalar:
		return "quote"
	case DeleteEntry:
		return "delete"
	case RenameKey:
		return "rename"
	case SetEntry:
		return "set"
	}
	return "op?"
}

// Edit is one primitive edit. Node positions (Line, Column) must refer to
// the source the byte applier is given.
type Edit struct {
	Op     Op
	Parent *yaml.Node // DeleteEntry, SetEntry: the mapping
	Node   *yaml.Node // QuoteScalar: the scalar; DeleteEntry, RenameKey: the key
	Path   []string   // SetEntry: intermediate keys below Parent
	Key    string     // SetEntry: the final key
	Value  string     // RenameKey: the new key; SetEntry: the value
}

// Resolve turns an edit addressed by field path from an object's root
// into an Edit on root's tree: the one resolver that fix (files, streams)
// and fn (ResourceList items) use. It fails when the path does not lead to
// what the operation needs.
func Resolve(root *yaml.Node, e analysis.Edit) (Edit, error) {
	if len(e.Path) == 0 {
		return Edit{}, errors.New("empty field path")
	}
	if e.Op == analysis.Set {
		var keys []string
		for _, s := range e.Path {
			if s.Index >= 0 {
				return Edit{}, fmt.Errorf("%s: set goes through a list", e.Path)
			}
			keys = append(keys, s.Key)
		}
		return Edit{Op: SetEntry, Parent: root, Path: keys[:len(keys)-1], Key: keys[len(keys)-1], Value: e.Value}, nil
	}
	parent, key, value, ok := manifest.Lookup(root, e.Path)
	if !ok {
		return Edit{}, fmt.Errorf("%s is not in the object", e.Path)
	}
	switch e.Op {
	case analysis.Quote:
		n := value
		if e.OnKey {
			n = key
		}
		if n == nil || n.Kind != yaml.ScalarNode {
			return Edit{}, fmt.Errorf("%s is not a scalar", e.Path)
		}
		return Edit{Op: QuoteScalar, Node: n}, nil
	case analysis.Delete, analysis.Rename:
		if key == nil {
			return Edit{}, fmt.Errorf("%s is not a mapping entry", e.Path)
		}
		if e.Op == analysis.Delete {
			return Edit{Op: DeleteEntry, Parent: parent, Node: key}, nil
		}
		return Edit{Op: RenameKey, Node: key, Value: e.Value}, nil
	}
	return Edit{}, fmt.Errorf("unknown edit %s", e.Op)
}

// ObjectRoot returns the object at item of a document's root: the root
// itself, or for item >= 0 that entry of a List's items.
func ObjectRoot(root *yaml.Node, item int) *yaml.Node {
	if item < 0 {
		return root
	}
	items := manifest.MapGet(root, "items")
	if items == nil || items.Kind != yaml.SequenceNode || item >= len(items.Content) {
		return nil
	}
	return items.Content[item]
}
