package fixer

import (
	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/transformers"
)

// collapseEmptied rewrites, in a kustomize patch, each deletion of the
// only entry of a mapping into the deletion of that mapping's own entry,
// upwards, so that a fix leaves no `spec: {}` behind: a patch without
// the emptied mapping merges the same (kustomize applies a patch of
// metadata alone). It stops at the object's root entries that name the
// patch's target (apiVersion, kind, metadata), at list items, and at a
// mapping another of the edits also changes.
func collapseEmptied(root *yaml.Node, edits []transformers.Edit) []transformers.Edit {
	touched := map[*yaml.Node]int{}
	for _, e := range edits {
		touched[e.Parent]++
	}
	out := make([]transformers.Edit, 0, len(edits))
	for _, e := range edits {
		for e.Op == transformers.DeleteEntry && e.Parent != root && len(e.Parent.Content) == 2 && touched[e.Parent] <= 1 {
			parent, key := entryHolding(root, e.Parent)
			if parent == nil || parent == root && (key.Value == "apiVersion" || key.Value == "kind" || key.Value == "metadata") {
				break
			}
			e = transformers.Edit{Op: transformers.DeleteEntry, Parent: parent, Node: key}
		}
		out = append(out, e)
	}
	return out
}

// entryHolding returns the mapping under root that holds value as the
// value of one of its entries, with that entry's key; nils when value is
// a list item or not under root.
func entryHolding(root, value *yaml.Node) (parent, key *yaml.Node) {
	if root == nil {
		return nil, nil
	}
	switch root.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i+1] == value {
				return root, root.Content[i]
			}
			if p, k := entryHolding(root.Content[i+1], value); p != nil {
				return p, k
			}
		}
	case yaml.SequenceNode:
		for _, item := range root.Content {
			if p, k := entryHolding(item, value); p != nil {
				return p, k
			}
		}
	}
	return nil, nil
}
