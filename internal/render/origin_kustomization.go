package render

import (
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resource"
)

// Kustomization fields: whether a value was set by a field of a
// kustomization (labels, commonLabels, commonAnnotations, namespace,
// namePrefix, replicas, images, a generator) or by a builtin transformer
// config document standing for one, and where in it.

// byTransformer checks whether the transformer of kind kind configured in
// k set the value v at p of o; ok reports a claim.
func (r *Renderer) byTransformer(k *Kustomization, kind string, o *Object, b *base, p Path, v *yaml.Node) (Location, bool) {
	switch kind {
	case "PatchTransformer", "PatchStrategicMergeTransformer", "PatchJson6902Transformer":
		return r.byPatches(k, patchField(kind), o, b, p, v)
	case "LabelTransformer":
		return byLabels(k, p, v)
	case "AnnotationsTransformer":
		return byAnnotations(k, p, v)
	case "NamespaceTransformer":
		if len(p) > 0 && p[len(p)-1].Key == "namespace" {
			key, val := Path{{Key: "namespace"}}.Get(k.Doc)
			if val != nil && val.Value == v.Value {
				l := kzAt(k, "namespace", Path{{Key: "namespace"}}, key, val)
				l.Exact, l.Why = true, "the kustomization's namespace sets it"
				return l, true
			}
		}
	case "PrefixTransformer", "SuffixTransformer":
		// The name is composed: namePrefix + base name + nameSuffix (of
		// each kustomization on the way). Point at this kustomization's
		// prefix (else suffix); never exact.
		if p.String() == "metadata.name" {
			var l *Location
			var parts []string
			for _, field := range []string{"namePrefix", "nameSuffix"} {
				key, val := Path{{Key: field}}.Get(k.Doc)
				if val == nil || val.Value == "" || !strings.Contains(v.Value, val.Value) {
					continue
				}
				if l == nil {
					kl := kzAt(k, field, Path{{Key: field}}, key, val)
					l = &kl
				}
				parts = append(parts, fmt.Sprintf("%s %q", field, val.Value))
			}
			if l != nil {
				if b != nil {
					nk, _ := Path{{Key: "metadata"}, {Key: "name"}}.Get(b.node)
					if nk != nil {
						parts = append(parts, fmt.Sprintf("the base name %q (%s:%d:%d)", b.name, b.file, nk.Line, nk.Column))
					}
				}
				l.Why = fmt.Sprintf("the name %q is composed by kustomize from %s", v.Value, strings.Join(parts, ", "))
				return *l, true
			}
		}
	case "ReplicaCountTransformer":
		if p.String() == "spec.replicas" {
			ns := names(o, b)
			for i, e := range seq(mapGet(k.Doc, "replicas")) {
				if !contains2(ns, scalarOf(e, "name")) {
					continue
				}
				ep := Path{{Key: "replicas"}, {Index: i, IsIndex: true}, {Key: "count"}}
				key, val := ep.Get(k.Doc)
				if val == nil {
					continue
				}
				l := kzAt(k, "replicas", ep, key, val)
				l.Exact = val.Value == v.Value
				l.Why = "the kustomization's replicas entry sets it"
				return l, true
			}
		}
	case "ImageTagTransformer":
		if len(p) > 0 && p[len(p)-1].Key == "image" {
			for i, e := range seq(mapGet(k.Doc, "images")) {
				name, newName := scalarOf(e, "name"), scalarOf(e, "newName")
				repo := imageRepo(v.Value)
				if repo != name && repo != newName {
					continue
				}
				ep := Path{{Key: "images"}, {Index: i, IsIndex: true}}
				for _, f := range []string{"newTag", "digest", "newName"} {
					if mapGet(e, f) != nil {
						ep = ep.Key(f)
						break
					}
				}
				key, val := ep.Get(k.Doc)
				l := kzAt(k, "images", ep, key, val)
				l.Why = fmt.Sprintf("the image %q is composed by kustomize from the base image and this images entry", v.Value)
				return l, true
			}
		}
	}
	return Location{}, false
}

// contains2 reports whether s is in list.
func contains2(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// imageRepo strips the tag and digest of an image reference.
func imageRepo(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndex(image, ":"); i >= 0 && !strings.Contains(image[i:], "/") {
		image = image[:i]
	}
	return image
}

// kzAt is a Location in kustomization k.
func kzAt(k *Kustomization, field string, p Path, key, val *yaml.Node) Location {
	file := k.File
	if k.Argo.owns(val) || val == nil && k.Argo.owns(key) {
		// An Argo CD Application's option: written in its file.
		file = k.Argo.Source.File
	}
	l := at(FromKustomization, file, key, val)
	l.Field, l.Path = field, p
	return l
}

// labelPlace says where a label path is: "metadata" (the object's own
// labels), "template" (a pod template's), "selector", or "" (not a label).
func labelPlace(p Path) string {
	if len(p) < 2 || p[len(p)-1].IsIndex {
		return ""
	}
	parent := p[:len(p)-1].String()
	switch {
	case parent == "metadata.labels":
		return "metadata"
	case strings.Contains(parent, "selector") || strings.HasSuffix(parent, "matchLabels"):
		return "selector"
	case strings.HasSuffix(parent, "template.metadata.labels"):
		return "template"
	}
	return ""
}

// byLabels finds the labels or commonLabels pair of k that set the label
// at p. kustomize applies commonLabels first, then each labels entry in
// order, so the last entry that sets the key wins.
func byLabels(k *Kustomization, p Path, v *yaml.Node) (Location, bool) {
	place := labelPlace(p)
	if place == "" {
		return Location{}, false
	}
	label := p[len(p)-1].Key
	ls := seq(mapGet(k.Doc, "labels"))
	for i := len(ls) - 1; i >= 0; i-- {
		e := ls[i]
		sel := scalarOf(e, "includeSelectors") == "true"
		tmpl := sel || scalarOf(e, "includeTemplates") == "true"
		if (place == "selector" && !sel) || (place == "template" && !tmpl) {
			continue
		}
		ep := Path{{Key: "labels"}, {Index: i, IsIndex: true}, {Key: "pairs"}, {Key: label}}
		if key, val := ep.Get(k.Doc); val != nil && val.Value == v.Value {
			l := kzAt(k, "labels", ep, key, val)
			l.Exact, l.Why = true, "the kustomization's labels entry adds it (to every object it selects)"
			return l, true
		}
	}
	ep := Path{{Key: "commonLabels"}, {Key: label}}
	if key, val := ep.Get(k.Doc); val != nil && val.Value == v.Value {
		l := kzAt(k, "commonLabels", ep, key, val)
		l.Exact, l.Why = true, "the kustomization's commonLabels adds it (to every object, selectors included)"
		return l, true
	}
	return Location{}, false
}

// byAnnotations finds the commonAnnotations entry that set p.
func byAnnotations(k *Kustomization, p Path, v *yaml.Node) (Location, bool) {
	if len(p) < 2 || !strings.HasSuffix(p[:len(p)-1].String(), "metadata.annotations") {
		return Location{}, false
	}
	ep := Path{{Key: "commonAnnotations"}, {Key: p[len(p)-1].Key}}
	if key, val := ep.Get(k.Doc); val != nil && val.Value == v.Value {
		l := kzAt(k, "commonAnnotations", ep, key, val)
		l.Exact, l.Why = true, "the kustomization's commonAnnotations adds it"
		return l, true
	}
	return Location{}, false
}

// byGenerator points at the generator entry that made o.
func (r *Renderer) byGenerator(res *Result, o *Object, origin *resource.Origin) Location {
	k := r.graph.Load(filepath.Dir(filepath.Join(res.Root.Dir, origin.ConfiguredIn)))
	field := map[string]string{"ConfigMapGenerator": "configMapGenerator", "SecretGenerator": "secretGenerator"}[origin.ConfiguredBy.Kind]
	if k != nil && field != "" {
		// The generated name is the entry's name with the prefixes,
		// suffixes and content hash added: the longest entry name that
		// the object's name contains.
		best, bestLen := -1, 0
		for i, e := range seq(mapGet(k.Doc, field)) {
			if n := scalarOf(e, "name"); n != "" && strings.Contains(o.Name, n) && len(n) > bestLen {
				best, bestLen = i, len(n)
			}
		}
		if best >= 0 {
			ep := Path{{Key: field}, {Index: best, IsIndex: true}, {Key: "name"}}
			key, val := ep.Get(k.Doc)
			l := at(FromGenerator, k.File, key, val)
			l.Field, l.Path = field, ep
			l.Why = fmt.Sprintf("%s is generated by this %s entry; shipshape does not map its fields", o.Label(), field)
			return l
		}
	}
	return Location{Source: FromRendered, File: res.Root.File, Doc: -1,
		Why: fmt.Sprintf("%s is generated (%s in %s)", o.Label(), origin.ConfiguredBy.Kind, origin.ConfiguredIn)}
}

// configKey identifies a transformer config document.
type configKey struct {
	file string
	doc  int
}

// byConfig checks the builtin transformer config t names (a document of
// kind t.ConfiguredBy.Kind and name t.ConfiguredBy.Name in file). Its
// fields are those of the kustomization field it stands for, so it is
// read as a kustomization holding that one field.
func (r *Renderer) byConfig(file string, t *resource.Origin, o *Object, b *base, p Path, v *yaml.Node) (Location, bool) {
	docs, _ := r.docs(file)
	di := -1
	for i, d := range docs {
		if scalarOf(d, "kind") == t.ConfiguredBy.Kind && scalarOf(mapGet(d, "metadata"), "name") == t.ConfiguredBy.Name {
			di = i
			break
		}
	}
	if di < 0 {
		return Location{}, false
	}
	doc := docs[di]
	src, _ := r.fs.ReadFile(file)
	var l Location
	var ok bool
	switch t.ConfiguredBy.Kind {
	case "LabelTransformer", "AnnotationsTransformer":
		field := "labels"
		if t.ConfiguredBy.Kind == "AnnotationsTransformer" {
			field = "annotations"
		}
		if len(p) < 2 || p[len(p)-1].IsIndex ||
			field == "labels" && labelPlace(p) == "" ||
			field == "annotations" && !strings.HasSuffix(p[:len(p)-1].String(), "metadata.annotations") {
			return Location{}, false
		}
		ep := Path{{Key: field}, {Key: p[len(p)-1].Key}}
		key, val := ep.Get(doc)
		if val == nil || val.Value != v.Value {
			return Location{}, false
		}
		l = at(FromConfig, file, key, val)
		l.Doc, l.Path, l.Field = di, ep, t.ConfiguredBy.Kind
		l.Exact, l.Why = true, "the "+t.ConfiguredBy.Kind+" config adds it"
		return l, true
	case "PatchTransformer", "PatchStrategicMergeTransformer", "PatchJson6902Transformer":
		pk := r.configAsKustomization(file, src, di, doc, t.ConfiguredBy.Kind)
		field := map[string]string{"PatchTransformer": "patches", "PatchStrategicMergeTransformer": "patchesStrategicMerge",
			"PatchJson6902Transformer": "patchesJson6902"}[t.ConfiguredBy.Kind]
		l, ok = r.byPatches(pk, field, o, b, p, v)
		if !ok {
			return Location{}, false
		}
		if l.Block != nil {
			// The inline text is the config's own field.
			l.BlockPath, l.BlockDoc = configBlockPath(doc, l.Block), di
		}
		return l, true
	}
	return Location{}, false
}

// configAsKustomization wraps a patch transformer config as a
// kustomization holding the one patches field it stands for, cached.
func (r *Renderer) configAsKustomization(file string, src []byte, di int, doc *yaml.Node, kind string) *Kustomization {
	if v, ok := r.configs.Load(configKey{file, di}); ok {
		return v.(*Kustomization)
	}
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	items := &yaml.Node{Kind: yaml.SequenceNode}
	var field string
	switch kind {
	case "PatchTransformer":
		field = "patches"
		items.Content = []*yaml.Node{doc}
	case "PatchStrategicMergeTransformer":
		field = "patchesStrategicMerge"
		items.Content = append(items.Content, seq(mapGet(doc, "paths"))...)
		if n := mapGet(doc, "patches"); n != nil {
			items.Content = append(items.Content, n)
		}
	case "PatchJson6902Transformer":
		field = "patchesJson6902"
		item := &yaml.Node{Kind: yaml.MappingNode}
		for _, f := range []string{"target", "path"} {
			if n := mapGet(doc, f); n != nil {
				item.Content = append(item.Content, str(f), n)
			}
		}
		if n := mapGet(doc, "jsonOp"); n != nil {
			item.Content = append(item.Content, str("patch"), n)
		}
		items.Content = []*yaml.Node{item}
	}
	k := &Kustomization{Dir: filepath.Dir(file), File: file, Src: src, Kind: "Kustomization",
		Doc: &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str(field), items}}}
	v, _ := r.configs.LoadOrStore(configKey{file, di}, k)
	return v.(*Kustomization)
}

// configBlockPath is the path of node n among the top-level fields of doc.
func configBlockPath(doc, n *yaml.Node) Path {
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i+1] == n {
			return Path{{Key: doc.Content[i].Value}}
		}
	}
	return nil
}
