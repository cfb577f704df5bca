package render

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// What a rendered object is reduced to once judged, and the values
// kustomize cannot write.

// Skeleton is what the rendered object n keeps once its root is judged
// and no finding of it is left to place: its apiVersion, kind and
// metadata (which patch targets select by), without the rest (a CRD's
// schema is most of a bundle's bytes).
func Skeleton(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return n
	}
	out := *n
	out.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case "apiVersion", "kind", "metadata":
			out.Content = append(out.Content, n.Content[i], n.Content[i+1])
		}
	}
	return &out
}

// nonFinite is the path below n (at p) of the first float that is an
// infinity or NaN, and how JSON would name it; nil when there is none.
func nonFinite(n *yaml.Node, p Path) (Path, string) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() == "!!float" {
			switch strings.ToLower(strings.TrimPrefix(n.Value, "+")) {
			case ".inf":
				return p, "+Inf"
			case "-.inf":
				return p, "-Inf"
			case ".nan":
				return p, "NaN"
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if q, v := nonFinite(n.Content[i+1], p.Key(n.Content[i].Value)); q != nil {
				return q, v
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if q, v := nonFinite(c, p.Idx(i)); q != nil {
				return q, v
			}
		}
	}
	return nil, ""
}
