package rules

import (
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/schema"
	"github.com/shipshape-dev/shipshape/internal/yaml11"
	"github.com/shipshape-dev/shipshape/transformers"
)

var ambiguousScalar = Register(&Rule{
	ID:       "ambiguous-scalar",
	Severity: Error,
	Summary:  "An unquoted value in a string field is read by kubectl as a bool, number or null",
	Doc: `kubectl and the Kubernetes API machinery decode manifests as YAML 1.1, where an
unquoted ` + "`yes`, `no`, `on`, `off`, `y`, `n`, `true`" + ` (any spelling) is a boolean,
` + "`1.10`" + ` is the number 1.1, ` + "`0755`" + ` is the octal number 493, ` + "`1e3`" + ` is 1000 and ` + "`~`" + ` is null.
Editors and most YAML 1.2 tools read the same text as strings, so the manifest looks
right and is not: the API server rejects a bool where it expects a string (labels,
annotations, env values), or silently keeps the changed text (` + "`1.10`" + ` becomes
` + "`1.1`" + ` in a ConfigMap).

shipshape knows which fields are strings: metadata labels and annotations of every
object and template, label selectors, pod template fields (nodeSelector, container
args, command, env values, ...) including pod templates inside LeaderWorkerSets,
Service selectors, ConfigMap data, Secret stringData, and every other string field
of a built-in kind, from the Kubernetes API types. Integer and boolean fields, and
fields that accept numbers by design (ports given as IntOrString, resource
quantities such as ` + "`cpu: 0.5`" + `) are never reported. A null (` + "`~`" + `) only counts inside
string maps and lists, where it deletes or blanks the entry.

The fix double-quotes the value, keeping the text you wrote.`,
	Bad: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    active: yes
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          args: [--debug, true]
          env:
            - name: VERSION
              value: 1.10
`,
	Good: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    active: "yes"
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          args: [--debug, "true"]
          env:
            - name: VERSION
              value: "1.10"
`,
	Fixable:    true,
	ValueLevel: true,
	Check:      checkAmbiguous,
})

var (
	objectMetaType, _    = schema.Named("ObjectMeta")
	podTemplateType, _   = schema.Named("PodTemplateSpec")
	labelSelectorType, _ = schema.Named("LabelSelector")
	stringMapType        = func() schema.Type { t, _ := schema.Named("ObjectMeta"); l, _ := t.Field("labels"); return l }()
)

// scalarWalker visits the string positions of one object.
type scalarWalker struct {
	p    *Pass
	path fieldPath
}

func checkAmbiguous(p *Pass) {
	w := &scalarWalker{p: p, path: make(fieldPath, 0, 16)}
	obj := p.Object
	if t, ok := schema.ForObject(obj.APIVersion, obj.Kind); ok {
		w.typed(obj.Node, t, false)
		return
	}
	switch {
	case obj.Kind == "Kustomization" && obj.Group() == "kustomize.config.k8s.io":
		w.kustomization(obj.Node)
	case obj.Kind == "CustomResourceDefinition":
		// Its schema mentions metadata, selectors and templates as
		// property names; only its own metadata holds values.
		w.field(obj.Node, "metadata", objectMetaType)
	default:
		w.generic(obj.Node)
	}
}

func (w *scalarWalker) field(m *yaml.Node, key string, t schema.Type) {
	if v := manifest.MapGet(m, key); v != nil {
		n := len(w.path)
		w.path = w.path.key(key)
		w.typed(v, t, false)
		w.path = w.path[:n]
	}
}

// kustomization covers the string maps kustomize reads with a YAML 1.1
// decoder too.
func (w *scalarWalker) kustomization(root *yaml.Node) {
	w.field(root, "metadata", objectMetaType)
	w.field(root, "commonLabels", stringMapType)
	w.field(root, "commonAnnotations", stringMapType)
	if labels := manifest.MapGet(root, "labels"); labels != nil && labels.Kind == yaml.SequenceNode {
		for i, l := range labels.Content {
			n := len(w.path)
			w.path = w.path.key("labels").index(i)
			w.field(l, "pairs", stringMapType)
			w.path = w.path[:n]
		}
	}
}

// generic walks a custom resource: its metadata, and wherever it embeds
// something shaped like a pod template or a label selector.
func (w *scalarWalker) generic(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			depth := len(w.path)
			w.path = w.path.key(k.Value)
			switch {
			case k.Value == "metadata" && v.Kind == yaml.MappingNode:
				w.typed(v, objectMetaType, false)
			case looksLikePodTemplate(v):
				w.typed(v, podTemplateType, false)
			case looksLikeSelector(v):
				w.typed(v, labelSelectorType, false)
			default:
				w.generic(v)
			}
			w.path = w.path[:depth]
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			depth := len(w.path)
			w.path = w.path.index(i)
			w.generic(c)
			w.path = w.path[:depth]
		}
	}
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

// typed walks n as API type t. inCollection is set for list items and map
// values, where a null deletes or blanks an entry instead of unsetting a field.
func (w *scalarWalker) typed(n *yaml.Node, t schema.Type, inCollection bool) {
	switch t.Kind() {
	case schema.String, schema.Bytes:
		w.scalar(n, inCollection, false)
	case schema.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := t.Field(k.Value)
			if !ok || ft.IsScalar() && ft.Kind() != schema.String && ft.Kind() != schema.Bytes {
				continue
			}
			depth := len(w.path)
			w.path = w.path.key(k.Value)
			w.typed(v, ft, false)
			w.path = w.path[:depth]
		}
	case schema.List:
		if n.Kind != yaml.SequenceNode {
			return
		}
		elem := t.Elem()
		for i, c := range n.Content {
			depth := len(w.path)
			w.path = w.path.index(i)
			w.typed(c, elem, true)
			w.path = w.path[:depth]
		}
	case schema.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		elem := t.Elem()
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			depth := len(w.path)
			w.path = w.path.key(k.Value)
			w.scalar(k, true, true)
			w.typed(v, elem, true)
			w.path = w.path[:depth]
		}
	case schema.Unknown:
		w.generic(n)
	}
}

func (w *scalarWalker) scalar(n *yaml.Node, inCollection, isKey bool) {
	// Quoted, block, tagged and alias nodes are strings already (or not
	// scalars); only plain text is re-read by YAML 1.1.
	if n.Kind != yaml.ScalarNode || n.Style != 0 {
		return
	}
	v, ok := yaml11.Resolve(n.Value)
	if !ok || v.Kind == yaml11.Null && !inCollection {
		return
	}
	quoted := strconv.Quote(n.Value)
	if isKey {
		// Non-string keys are turned back into text on the way to JSON:
		// 404 stays "404", but on becomes "true" and 0x1F becomes "31".
		if v.Kind != yaml11.Null && v.Text == n.Value {
			return
		}
		w.p.Report(n, w.path.String(), transformers.Quote(n),
			"unquoted key %s is read by kubectl (YAML 1.1) as %s, so the key becomes %s, not %s: quote it (%s)",
			n.Value, v.Describe(), keyText(v), quoted, quoted)
		return
	}
	shown := n.Value
	if shown == "" {
		shown = "(empty)"
	}
	w.p.Report(n, w.path.String(), transformers.Quote(n),
		"unquoted value %s is read by kubectl (YAML 1.1) as %s, not the string %s: quote it (%s)",
		shown, v.Describe(), quoted, quoted)
}

func keyText(v yaml11.Value) string {
	if v.Kind == yaml11.Null {
		return "invalid (a null key is rejected)"
	}
	return strconv.Quote(v.Text)
}
