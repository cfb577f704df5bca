package refused

import (
	"sort"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/yaml11"
	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The API server compares typed objects decoded from JSON (kubectl turns
// YAML into JSON with YAML 1.1 rules) after defaulting. Here an object is
// the same data as plain values: map[string]any, []any and scalar, with the
// defaults that matter for the compared fields written in (defaults.go).

// scalar is a JSON scalar as kubectl reads it from YAML.
type scalar = yaml11.Value

// decode turns a node into plain values, reading plain scalars as YAML 1.1
// does (`yes` is true, `010` is 8), as kubectl sends them.
func decode(n *yaml.Node) any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return decode(n.Content[0])
	case yaml.AliasNode:
		return decode(n.Alias)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = decode(n.Content[i+1]) // the last of duplicate keys wins, as in JSON
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			l[i] = decode(c)
		}
		return l
	}
	if n.Style == 0 { // plain and untagged: what YAML 1.1 resolves
		if v, ok := yaml11.Resolve(n.Value); ok {
			if v.Kind == yaml11.Null {
				return nil
			}
			return v
		}
	}
	return scalar{Kind: yaml11.String, Text: n.Value}
}

// empty reports whether v is what a typed object holds for an absent
// field: nil, an empty map or list, "", 0 or false. Semantic equality of
// the server's types cannot tell these from absent for the non-pointer
// fields the checks below compare.
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range x {
			if !empty(e) {
				return false
			}
		}
		return true
	case []any:
		return len(x) == 0
	case scalar:
		return x.Text == "" || (x.Kind == yaml11.Int && x.Text == "0") || (x.Kind == yaml11.Bool && x.Text == "false")
	}
	return false
}

// get follows keys through maps; nil when any is missing.
func get(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// text is the scalar at keys as text ("" when absent or not a scalar).
func text(v any, keys ...string) string {
	s, _ := get(v, keys...).(scalar)
	return s.Text
}

// set writes v at keys, making maps on the way (for defaults).
func set(root any, v any, keys ...string) {
	m, ok := root.(map[string]any)
	if !ok {
		return
	}
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}

// setDefault writes def at keys when nothing (or an empty value) is there.
func setDefault(root any, def string, keys ...string) {
	if empty(get(root, keys...)) {
		set(root, scalar{Kind: yaml11.String, Text: def}, keys...)
	}
}

// del removes the field at keys.
func del(root any, keys ...string) {
	if m, ok := get(root, keys[:len(keys)-1]...).(map[string]any); ok {
		delete(m, keys[len(keys)-1])
	}
}

// quantityKeys are the maps whose values are resource.Quantity: "1Gi"
// and "1024Mi" are equal there, as the server compares them.
var quantityKeys = map[string]bool{"requests": true, "limits": true, "capacity": true}

// diff lists the paths below at where a and b differ, as deep as they
// differ: a key present on one side only, a scalar changed, a list whose
// length changed (at the list). Absent and empty are the same.
func diff(at manifest.FieldPath, a, b any) []manifest.FieldPath {
	if empty(a) && empty(b) {
		return nil
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		var out []manifest.FieldPath
		quantities := len(at) > 0 && quantityKeys[at[len(at)-1].Key]
		for _, k := range unionKeys(x, y) {
			p := append(at[:len(at):len(at)], manifest.PathElem{Key: k, Index: -1})
			if quantities && sameQuantity(x[k], y[k]) {
				continue
			}
			out = append(out, diff(p, x[k], y[k])...)
		}
		return out
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			break
		}
		var out []manifest.FieldPath
		for i := range x {
			out = append(out, diff(append(at[:len(at):len(at)], manifest.PathElem{Index: i}), x[i], y[i])...)
		}
		return out
	case scalar:
		if y, ok := b.(scalar); ok && x == y {
			return nil
		}
	}
	return []manifest.FieldPath{append(manifest.FieldPath(nil), at...)}
}

// equal reports whether a and b are the same after defaulting.
func equal(a, b any) bool { return len(diff(nil, a, b)) == 0 }

func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// quantity parses a scalar as a resource.Quantity.
func quantity(v any) (resource.Quantity, bool) {
	s, ok := v.(scalar)
	if !ok {
		return resource.Quantity{}, false
	}
	q, err := resource.ParseQuantity(s.Text)
	return q, err == nil
}

func sameQuantity(a, b any) bool {
	qa, oka := quantity(a)
	qb, okb := quantity(b)
	return oka && okb && qa.Cmp(qb) == 0
}

// clone copies plain values deeply, so defaults and the server's
// "copy the mutable fields over" never touch the caller's values.
func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = clone(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = clone(e)
		}
		return l
	}
	return v
}
