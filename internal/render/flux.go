package render

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// fluxGroup is the API group of Flux's Kustomization, which applies a
// directory of its source with kustomize.
const fluxGroup = "kustomize.toolkit.fluxcd.io/"

// FluxComponents adds to the roots that Flux applies the Components its
// Kustomizations name in spec.components. Flux's kustomize generator
// appends them to the directory's kustomization before it builds (see
// fluxcd/pkg kustomize.Generator), so a root whose patch targets a
// Component's object builds only with them.
//
// files are the YAML files of the run; read returns a file's bytes (the
// fix driver's, when it has changed them). It returns, per root changed,
// the kustomization bytes to build instead of the file's: the Renderer
// must be given them (Override). A root that two Kustomizations apply
// with different components, or a component Flux would refuse (not
// local, missing, not a Component), is left as it is.
func (g *Graph) FluxComponents(files []string, read func(path string) []byte) map[string][]byte {
	if !g.hasComponents() {
		return nil
	}
	type applied struct {
		comps []*Kustomization
		names []string
		same  bool
	}
	byRoot := map[*Kustomization]*applied{}
	var order []*Kustomization
	for _, f := range files {
		data := read(f)
		if !bytes.Contains(data, []byte(fluxGroup)) || !bytes.Contains(data, []byte("components")) {
			continue
		}
		docs, _ := manifest.DocumentRoots(data)
		for _, doc := range docs {
			root, names, comps := g.fluxApplies(f, doc)
			if root == nil {
				continue
			}
			a := byRoot[root]
			if a == nil {
				byRoot[root] = &applied{comps, names, true}
				order = append(order, root)
				continue
			}
			a.same = a.same && slices.Equal(a.names, names)
		}
	}
	out := map[string][]byte{}
	for _, root := range order {
		a := byRoot[root]
		if !a.same {
			continue
		}
		src := read(root.File)
		data, ok := withComponents(src, a.names)
		if !ok {
			continue
		}
		g.mu.Lock()
		for i, c := range a.comps {
			// Written nowhere in the root's file: placed at its start.
			at := &yaml.Node{Kind: yaml.ScalarNode, Value: a.names[i], Line: root.Doc.Line, Column: root.Doc.Column}
			root.Refs = append(root.Refs, &Ref{Kind: RefComponent, Field: "components", Value: a.names[i], Node: at, Path: c.Dir, Target: c})
		}
		delete(g.reaches, root)
		g.mu.Unlock()
		out[root.File] = data
	}
	return out
}

// hasComponents reports whether any kustomization read is a Component.
func (g *Graph) hasComponents() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, k := range g.ByDir {
		if k != nil && k.Kind == "Component" {
			return true
		}
	}
	return false
}

// fluxApplies reads doc, a document of file, as a Flux Kustomization
// with components: the root of g its spec.path names and the
// Components, as written and as read; nil when it is not one, or when
// Flux would not build it so.
func (g *Graph) fluxApplies(file string, doc *yaml.Node) (*Kustomization, []string, []*Kustomization) {
	if doc == nil || doc.Kind != yaml.MappingNode || manifest.ScalarValue(mapGet(doc, "kind")) != "Kustomization" ||
		!strings.HasPrefix(manifest.ScalarValue(mapGet(doc, "apiVersion")), fluxGroup) {
		return nil, nil, nil
	}
	spec := mapGet(doc, "spec")
	list := mapGet(spec, "components")
	if list == nil || list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return nil, nil, nil
	}
	root := g.fluxRoot(file, manifest.ScalarValue(mapGet(spec, "path")))
	if root == nil || root.Doc == nil {
		return nil, nil, nil
	}
	ignoreMissing := manifest.ScalarValue(mapGet(spec, "ignoreMissingComponents")) == "true"
	var names []string
	var comps []*Kustomization
	for _, n := range list.Content {
		name := manifest.ScalarValue(n)
		if n.Kind != yaml.ScalarNode || name == "" || filepath.IsAbs(name) || IsRemote(name) {
			return nil, nil, nil // Flux refuses it: "must be local and relative"
		}
		c := g.Load(filepath.Join(root.Dir, name))
		if c == nil && ignoreMissing {
			continue
		}
		if c == nil || c.Kind != "Component" {
			return nil, nil, nil // kustomize fails on it as Flux builds it
		}
		names, comps = append(names, name), append(comps, c)
	}
	if len(comps) == 0 {
		return nil, nil, nil
	}
	return root, names, comps
}

// fluxRoot is the kustomization that spec.path names, relative to the
// root of the source Flux reads (a repository, or a directory of it
// pushed as an artifact): the nearest directory above file, up to its
// repository, where the path leads to one.
func (g *Graph) fluxRoot(file, path string) *Kustomization {
	if path == "" || filepath.IsAbs(path) {
		return nil
	}
	top := manifest.RepositoryRoot(filepath.Dir(file))
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		real := g.Real(filepath.Join(dir, path))
		g.mu.Lock()
		k := g.ByDir[real]
		g.mu.Unlock()
		if k != nil && k.Kind == "Kustomization" && slices.Contains(g.Roots, k) {
			return k // a base Flux applies is built alone, unlike its parent's
		}
		if dir == top || filepath.Dir(dir) == dir {
			return nil
		}
	}
}

// withComponents is a kustomization's bytes with names appended to its
// components, as Flux writes it; ok is false when they cannot be added
// (the file does not parse, or components is not a list).
func withComponents(src []byte, names []string) ([]byte, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, false
	}
	top := doc.Content[0]
	list := mapGet(top, "components")
	switch {
	case list == nil:
		list = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		top.Content = append(top.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "components"}, list)
	case list.Tag == "!!null":
		*list = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	}
	if list.Kind != yaml.SequenceNode {
		return nil, false
	}
	for _, name := range names {
		list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name})
	}
	out, err := yaml.Marshal(&doc)
	return out, err == nil
}
