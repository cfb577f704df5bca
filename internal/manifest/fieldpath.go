package manifest

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FieldPath addresses a node inside an object by the keys and indexes that
// lead to it from the object's root. Fixes are addressed this way rather
// than by node pointer, so that they can be planned on one parse and
// applied to another (the file read again, a ResourceList item, and later
// the source a rendered value came from).
type FieldPath []PathElem

// PathElem is one step: a mapping key, or a sequence index.
type PathElem struct {
	Key string
	// Index is the sequence index, or -1 for a mapping key.
	Index int
	// Nth tells apart keys that appear more than once in one mapping
	// (duplicate-key findings): 0 is the first occurrence.
	Nth int
}

// Key appends a mapping key. Like append, it may reuse p's array, which
// lets walkers keep the path as a stack without allocating; a path that is
// kept must be cloned (slices.Clone).
func (p FieldPath) Key(k string) FieldPath { return append(p, PathElem{Key: k, Index: -1}) }

// Index appends a sequence index, as Key does.
func (p FieldPath) Index(i int) FieldPath { return append(p, PathElem{Index: i}) }

// Keys is the path of the nested mapping keys ks.
func Keys(ks ...string) FieldPath {
	p := make(FieldPath, 0, len(ks))
	for _, k := range ks {
		p = p.Key(k)
	}
	return p
}

// String renders spec.template.metadata.labels.active, containers[0].args[1]
// and labels["app.kubernetes.io/name"] for keys that contain dots: the
// form findings show.
func (p FieldPath) String() string {
	var b strings.Builder
	for _, s := range p {
		if s.Index >= 0 {
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
			continue
		}
		if strings.ContainsAny(s.Key, ".[]\" ") || s.Key == "" {
			b.WriteString("[" + strconv.Quote(s.Key) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
	}
	return b.String()
}

// PathTo finds target below root and returns its path, and whether target
// is a mapping key (the path then names its entry). Aliases are not
// followed: a node reached through an alias is addressed where its anchor
// stands. Fixes are rare, so a search per fix costs less than carrying
// paths through every walk.
func PathTo(root, target *yaml.Node) (p FieldPath, isKey, ok bool) {
	var walk func(n *yaml.Node) bool
	walk = func(n *yaml.Node) bool {
		if n == target {
			return true
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				p = append(p, PathElem{Key: k.Value, Index: -1, Nth: nth(n, i)})
				if k == target {
					isKey = true
					return true
				}
				if walk(n.Content[i+1]) {
					return true
				}
				p = p[:len(p)-1]
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				p = append(p, PathElem{Index: i})
				if walk(c) {
					return true
				}
				p = p[:len(p)-1]
			}
		case yaml.DocumentNode:
			for _, c := range n.Content {
				if walk(c) {
					return true
				}
			}
		}
		return false
	}
	if root == nil || target == nil {
		return nil, false, false
	}
	ok = walk(root)
	return p, isKey, ok
}

// nth counts the keys before entry i of m that have its key's text.
func nth(m *yaml.Node, i int) int {
	n := 0
	for j := 0; j < i; j += 2 {
		if m.Content[j].Value == m.Content[i].Value {
			n++
		}
	}
	return n
}

// Lookup follows p from root. For a path ending in a key it returns the
// mapping holding the entry, and the entry's key and value nodes; for one
// ending in an index, the sequence and the element (key nil). ok is false
// when a step is missing or a node has the wrong kind.
func Lookup(root *yaml.Node, p FieldPath) (parent, key, value *yaml.Node, ok bool) {
	n := root
	for _, s := range p {
		parent, key, value = n, nil, nil
		switch {
		case s.Index >= 0:
			if n == nil || n.Kind != yaml.SequenceNode || s.Index >= len(n.Content) {
				return nil, nil, nil, false
			}
			value = n.Content[s.Index]
		default:
			if n == nil || n.Kind != yaml.MappingNode {
				return nil, nil, nil, false
			}
			seen := 0
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Value == s.Key && k.Kind == yaml.ScalarNode {
					if seen == s.Nth {
						key, value = k, n.Content[i+1]
						break
					}
					seen++
				}
			}
			if key == nil {
				return nil, nil, nil, false
			}
		}
		n = value
	}
	return parent, key, value, len(p) > 0
}
