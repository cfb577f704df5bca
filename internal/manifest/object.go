// Package manifest reads Kubernetes manifests into yaml.v3 node trees with
// exact positions: files, directories, stdin, multi-document streams and
// `kind: List` items.
package manifest

import "go.yaml.in/yaml/v3"

// Resource identifies an object the way kubectl does.
type Resource struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
}

// Label names the resource for people, as every output does:
// "Deployment/web", or "Deployment/web (namespace prod)" when the object
// declares a namespace; "Deployment" when it has no name, "web" when it
// has no kind, "" when there is nothing to name. It is raw text: callers
// escape it for where it goes.
func (r Resource) Label() string {
	var s string
	switch {
	case r.Kind != "" && r.Name != "":
		s = r.Kind + "/" + r.Name
	case r.Kind != "":
		s = r.Kind
	case r.Name != "":
		s = r.Name
	default:
		return ""
	}
	if r.Namespace != "" {
		s += " (namespace " + r.Namespace + ")"
	}
	return s
}

// Object is one Kubernetes object (a document, or an item of a List).
type Object struct {
	Resource
	File string
	// Doc is the 0-based index of the YAML document within File.
	Doc int
	// Node is the object's mapping node; node lines are absolute in File.
	Node *yaml.Node
	// Partial marks kustomize patches: only the rules that target
	// analysis.Patches (they judge single values) judge them.
	Partial bool
	// Patch is set when the file is listed as a patch (Context.Patch),
	// not only guessed to be one (Partial).
	Patch bool
	// Assertion marks the objects of a kuttl or chainsaw test's assert or
	// errors file (Partial too): compared with a cluster, never applied,
	// and written with expressions for keys ("(replicas >= `1`)"), so only
	// the rules about how a file is read judge them.
	Assertion bool
	// Implied marks the Kustomization of a kustomization file that leaves
	// out apiVersion or kind: typed as kustomize reads it, but not counted
	// as a resource, as a file without them never was.
	Implied bool
	// Item is the index within a `kind: List`, or -1.
	Item int
	// SelectorLabels are added to selectors and pod templates by the
	// kustomization that lists the file (see Context).
	SelectorLabels map[string]string
	// Kustomize names the kustomize roots that read the object's file
	// (see Context): the object is a source, read by kustomize.
	Kustomize []string
	// Unrendered: the object's file is read by kustomize roots that did
	// not render (see Context).
	Unrendered bool
	// Root is, for an object kustomize rendered, the kustomization file of
	// its root; "" for an object as written.
	Root string
	// Substituted is, for an object after a Flux Kustomization's
	// post-build variable substitution, that Kustomization's file: its
	// values are what kustomize-controller read back as YAML 1.1.
	Substituted string

	memo map[string]any // see Memo
}

// Memo returns what compute gives for key on this object, computing it the
// first time. An object is judged on one goroutine, so no lock is needed.
func (o *Object) Memo(key string, compute func() any) any {
	if v, ok := o.memo[key]; ok {
		return v
	}
	v := compute()
	if o.memo == nil {
		o.memo = map[string]any{}
	}
	o.memo[key] = v
	return v
}

// Unmemoized is a copy of o without what Memo kept: the same object seen
// again as part of another application (a file two Argo CD Applications
// apply), whose summaries must be values of their own, not shared.
func (o *Object) Unmemoized() *Object {
	c := *o
	c.memo = nil
	return &c
}

// IsKustomization reports a kustomization file's own document: a
// Kustomization or Component of kustomize.config.k8s.io, which kustomize
// reads as kubectl reads manifests, into its own Go types.
func (r Resource) IsKustomization() bool {
	return (r.Kind == "Kustomization" || r.Kind == "Component") && r.Group() == "kustomize.config.k8s.io"
}

// Group returns the API group of the object's apiVersion ("" for core).
func (r Resource) Group() string {
	for i := 0; i < len(r.APIVersion); i++ {
		if r.APIVersion[i] == '/' {
			return r.APIVersion[:i]
		}
	}
	return ""
}

// EffectiveNamespace folds the empty namespace into "default", the way the
// API server places namespaced objects that do not name one.
func (r Resource) EffectiveNamespace() string {
	if r.Namespace == "" {
		return "default"
	}
	return r.Namespace
}

// SOPSEncrypted reports whether n, an object, carries SOPS metadata: a
// top-level sops mapping with the message authentication code SOPS
// always writes. Flux decrypts such an object, and drops the field,
// before it applies it.
func SOPSEncrypted(n *yaml.Node) bool {
	m := MapGet(n, "sops")
	return m != nil && m.Kind == yaml.MappingNode && MapGet(m, "mac") != nil
}

// MapGet returns the value node of key in mapping m, or nil.
func MapGet(m *yaml.Node, key string) *yaml.Node {
	_, v := MapEntry(m, key)
	return v
}

// MapEntry returns the key and value nodes of key in mapping m, or nils.
// A key written twice is read as kubectl reads it (and kustomize reads a
// kustomization): the last one.
func MapEntry(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := len(m.Content)&^1 - 2; i >= 0; i -= 2 {
		if m.Content[i].Value == key && m.Content[i].Kind == yaml.ScalarNode {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// Path walks mapping keys from m; nil when any step is missing.
func Path(m *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		m = MapGet(m, k)
		if m == nil {
			return nil
		}
	}
	return m
}

// ScalarValue returns n's value when n is a scalar, else "".
func ScalarValue(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// IsNull reports whether n is absent or an explicit YAML null.
func IsNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}
