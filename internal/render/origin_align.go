package render

import (
	"encoding/json"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/yaml11"
)

// Tree alignment: a path of the rendered object followed in a source
// document (a base, a patch, an op's value), list items matched by their
// merge keys as strategic merge matches them, and whether the source's
// value is still what was rendered.

// mergeKeys identify list items across a patch and the object, as
// strategic merge does for the lists of the Kubernetes API (containers,
// ports, volumeMounts, volumes, env, hostAliases, ...).
var mergeKeys = []string{"name", "containerPort", "mountPath", "devicePath", "ip", "port"}

// follow looks p up in src (a base or patch document, or a JSON-patch
// value) using the rendered node for list items: an item of a rendered
// list is found in src by its merge key, or by its value for scalar
// lists, or at the same index when src's list is as long. It returns the
// path inside src and the nodes, or nils.
func follow(src, rendered *yaml.Node, p Path) (Path, *yaml.Node, *yaml.Node) {
	var out Path
	var key *yaml.Node
	cur, rcur := src, rendered
	for _, s := range p {
		if cur == nil {
			return nil, nil, nil
		}
		if !s.IsIndex {
			k, v := Path{s}.Get(cur)
			if v == nil {
				return nil, nil, nil
			}
			_, rcur = Path{s}.Get(rcur)
			out, key, cur = out.Key(s.Key), k, v
			continue
		}
		_, ritem := Path{s}.Get(rcur)
		if cur.Kind != yaml.SequenceNode || ritem == nil {
			return nil, nil, nil
		}
		idx := matchItem(cur, rcur, ritem, s.Index)
		if idx < 0 {
			return nil, nil, nil
		}
		out, key, cur, rcur = out.Idx(idx), nil, cur.Content[idx], ritem
	}
	return out, key, cur
}

// matchItem returns the index in src of the item matching ritem (at
// rindex of the rendered list rlist), or -1.
func matchItem(src, rlist, ritem *yaml.Node, rindex int) int {
	if ritem.Kind == yaml.MappingNode {
		for _, mk := range mergeKeys {
			want := mapGet(ritem, mk)
			if want == nil || want.Kind != yaml.ScalarNode {
				continue
			}
			for i, it := range src.Content {
				if got := mapGet(it, mk); got != nil && got.Value == want.Value {
					return i
				}
			}
			if renamed(src, rlist, mk, rindex) {
				return rindex
			}
			return -1
		}
	} else if ritem.Kind == yaml.ScalarNode {
		for i, it := range src.Content {
			if it.Kind == yaml.ScalarNode && it.Value == ritem.Value {
				return i
			}
		}
	}
	if len(src.Content) == len(rlist.Content) {
		return rindex
	}
	return -1
}

// renamed reports whether the item at index i of src, in a list as long
// as the rendered rlist, is the rendered item i under another value of
// its merge key mk: a JSON-patch op after it (`replace
// /spec/template/spec/containers/0/name`) renamed it. Its own value is
// then nowhere in the rendered list, and it is no deletion directive.
func renamed(src, rlist *yaml.Node, mk string, i int) bool {
	if len(src.Content) != len(rlist.Content) || src.Content[i].Kind != yaml.MappingNode || mapGet(src.Content[i], "$patch") != nil {
		return false
	}
	old := mapGet(src.Content[i], mk)
	if old == nil || old.Kind != yaml.ScalarNode {
		return false
	}
	for _, it := range rlist.Content {
		if v := mapGet(it, mk); v != nil && v.Value == old.Value {
			return false
		}
	}
	return true
}

// containsOp is contains for the value of a JSON-patch op, which
// kustomize reads as YAML 1.1 (sigs.k8s.io/yaml): a plain `yes` there is
// the boolean true, `0755` the number 493.
func containsOp(r, src *yaml.Node) bool {
	if r != nil && src != nil && r.Kind == yaml.ScalarNode && src.Kind == yaml.ScalarNode && src.Style == 0 {
		if v, ok := yaml11.Resolve(src.Value); ok {
			if r.ShortTag() == "!!str" && r.Value == v.Text {
				// An annotation: kustomize wrote the value back as its
				// text (1.20 read as 1.2 is "1.2").
				return true
			}
			var a any
			if r.Decode(&a) != nil {
				return false
			}
			b, err := json.Marshal(a)
			return err == nil && string(b) == v.Text
		}
	}
	return contains(r, src)
}

// contains reports whether the source node src is contained in the
// rendered node r: equal scalars (as data), every key of a mapping
// (patch directives such as $patch aside), every item of a sequence of
// the same length.
func contains(r, src *yaml.Node) bool {
	if r == nil || src == nil {
		return false
	}
	if r.Kind == yaml.AliasNode {
		r = r.Alias
	}
	if src.Kind == yaml.AliasNode {
		src = src.Alias
	}
	switch src.Kind {
	case yaml.ScalarNode:
		if r.Kind != yaml.ScalarNode {
			return false
		}
		var a, b any
		if r.Decode(&a) != nil || src.Decode(&b) != nil {
			return r.Value == src.Value
		}
		return reflect.DeepEqual(a, b)
	case yaml.MappingNode:
		if r.Kind != yaml.MappingNode {
			return false
		}
		for i := 0; i+1 < len(src.Content); i += 2 {
			k := src.Content[i].Value
			if strings.HasPrefix(k, "$") {
				continue
			}
			if !contains(mapGet(r, k), src.Content[i+1]) {
				return false
			}
		}
		return true
	case yaml.SequenceNode:
		if r.Kind != yaml.SequenceNode || len(r.Content) != len(src.Content) {
			return false
		}
		for i := range src.Content {
			if !contains(r.Content[i], src.Content[i]) {
				return false
			}
		}
		return true
	}
	return false
}
