package render

import (
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/resid"
)

// The base document: the source document a rendered object was read
// from, found by kustomize's origin annotation (or the root's resource
// files) and the object's kind and name before prefixes and suffixes.

// base is the source document of an object.
type base struct {
	file   string
	doc    int
	prefix Path // items[i] for an item of a List, else empty
	node   *yaml.Node
	name   string
}

// baseDoc finds the document o was read from: kustomize's origin
// annotation names the file (relative to the root); the document is the
// one of o's kind whose name, with the prefixes and suffixes added, is
// o's name (the longest such name when several fit).
func (r *Renderer) baseDoc(res *Result, o *Object, origin *resource.Origin) *base {
	key := baseKey{o, origin}
	if v, ok := r.bases.Load(key); ok {
		return v.(*base)
	}
	var b *base
	switch {
	case origin == nil || origin.Repo != "" || isGenerated(origin):
	case origin.Path != "":
		b = r.findDoc(r.graph.Real(filepath.Join(res.Root.Dir, origin.Path)), o)
	default:
		// kustomize recorded no file (an object it did not read through
		// `resources`): the one document of o's kind and name among the
		// resource files the root reaches, if there is exactly one.
		for _, f := range r.resourceFiles(res.Root) {
			if fb := r.findDoc(f, o); fb != nil && fb.name == o.Name {
				if b != nil {
					b = nil
					break
				}
				b = fb
			}
		}
	}
	r.bases.Store(key, b)
	return b
}

// baseKey caches baseDoc per object and origin (derived or traced).
type baseKey struct {
	o      *Object
	origin *resource.Origin
}

// isGenerated reports whether the origin is a generator.
func isGenerated(origin *resource.Origin) bool {
	return origin != nil && origin.ConfiguredIn != "" && strings.HasSuffix(origin.ConfiguredBy.Kind, "Generator")
}

// resourceFiles lists the resource files (not kustomizations) root
// reaches through resources and components.
func (r *Renderer) resourceFiles(root *Kustomization) []string {
	var files []string
	walkGraph(root, func(k *Kustomization) {
		for _, ref := range k.Refs {
			if ref.Kind == RefResource && ref.Target == nil && ref.Path != "" {
				files = append(files, ref.Path)
			}
		}
	})
	return files
}

// findDoc finds o's document in file.
func (r *Renderer) findDoc(file string, o *Object) *base {
	docs, _ := r.docs(file)
	var best *base
	consider := func(n *yaml.Node, doc int, prefix Path) {
		if scalarOf(n, "kind") != o.Kind {
			return
		}
		g, _ := resid.ParseGroupVersion(scalarOf(n, "apiVersion"))
		if og, _ := resid.ParseGroupVersion(o.APIVersion); g != og {
			return
		}
		name := scalarOf(mapGet(n, "metadata"), "name")
		if !strings.Contains(o.Name, name) {
			return
		}
		if best == nil || len(name) > len(best.name) {
			best = &base{file: file, doc: doc, prefix: prefix, node: n, name: name}
		}
	}
	for i, d := range docs {
		if d == nil {
			continue
		}
		if k := scalarOf(d, "kind"); strings.HasSuffix(k, "List") && mapGet(d, "items") != nil {
			for j, it := range seq(mapGet(d, "items")) {
				consider(it, i, Path{{Key: "items"}, {Index: j, IsIndex: true}})
			}
			continue
		}
		consider(d, i, nil)
	}
	return best
}

// scalarOf returns the scalar value of key in mapping m, or "".
func scalarOf(m *yaml.Node, key string) string {
	n := mapGet(m, key)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// names are the names o may have had when a kustomization's patch was
// matched against it: its base name and its rendered name.
func names(o *Object, b *base) []string {
	if b != nil && b.name != o.Name {
		return []string{o.Name, b.name}
	}
	return []string{o.Name}
}
