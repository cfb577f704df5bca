package schemawalk

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/schema"
)

// The types the walk gives nodes the schema does not type: the values of
// a custom resource or a free-form field, guessed by what they look like,
// and the fields of a Flux Kustomization the API server types.

// guess types the values of a mapping of Unknown type (a custom resource,
// a free-form field) by what they look like.
func guess(k, v *yaml.Node) (schema.Type, reading) {
	switch {
	case k.Value == "metadata" && v.Kind == yaml.MappingNode:
		return objectMetaType, typed
	case looksLikePodTemplate(v):
		return podTemplateType, typed
	case looksLikeSelector(v):
		return labelSelectorType, typed
	}
	return schema.Type{}, typed
}

// fluxField is the type of key k of the mapping at c in a Flux
// Kustomization, for the fields of strings the API server holds to their
// type (a Kustomization with substitute: {UID: 568} is refused, and the
// whole sync stops): spec.postBuild.substitute and spec.commonMetadata's
// labels and annotations (maps of strings), spec.images (kustomize's
// images) and spec.targetNamespace, namePrefix and nameSuffix.
func fluxField(c *Cursor, k *yaml.Node) (schema.Type, bool) {
	if len(c.Path) == 0 || len(c.Path) > 2 || c.Path[0].Key != "spec" {
		return schema.Type{}, false
	}
	var t schema.Type
	switch {
	case len(c.Path) == 2 && c.Path[1].Key == "postBuild" && k.Value == "substitute",
		len(c.Path) == 2 && c.Path[1].Key == "commonMetadata" && (k.Value == "labels" || k.Value == "annotations"):
		t = stringMapType
	case len(c.Path) == 1 && k.Value == "images":
		t = imagesType
	case len(c.Path) == 1 && (k.Value == "targetNamespace" || k.Value == "namePrefix" || k.Value == "nameSuffix"):
		t = stringType
	default:
		return schema.Type{}, false
	}
	root := c
	for root.Parent != nil {
		root = root.Parent
	}
	group, _, _ := strings.Cut(manifest.ScalarValue(manifest.MapGet(root.Node, "apiVersion")), "/")
	return t, group == "kustomize.toolkit.fluxcd.io"
}

func looksLikePodTemplate(n *yaml.Node) bool {
	c := manifest.Path(n, "spec", "containers")
	return c != nil && c.Kind == yaml.SequenceNode
}

func looksLikeSelector(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k != "matchLabels" && k != "matchExpressions" {
			return false
		}
	}
	return len(n.Content) > 0
}
