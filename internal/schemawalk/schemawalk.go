// Package schemawalk is the one walk the engine makes over each object for
// every rule that judges values by their Kubernetes type (type-mismatch,
// unknown-field, ambiguous-scalar, duplicate-key): it goes down the YAML
// tree once, works out each node's type from internal/schema, and calls
// every rule's Visitor at each node. A rule gets there by setting
// analysis.Rule.Visit; it never loops over a node's entries itself.
package schemawalk

import (
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/schema"
	"github.com/shipshape-dev/shipshape/internal/yaml11"
)

// Visitor is a rule's share of the walk of one object: the callbacks the
// walk makes, and which nodes it makes them for. A rule builds one per
// object (analysis.Rule.Visit) around its pass and whatever it keeps while
// the walk goes on. The walk calls every rule's visitor in turn at each
// node, so a visitor never walks, and never sees another's state.
//
// What the walk does, and what a visitor does with it:
//
//   - Enter is called at each node that has a type (Cursor.Type), parents
//     before children, in document order, from the object's root. It
//     returns whether to go on below the node for this visitor: false at a
//     node it has judged whole (a value of the wrong type) or below which
//     it has nothing to look for (a field it does not judge). Other
//     visitors go on as they decide.
//   - Aliases are not followed: an alias is a node of its own, with the
//     type of the place it stands in and no children; what it names is
//     visited where its anchor stands (a visitor that judges the value an
//     alias stands for looks at Node.Alias). The walk is thus linear in the
//     size of the document, whatever it aliases.
//   - Flow collections ({a: 1}, [a, b]) are mappings and sequences like any
//     other. Keys are not walked into: a visitor judges a key at the value
//     it leads to (Cursor.Key).
//   - The fields of a Struct are found by their key as kubectl reads it
//     (KeyText: on is "true"); a key that is not a scalar, and the merge key
//     <<, are no field. UnknownField is called for a scalar key that names
//     no field, with the struct's cursor; its value has no type. In a Map,
//     every value has the map's value type, a merge key's too: a visitor
//     that judges what an alias merges in where it is defined declines it
//     (IsMergeKey(c.Key)).
//   - BuiltinOnly visitors skip objects whose kind the schema does not
//     describe as an API object (custom resources, Kustomizations), whose
//     types the walk only guesses, or knows from their own tool.
//   - Untyped visitors are called at every node, typed or not
//     (Cursor.Typed): duplicate-key looks at every mapping.
//   - Done is called once after the walk, for what can be judged only once
//     every node has been seen (ambiguous-scalar's anchors).
//   - A SOPS-encrypted object (a top-level `sops` mapping with its `mac`,
//     as Flux's kustomize-controller decrypts before it applies) is walked
//     as it will be applied: its `sops` entry is no field and is not
//     walked, and its ciphertexts (`ENC[AES256_GCM,data:…]`, whatever
//     type they decrypt to) are seen by Untyped visitors only.
//
// A visitor reports through its pass, naming the field with the cursor's
// path (Path.String()). Fields left nil are not called; the zero Visitor,
// for an object a rule has nothing to look at in, sees nothing. A rule
// that wants every image to have a tag would be, in its analysis.Rule,
// Visit: visitImages and Check: analysis.WalkAlone(visitImages), with:
//
//	func visitImages(p *analysis.Pass) schemawalk.Visitor {
//		return schemawalk.Visitor{BuiltinOnly: true, Enter: func(c *schemawalk.Cursor) bool {
//			if c.Key != nil && c.Key.Value == "image" && c.Parent.Type.Name() == "io.k8s.api.core.v1.Container" &&
//				!strings.Contains(c.Node.Value, ":") {
//				p.Report(c.Node, c.Path.String(), nil, "image %s has no tag", c.Node.Value)
//			}
//			return true
//		}}
//	}
type Visitor struct {
	Enter        func(c *Cursor) bool
	UnknownField func(c *Cursor, key *yaml.Node)
	Done         func()
	BuiltinOnly  bool
	Untyped      bool
}

// Cursor is where the walk stands: a node, how the walk got there, and the
// node's type. The walk reuses cursors: a visitor reads them during the
// call, and keeps nothing of them.
type Cursor struct {
	Node *yaml.Node
	// Type is what the API server decodes Node into. For a built-in kind
	// it comes from the schema. Where the schema says nothing (a custom
	// resource, or a free-form field of a built-in one such as a
	// RawExtension: Type is then Unknown), the walk guesses the values of
	// a mapping from what every object has: metadata is ObjectMeta, and a
	// mapping shaped like a pod template or a label selector is one. A
	// Kustomization has the types kustomize decodes it into (its Go types,
	// from JSON that sigs.k8s.io/yaml made of YAML 1.1 as kubectl's does),
	// and nothing is guessed below a field of no known type (helm values);
	// a CustomResourceDefinition has only its metadata typed, since its
	// schema has properties named like metadata, selectors and templates.
	Type schema.Type
	// Typed is false at the nodes the walk gives no type (the value of an
	// unknown field, a CRD's spec, a kustomization's helm values), which
	// only Untyped visitors see.
	Typed bool
	// Path leads from the object's root to Node, with keys as written
	// (Key.Value). Appending to it copies it, so a visitor may make a
	// finding's path from it (Path.Key(name)).
	Path manifest.FieldPath
	// Key is the mapping key whose value Node is; nil for a sequence item
	// and for the root.
	Key *yaml.Node
	// Parent is the cursor of the mapping or sequence holding Node; nil at
	// the root.
	Parent *Cursor

	reading reading
}

// InCollection reports whether Node is an item of a typed list or a value
// of a typed map, rather than a field: there a null deletes or blanks an
// entry instead of leaving a field unset.
func (c *Cursor) InCollection() bool {
	if c.Parent == nil {
		return false
	}
	k := c.Parent.Type.Kind()
	return k == schema.List || k == schema.Map
}

// reading is how the walk types a node's children.
type reading uint8

const (
	// outside: no type here, nor anywhere below.
	outside reading = iota
	// typed: Cursor.Type; below an Unknown node, types are guessed from
	// the shape of each child.
	typed
	// kustomize: Cursor.Type, a part of a Kustomization; an Unknown node
	// holds what kustomize hands on untyped (helm values), and is outside.
	kustomize
	// crd: a CustomResourceDefinition, whose metadata alone is typed.
	crd
)

// isTyped reports whether r gives its nodes a type.
func (r reading) isTyped() bool { return r == typed || r == kustomize }

var (
	objectMetaType, _    = schema.Named("ObjectMeta")
	podTemplateType, _   = schema.Named("PodTemplateSpec")
	labelSelectorType, _ = schema.Named("LabelSelector")
	kustomizationType, _ = schema.Named("Kustomization")
	stringMapType, _     = objectMetaType.Field("labels")
	stringType, _        = objectMetaType.Field("name")
	imagesType, _        = kustomizationType.Field("images")
)

// walker is one walk's state, kept from one object to the next (most
// files hold one or two objects, and its stack would be allocated again
// for each).
type walker struct {
	all     []Visitor // those of the current Walk
	vs      []Visitor // those of the current pass over the object
	untyped uint64    // bit i: vs[i].Untyped
	sops    bool      // the object is SOPS-encrypted
	cursors []*Cursor
	path    manifest.FieldPath
}

var walkers = sync.Pool{New: func() any { return new(walker) }}

// maxVisitors is how many visitors one pass of the walk serves: a bit
// each in a word.
const maxVisitors = 64

// Walk walks obj once for every visitor of vs, then calls their Done in
// order.
func Walk(obj *manifest.Object, vs []Visitor) {
	w := walkers.Get().(*walker)
	defer walkers.Put(w)
	w.all = w.all[:0]
	for _, v := range vs {
		if v.Enter != nil || v.UnknownField != nil || v.Done != nil {
			w.all = append(w.all, v)
		}
	}
	for rest := w.all; len(rest) > 0; rest = rest[len(w.vs):] {
		w.vs = rest[:min(len(rest), maxVisitors)]
		w.walk(obj)
	}
	for i := range w.all {
		if v := &w.all[i]; v.Done != nil {
			v.Done()
		}
	}
	// Keep nothing of obj or of the rules' state alive.
	for _, c := range w.cursors {
		*c = Cursor{}
	}
	clear(w.path[:cap(w.path)])
	clear(w.all)
	w.all, w.vs = w.all[:0], nil
}

func (w *walker) walk(obj *manifest.Object) {
	w.untyped = 0
	var builtinOnly uint64
	for i := range w.vs {
		v := &w.vs[i]
		if v.Untyped {
			w.untyped |= 1 << i
		}
		if v.BuiltinOnly {
			builtinOnly |= 1 << i
		}
	}
	active := uint64(1)<<len(w.vs) - 1
	root := w.cursor(0)
	*root = Cursor{Node: obj.Node}
	if t, ok := schema.ForObject(obj.APIVersion, obj.Kind); ok {
		root.Type, root.Typed, root.reading = t, true, typed
	} else {
		active &^= builtinOnly
		switch {
		case obj.IsKustomization():
			root.Type, root.Typed, root.reading = kustomizationType, true, kustomize
		case obj.Kind == "CustomResourceDefinition":
			root.reading = crd
		default:
			root.Typed, root.reading = true, typed // Unknown: guessed below
		}
	}
	w.path = w.path[:0]
	w.sops = manifest.SOPSEncrypted(obj.Node)
	if active != 0 {
		w.visit(root, 0, active)
	}
}

// lastEntries maps each key of mapping n written more than once to the
// index of its last entry; nil when no key repeats (nearly always).
func lastEntries(n *yaml.Node) map[string]int {
	var last map[string]int
	for i := 2; i+1 < len(n.Content); i += 2 {
		for j := 0; j < i; j += 2 {
			if n.Content[j].Value == n.Content[i].Value && n.Content[i].Kind == yaml.ScalarNode {
				if last == nil {
					last = map[string]int{}
				}
				last[n.Content[i].Value] = i
				break
			}
		}
	}
	return last
}

// sopsCiphertext reports whether n is a value SOPS encrypted.
func sopsCiphertext(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && strings.HasPrefix(n.Value, "ENC[AES256_GCM,data:") && strings.HasSuffix(n.Value, "]")
}

// cursor returns the cursor for depth d; cursors stay where they are, so
// that Parent pointers hold while the stack grows.
func (w *walker) cursor(d int) *Cursor {
	for len(w.cursors) <= d {
		w.cursors = append(w.cursors, nil)
	}
	if w.cursors[d] == nil {
		w.cursors[d] = new(Cursor)
	}
	return w.cursors[d]
}

// visit calls the visitors active (bits of active) at c, the cursor of
// depth d, then goes on below with those that asked to.
func (w *walker) visit(c *Cursor, d int, active uint64) {
	if c.reading == outside {
		active &= w.untyped // nothing below is typed
	}
	for i := range w.vs {
		v, bit := &w.vs[i], uint64(1)<<i
		if active&bit == 0 || !c.Typed && !v.Untyped || v.Enter == nil {
			continue
		}
		if !v.Enter(c) {
			active &^= bit
		}
	}
	if active == 0 {
		return
	}
	n := c.Node
	switch n.Kind {
	case yaml.MappingNode:
		var last map[string]int // d == 0: the entry kubectl keeps of a key written twice
		if d == 0 {
			last = lastEntries(n)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if d == 0 && w.sops && k.Value == "sops" {
				continue // removed by the decryption, before the apply
			}
			t, r := entryReading(c, k, v)
			if j, ok := last[k.Value]; ok && j != i {
				// Two objects without a `---` between them: kubectl
				// reads the last of each top-level key, so this one is
				// never applied; only what judges the text sees it.
				t, r = schema.Type{}, outside
			} else if r == outside && c.reading == typed && c.Type.Kind() == schema.Struct && isField(k) {
				w.unknownField(c, k, active)
			}
			if r == outside && active&w.untyped == 0 {
				continue
			}
			w.path = append(w.path[:d], manifest.PathElem{Key: k.Value, Index: -1})
			child := w.cursor(d + 1)
			*child = Cursor{Node: v, Type: t, Typed: r.isTyped(), Path: w.path[: d+1 : d+1], Key: k, Parent: c, reading: r}
			w.visit(child, d+1, w.plain(v, active))
		}
	case yaml.SequenceNode:
		t, r := itemReading(c)
		if r == outside && active&w.untyped == 0 {
			return
		}
		for i, v := range n.Content {
			child := w.cursor(d + 1)
			w.path = append(w.path[:d], manifest.PathElem{Index: i})
			*child = Cursor{Node: v, Type: t, Typed: r.isTyped(), Path: w.path[: d+1 : d+1], Parent: c, reading: r}
			w.visit(child, d+1, w.plain(v, active))
		}
	}
}

// plain is the visitors of active that see v: the Untyped ones only, when
// v is a SOPS ciphertext (its type is known once it is decrypted).
func (w *walker) plain(v *yaml.Node, active uint64) uint64 {
	if w.sops && sopsCiphertext(v) {
		return active & w.untyped
	}
	return active
}

func (w *walker) unknownField(c *Cursor, k *yaml.Node, active uint64) {
	for i := range w.vs {
		if v := &w.vs[i]; active&(1<<i) != 0 && v.UnknownField != nil {
			v.UnknownField(c, k)
		}
	}
}

// isField reports whether k can name a field: a scalar other than the
// merge key.
func isField(k *yaml.Node) bool { return k.Kind == yaml.ScalarNode && !IsMergeKey(k) }

// entryReading returns how the value v of key k in the mapping at c is
// typed.
func entryReading(c *Cursor, k, v *yaml.Node) (schema.Type, reading) {
	switch c.reading {
	case typed, kustomize:
		switch t := c.Type; t.Kind() {
		case schema.Struct:
			if isField(k) {
				if ft, ok := t.Field(KeyText(k)); ok {
					return below(ft, c.reading)
				}
			}
		case schema.Map:
			return below(t.Elem(), c.reading)
		case schema.Unknown:
			if t, ok := fluxField(c, k); ok {
				return t, typed
			}
			return guess(k, v)
		}
	// The CRD frame picks its entry as MapGet does: the first of a
	// repeated key.
	case crd:
		if v == manifest.MapGet(c.Node, "metadata") {
			return objectMetaType, typed
		}
	}
	return schema.Type{}, outside
}

// itemReading returns how the items of the sequence at c are typed.
func itemReading(c *Cursor) (schema.Type, reading) {
	switch c.reading {
	case typed, kustomize:
		switch c.Type.Kind() {
		case schema.List:
			return below(c.Type.Elem(), c.reading)
		case schema.Unknown:
			return schema.Type{}, typed
		}
	}
	return schema.Type{}, outside
}

// below is how a child of type t is read under a node read as r. A
// kustomization's fields of no known type (helm values) are data that
// kustomize hands on to another tool, not objects: nothing is guessed
// there.
func below(t schema.Type, r reading) (schema.Type, reading) {
	if r == kustomize && t.Kind() == schema.Unknown {
		return t, outside
	}
	return t, r
}

// IsMergeKey recognises YAML's merge key `<<`, which kubectl's YAML 1.1
// decoder expands.
func IsMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && (k.Tag == "!!merge" || k.Value == "<<" && k.Style == 0)
}

// KeyText is the text a mapping key has once kubectl has read it (YAML
// 1.1) and turned it into a JSON object key: on becomes "true", 0x1F "31",
// ~ "null". An alias key is read as the scalar it names.
func KeyText(k *yaml.Node) string {
	n := k
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		return k.Value
	}
	if n.Style&yaml.TaggedStyle != 0 {
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!bool", "!!int", "!!float":
		default:
			return k.Value
		}
	} else if n.Style != 0 {
		return k.Value // quoted, literal or folded: a string
	}
	if v, ok := yaml11.Resolve(n.Value); ok && v.Kind != yaml11.String {
		return v.Text
	}
	return k.Value
}
