package render

// The root's kustomization Doc as an Argo CD Application's options change
// it (see argo.go): the option nodes put where kustomize edit puts their
// values, so that Locate finds a value an option sets at the option.

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// setField sets m[name] to the Application's key and value nodes.
func (v *ArgoVariant) setField(m *yaml.Node, name string, key, val *yaml.Node) {
	if m == nil {
		return
	}
	v.owned[key], v.owned[val] = true, true
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			m.Content[i], m.Content[i+1] = key, val
			return
		}
	}
	m.Content = append(m.Content, key, val)
}

// mirrorImage puts the Application's image (its string node n, the value
// as substituted) in doc's images, replacing the entry of the same name:
// an entry whose every scalar is at n.
func (v *ArgoVariant) mirrorImage(doc, n *yaml.Node, image string) {
	name, newName, tag, digest := parseImageArg(image)
	entry := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	for _, kv := range [][2]string{{"name", name}, {"newName", newName}, {"newTag", tag}, {"digest", digest}} {
		if kv[1] == "" {
			continue
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: kv[0], Line: n.Line, Column: n.Column}
		val := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: kv[1], Line: n.Line, Column: n.Column}
		v.owned[key], v.owned[val] = true, true
		entry.Content = append(entry.Content, key, val)
	}
	v.owned[entry] = true
	v.replaceNamed(doc, "images", name, entry)
}

// parseImageArg reads an argument of `kustomize edit set image`:
// [name=]newName[:tag][@digest], or name[:tag][@digest].
func parseImageArg(arg string) (name, newName, tag, digest string) {
	ref := arg
	if i := strings.Index(arg, "="); i >= 0 {
		name, ref = arg[:i], arg[i+1:]
	}
	if i := strings.Index(ref, "@"); i >= 0 {
		ref, digest = ref[:i], ref[i+1:]
	}
	if i := strings.LastIndex(ref, ":"); i >= 0 && !strings.Contains(ref[i:], "/") {
		ref, tag = ref[:i], ref[i+1:]
	}
	if name == "" {
		return ref, "", tag, digest
	}
	return name, ref, tag, digest
}

// mirrorNamed puts the Application's entry n (a mapping with a name) in
// doc's list field, replacing the entry of the same name.
func (v *ArgoVariant) mirrorNamed(doc *yaml.Node, field string, n *yaml.Node) {
	walkNodes(n, func(c *yaml.Node) { v.owned[c] = true })
	v.replaceNamed(doc, field, scalarOf(n, "name"), n)
}

func (v *ArgoVariant) replaceNamed(doc *yaml.Node, field, name string, entry *yaml.Node) {
	list := listField(doc, field)
	if list == nil {
		return
	}
	for i, e := range list.Content {
		if scalarOf(e, "name") == name {
			list.Content[i] = entry
			return
		}
	}
	list.Content = append(list.Content, entry)
}

// mirrorLabel adds a label as `edit add label --without-selector` does:
// to the first labels entry with includeSelectors false and the same
// includeTemplates, else to a new one.
func (v *ArgoVariant) mirrorLabel(doc, key, val *yaml.Node, includeTemplates bool) {
	list := listField(doc, "labels")
	if list == nil {
		return
	}
	for _, e := range list.Content {
		if scalarOf(e, "includeSelectors") != "true" && (scalarOf(e, "includeTemplates") == "true") == includeTemplates {
			v.setField(mapField(e, "pairs"), key.Value, key, val)
			return
		}
	}
	entry := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	pairs := mapField(entry, "pairs")
	if includeTemplates {
		entry.Content = append(entry.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "includeTemplates"},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	}
	v.setField(pairs, key.Value, key, val)
	list.Content = append(list.Content, entry)
}

// mapField is the mapping m holds at key, made when absent or null; nil
// when it holds something else.
func mapField(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	return fieldOfKind(m, key, yaml.MappingNode, "!!map")
}
