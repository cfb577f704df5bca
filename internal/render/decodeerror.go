package render

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/yaml11"
)

// decodeErrorAt finds the node of a kustomization that encoding/json could
// not decode into a field below the top level, from kustomize's message:
//
//	json: cannot unmarshal number into Go struct field Image.images.newTag of type string
//	json: cannot unmarshal bool into Go struct field Selector.patches.target.ResId.name of type string
//
// The message names the innermost struct, then the field's path from the
// root with neither list indexes nor the keys of a map, and with the Go
// names of the embedded structs it went through (ResId). So the path may
// lead to several nodes, one per list item: json stops at the first value
// of the kind it names (number), in document order, which is the one
// returned (the field's value, or the value in the map or list the field
// holds); else the first item's key that has the field, else the list's
// key. nil when the message names no such field.
func decodeErrorAt(doc *yaml.Node, msg string) *yaml.Node {
	const unmarshal, into, ofType = "json: cannot unmarshal ", " into Go struct field ", " of type "
	_, rest, ok := strings.Cut(msg, unmarshal)
	if !ok {
		return nil
	}
	got, rest, ok := strings.Cut(rest, into)
	if !ok {
		return nil
	}
	got, _, _ = strings.Cut(got, " ") // "number 1.5" for a fraction in an integer
	field, _, ok := strings.Cut(rest, ofType)
	if !ok || doc == nil {
		return nil
	}
	steps := strings.Split(field, ".")[1:] // after the struct's name
	if len(steps) == 0 {
		return nil
	}
	hits := fieldNodes(doc, nil, steps, nil)
	for _, h := range hits {
		if jsonKind(h.val) == got {
			return h.val
		}
		if h.val.Kind == yaml.MappingNode || h.val.Kind == yaml.SequenceNode {
			// The field is a map or a list: json named it for one of the
			// values it holds.
			for i, c := range h.val.Content {
				if h.val.Kind == yaml.MappingNode && i%2 == 0 {
					continue
				}
				if jsonKind(c) == got {
					return c
				}
			}
		}
	}
	if len(hits) > 0 {
		return hits[0].key
	}
	key, _ := (Path{{Key: steps[0]}}).Get(doc)
	return key
}

// fieldHit is a node that a decode error's path leads to, with its key.
type fieldHit struct{ key, val *yaml.Node }

// fieldNodes appends to hits, in document order, the nodes that steps lead
// to from n (whose key is key): a list's every item is taken in turn, and
// a step naming an embedded struct (capitalised, as Go names it, where
// kustomize's JSON names are not) is skipped when no key is named so.
func fieldNodes(n, key *yaml.Node, steps []string, hits []fieldHit) []fieldHit {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias // kustomize reads the node the alias names
	}
	if len(steps) == 0 {
		return append(hits, fieldHit{key, n})
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, item := range n.Content {
			hits = fieldNodes(item, key, steps, hits)
		}
	case yaml.MappingNode:
		if k, v := jsonField(n, steps[0]); k != nil {
			return fieldNodes(v, k, steps[1:], hits)
		}
		if s := steps[0]; len(steps) > 1 && s != "" && s[0] >= 'A' && s[0] <= 'Z' {
			return fieldNodes(n, key, steps[1:], hits)
		}
	}
	return hits
}

// jsonField is the entry of mapping n that encoding/json decodes into the
// field named name: the key written so, else one that differs only in
// case.
func jsonField(n *yaml.Node, name string) (key, val *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == name {
			return n.Content[i], n.Content[i+1]
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if strings.EqualFold(n.Content[i].Value, name) {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

// jsonKind is the JSON kind of the value kustomize reads from n (YAML 1.1,
// as sigs.k8s.io/yaml converts it), in encoding/json's words: "string",
// "number", "bool", "null", "object", "array".
func jsonKind(n *yaml.Node) string {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "object"
	case yaml.SequenceNode:
		return "array"
	case yaml.ScalarNode:
	default:
		return ""
	}
	var v yaml11.Value
	ok := false
	switch {
	case n.Style&yaml.TaggedStyle != 0:
		v, ok, _ = yaml11.ResolveTagged(n.ShortTag(), n.Value)
	case n.Style == 0:
		v, ok = yaml11.Resolve(n.Value)
	}
	if !ok {
		return "string"
	}
	switch v.Kind {
	case yaml11.Bool:
		return "bool"
	case yaml11.Int, yaml11.Float:
		return "number"
	case yaml11.Null:
		return "null"
	}
	return "string"
}
