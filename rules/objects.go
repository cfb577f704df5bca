package rules

// Helpers that several rules share: what an object is, where its name is,
// how a node reads. A rule's own file keeps what only it uses; what two
// rules need lives here, so no rule calls another rule's private functions.

import (
	"encoding/base64"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/selector"
	"github.com/shipshape-dev/shipshape/internal/yaml11"
)

// nsName is an object's namespace and name, a key across objects.
type nsName struct{ NS, Name string }

// appNS is a namespace of one application.
type appNS struct {
	app analysis.AppID
	ns  string
}

// isService reports a core Service.
func isService(obj *manifest.Object) bool { return obj.Kind == "Service" && obj.APIVersion == "v1" }

// isExternalName reports a Service spec of type ExternalName: a DNS name,
// with no selector and no endpoints.
func isExternalName(spec *yaml.Node) bool {
	return manifest.ScalarValue(manifest.MapGet(spec, "type")) == "ExternalName"
}

// isHPA reports a HorizontalPodAutoscaler of any autoscaling version.
func isHPA(obj *manifest.Object) bool {
	return obj.Kind == "HorizontalPodAutoscaler" && obj.Group() == "autoscaling"
}

// nameNode is the node findings about a whole object point at: its
// metadata.name value, else its kind.
func nameNode(obj *manifest.Object) *yaml.Node {
	if n := manifest.Path(obj.Node, "metadata", "name"); n != nil {
		return n
	}
	_, k := manifest.MapEntry(obj.Node, "kind")
	return k
}

// isDaemonSet reports an apps (or the old extensions) DaemonSet.
func isDaemonSet(obj *manifest.Object) bool {
	return obj.Kind == "DaemonSet" && (obj.Group() == "apps" || obj.Group() == "extensions")
}

// items returns the elements of a sequence node (none for anything else).
func items(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// quote double-quotes s for a message, its quotes escaped.
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// labelList writes a selector's labels as app=rng, active=yes, in key
// order.
func labelList(s selector.Set) string {
	parts := make([]string, 0, len(s))
	for k, v := range s.All() {
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ", ")
}

// sortedKeys is the keys of m in order, for messages that read the same
// on every run.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// isPlaceholder reports a value a tool fills in before the apply: an
// envsubst or Flux variable (${VAR}), or a Go template's field
// ({{.Replica}}: kube-burner, in a plain value the file still parses
// with).
func isPlaceholder(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && placeholder(n.Value)
}

// placeholder reports a string holding such a variable or field.
func placeholder(s string) bool { return strings.Contains(s, "${") || strings.Contains(s, "{{") }

// join appends a relative path such as "matchLabels.app" to a prefix.
func join(prefix, rel string) string {
	switch {
	case prefix == "":
		return rel
	case rel == "" || rel[0] == '[':
		return prefix + rel
	}
	return prefix + "." + rel
}

// jsonKind is the JSON type kubectl turns a YAML node into.
type jsonKind uint8

const (
	jsonUnknown jsonKind = iota // an alias or a tag kubectl does not resolve
	jsonNull
	jsonBool
	jsonInt
	jsonFloat
	jsonString
	jsonArray
	jsonObject
)

// jsonValue tells what kubectl (YAML 1.1, then JSON) makes of n without
// expanding anything: an alias is judged by the node it names, which is
// looked at, never walked.
func jsonValue(n *yaml.Node) (jsonKind, yaml11.Value) {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return jsonUnknown, yaml11.Value{}
		}
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		return jsonObject, yaml11.Value{}
	case yaml.SequenceNode:
		return jsonArray, yaml11.Value{}
	case yaml.ScalarNode:
	default:
		return jsonUnknown, yaml11.Value{}
	}
	str := yaml11.Value{Kind: yaml11.String, Text: n.Value}
	if n.Style&yaml.TaggedStyle != 0 {
		switch n.Tag {
		case "!!str":
			return jsonString, str
		case "!!binary":
			// v2 decodes it, and the decoded bytes are the JSON string.
			b, err := base64.StdEncoding.DecodeString(n.Value)
			if err != nil {
				return jsonUnknown, yaml11.Value{}
			}
			return jsonString, yaml11.Value{Kind: yaml11.String, Text: string(b)}
		case "!!null":
			return jsonNull, yaml11.Value{Kind: yaml11.Null, Text: "null"}
		case "!!bool", "!!int", "!!float":
			if v, ok := yaml11.Resolve(n.Value); ok {
				return kindOf(v), v
			}
		}
		return jsonUnknown, yaml11.Value{}
	}
	if n.Style != 0 {
		return jsonString, str // quoted, literal or folded
	}
	if v, ok := yaml11.Resolve(n.Value); ok {
		return kindOf(v), v
	}
	return jsonString, str
}

// kindOf is the JSON type of a resolved YAML 1.1 scalar.
func kindOf(v yaml11.Value) jsonKind {
	switch v.Kind {
	case yaml11.Null:
		return jsonNull
	case yaml11.Bool:
		return jsonBool
	case yaml11.Int:
		return jsonInt
	case yaml11.Float:
		return jsonFloat
	}
	return jsonString
}

// walkPath walks path from n as far as it goes: the node reached and how
// many elements of path were walked.
func walkPath(n *yaml.Node, path manifest.FieldPath) (*yaml.Node, int) {
	for i, el := range path {
		var next *yaml.Node
		switch {
		case el.Index < 0:
			next = manifest.MapGet(n, el.Key)
		case n != nil && n.Kind == yaml.SequenceNode && el.Index < len(n.Content):
			next = n.Content[el.Index]
		}
		if next == nil {
			return n, i
		}
		n = next
	}
	return n, len(path)
}
