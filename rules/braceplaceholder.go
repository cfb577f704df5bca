package rules

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// bracePlaceholder is the text between the braces of a flow mapping whose
// keys all have no value (`volumeID: {volume-id}`): a placeholder in
// braces, which YAML reads as a mapping of one key to null; "" for any
// other node.
func bracePlaceholder(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode || n.Style&yaml.FlowStyle == 0 || len(n.Content) == 0 {
		return ""
	}
	var keys []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Style != 0 || v.Kind != yaml.ScalarNode || v.Tag != "!!null" || v.Value != "" {
			return ""
		}
		keys = append(keys, k.Value)
	}
	return strings.Join(keys, ", ")
}
