package render

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/scope"
)

// fluxGroup is the API group of Flux's Kustomization, which applies a
// directory of its source with kustomize (fluxcd/pkg's generator and
// BuildKustomization: LoadRestrictionsNone, its spec.components added).
const fluxGroup = "kustomize.toolkit.fluxcd.io/"

// FluxApply is what the Flux Kustomizations of a tree say about one root
// they apply (their spec.path names it).
type FluxApply struct {
	// names are the Components spec.components adds (as written), comps
	// the kustomizations they name; none when two Kustomizations that
	// apply the root disagree, or when Flux would refuse one (not local,
	// missing, not a Component): the root is then left as it is.
	names []string
	comps []*Kustomization
	// namespace is spec.targetNamespace, which Flux writes as the
	// kustomization's namespace; "" when none is set, or when two
	// Kustomizations that apply the root disagree.
	namespace string
	// patches is spec.patches, which Flux appends to the kustomization's
	// patches; nil when none is set, when two Kustomizations that apply
	// the root disagree, or when Flux generates the kustomization.
	patches *FluxPatches
	bad     bool
	// Prune and Force are spec.prune and spec.force, how Flux applies the
	// root's change: objects gone from it deleted, an update the API
	// server refuses recreated (delete, then create).
	Prune, Force bool
	// Problem is a spec.components entry Flux's build fails on, in the
	// Flux Kustomization's file.
	Problem *Problem
}

// FluxPatches is the spec.patches list of a Flux Kustomization: where it
// is written, for the findings its patches cause.
type FluxPatches struct {
	File string
	Src  []byte // the file's bytes: List's positions refer to them
	Doc  int    // the document of File that holds List
	List *yaml.Node
	// At is List's path in its document: spec.patches when nil (an Argo
	// CD Application's are under its source's kustomize). Dir is the
	// directory a `path:` entry is read from ("": entries are inline).
	At  Path
	Dir string
}

// same reports whether p and q are the same list of patches.
func (p *FluxPatches) same(q *FluxPatches) bool {
	if p == nil || q == nil {
		return p == q
	}
	a, errA := yaml.Marshal(p.List)
	b, errB := yaml.Marshal(q.List)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

// MentionsFlux reports whether data may hold a Flux Kustomization: the
// files FluxApplies needs.
func MentionsFlux(data []byte) bool { return bytes.Contains(data, []byte(fluxGroup)) }

// FluxApplies reads the Flux Kustomizations in files (path -> bytes, the
// files of the run that MentionsFlux) and returns the roots of g they
// apply. Flux builds those with LoadRestrictionsNone and with the
// Components their spec.components name added (see AddFluxSettings).
func (g *Graph) FluxApplies(files map[string][]byte) map[*Kustomization]*FluxApply {
	out := map[*Kustomization]*FluxApply{}
	for _, f := range slices.Sorted(maps.Keys(files)) {
		docs, _ := manifest.DocumentRoots(files[f])
		for di, doc := range docs {
			roots, a := g.fluxApplies(f, doc)
			if a != nil && a.patches != nil {
				a.patches.Src, a.patches.Doc = files[f], di
			}
			for _, root := range roots {
				a := *a
				if prev := out[root]; prev != nil {
					a.bad = a.bad || prev.bad || !slices.Equal(prev.names, a.names)
					if prev.namespace != a.namespace {
						a.namespace = ""
					}
					if !prev.patches.same(a.patches) {
						a.patches = nil
					}
				}
				out[root] = &a
			}
		}
	}
	return out
}

// AddFluxSettings adds to the roots that Flux applies the Components its
// Kustomizations name in spec.components, their targetNamespace and their
// spec.patches (Root.Flux then says where those are written).
// Flux's kustomize generator writes them into the directory's
// kustomization before it builds (see fluxcd/pkg kustomize.Generator), so
// a root whose patch targets a Component's object builds only with them,
// and its objects are in that namespace. It returns, per root changed,
// the kustomization bytes to build instead of the file's (read returns a
// file's bytes: the fix driver's, when it has changed them): the Renderer
// must be given them (Override).
func (g *Graph) AddFluxSettings(applies map[*Kustomization]*FluxApply, read func(path string) []byte) map[string][]byte {
	out := map[string][]byte{}
	for root, a := range applies {
		if a.bad || len(a.comps) == 0 && a.namespace == "" && a.patches == nil {
			continue
		}
		data, ok := fluxKustomization(read(root.File), a.names, a.namespace, a.patches)
		if !ok {
			continue
		}
		g.mu.Lock()
		root.Flux = a.patches
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

// fluxApplies reads doc, a document of file, as a Flux Kustomization:
// the roots of g its spec.path names, and the Components it adds; nil
// when it is not one.
func (g *Graph) fluxApplies(file string, doc *yaml.Node) ([]*Kustomization, *FluxApply) {
	if doc == nil || doc.Kind != yaml.MappingNode || manifest.ScalarValue(mapGet(doc, "kind")) != "Kustomization" ||
		!strings.HasPrefix(manifest.ScalarValue(mapGet(doc, "apiVersion")), fluxGroup) {
		return nil, nil
	}
	spec := mapGet(doc, "spec")
	roots, generated := g.fluxRoots(file, manifest.ScalarValue(mapGet(spec, "path")))
	if generated != "" {
		g.mu.Lock()
		if g.fluxGenerated == nil {
			g.fluxGenerated = map[string]bool{}
		}
		g.fluxGenerated[generated] = true
		g.mu.Unlock()
	}
	if len(roots) == 0 {
		return nil, nil
	}
	a := &FluxApply{namespace: manifest.ScalarValue(mapGet(spec, "targetNamespace")),
		Prune: manifest.ScalarValue(mapGet(spec, "prune")) == "true", Force: manifest.ScalarValue(mapGet(spec, "force")) == "true"}
	if list := mapGet(spec, "patches"); list != nil && list.Kind == yaml.SequenceNode && len(list.Content) > 0 && generated == "" {
		// In a kustomization Flux generates above several roots they may
		// patch the objects of several; not modelled.
		a.patches = &FluxPatches{File: file, List: list}
	}
	list := mapGet(spec, "components")
	if list == nil || list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return roots, a
	}
	if generated != "" {
		// Added to the kustomization Flux writes above the roots: they
		// may patch the objects of several; not modelled.
		return roots, &FluxApply{bad: true, Prune: a.Prune, Force: a.Force}
	}
	root := roots[0]
	ignoreMissing := manifest.ScalarValue(mapGet(spec, "ignoreMissingComponents")) == "true"
	for _, n := range list.Content {
		name := manifest.ScalarValue(n)
		if n.Kind != yaml.ScalarNode || name == "" || filepath.IsAbs(name) || IsRemote(name) {
			return roots, &FluxApply{bad: true, Prune: a.Prune, Force: a.Force} // Flux refuses it: "must be local and relative"
		}
		c := g.Load(filepath.Join(root.Dir, name))
		if c == nil && ignoreMissing {
			continue
		}
		if c == nil || c.Kind != "Component" {
			// kustomize fails on it as Flux builds it.
			what := "names no directory with a kustomization"
			if c != nil {
				what = "names a " + c.Kind + ", not a Component"
			}
			return roots, &FluxApply{bad: true, Prune: a.Prune, Force: a.Force, Problem: &Problem{File: file, Line: n.Line, Column: n.Column, Entry: name,
				Message: fmt.Sprintf("spec.components entry %q %s: Flux cannot build %s with it (its files are judged as kustomize builds them without it)", name, what, root.Dir)}}
		}
		a.names, a.comps = append(a.names, name), append(a.comps, c)
	}
	return roots, a
}

// fluxRoots are the kustomizations that spec.path names, relative to the
// root of the source Flux reads (a repository, or a directory of it
// pushed as an artifact): the nearest directory above file, up to its
// repository, where the path leads to one. A directory without one
// (generated, returned: Flux writes a kustomization listing its
// manifests, and the directories below it that hold a kustomization,
// which it does not descend into) names the roots it would list; when
// none leads to a root, generated is the first such directory walked.
func (g *Graph) fluxRoots(file, path string) (roots []*Kustomization, generated string) {
	if path == "" || filepath.IsAbs(path) {
		return nil, ""
	}
	top := scope.RepositoryRoot(filepath.Dir(file))
	first := ""
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		real := g.Real(filepath.Join(dir, path))
		g.mu.Lock()
		k, hasFile := g.ByDir[real], g.listed[real]
		_, walked := g.listed[real]
		var below []*Kustomization
		if k == nil && !hasFile {
			below = g.rootsBelow(real)
		}
		g.mu.Unlock()
		if k != nil && k.Kind == "Kustomization" && slices.Contains(g.Roots, k) {
			return []*Kustomization{k}, "" // a base Flux applies is built alone, unlike its parent's
		}
		if len(below) > 0 {
			return below, real
		}
		if walked && !hasFile && first == "" {
			first = real
		}
		if dir == top || filepath.Dir(dir) == dir {
			return nil, first
		}
	}
}

// FluxApplication is the directory (real) whose kustomization Flux
// generates and builds with kustomize, listing the file at path (real):
// a manifest in a directory that a Flux Kustomization of the files given
// to FluxApplies applies without a kustomization, or below it with none
// between. "" when there is none. Call it once FluxApplies has returned.
func (g *Graph) FluxApplication(path string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if g.fluxGenerated[dir] {
			return dir
		}
		if has := g.listed[dir]; has || filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// rootsBelow are the roots under dir that no kustomization between them
// and dir holds; g.mu is held.
func (g *Graph) rootsBelow(dir string) []*Kustomization {
	var out []*Kustomization
	for _, r := range g.Roots {
		rel, err := filepath.Rel(dir, r.Dir)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || r.Kind != "Kustomization" {
			continue
		}
		between := false
		for d := filepath.Dir(r.Dir); d != dir && len(d) > len(dir); d = filepath.Dir(d) {
			if g.ByDir[d] != nil {
				between = true
			}
		}
		if !between {
			out = append(out, r)
		}
	}
	return out
}

// fluxKustomization is a kustomization's bytes with names appended to its
// components, its namespace set to namespace (when not "") and patches
// appended to its patches (when not nil), as Flux writes it; ok is false
// when they cannot be added (the file does not parse, or components or
// patches is not a list).
func fluxKustomization(src []byte, names []string, namespace string, patches *FluxPatches) ([]byte, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, false
	}
	top := doc.Content[0]
	if namespace != "" {
		ns := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: namespace}
		if _, v := manifest.MapEntry(top, "namespace"); v != nil {
			*v = *ns
		} else {
			top.Content = append(top.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "namespace"}, ns)
		}
	}
	if len(names) > 0 {
		list := listField(top, "components")
		if list == nil {
			return nil, false
		}
		for _, name := range names {
			list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name})
		}
	}
	if patches != nil {
		list := listField(top, "patches")
		if list == nil {
			return nil, false
		}
		list.Content = append(list.Content, patches.List.Content...)
	}
	out, err := yaml.Marshal(&doc)
	return out, err == nil
}

// listField is the list top holds at key, made when absent or null; nil
// when it holds something else.
func listField(top *yaml.Node, key string) *yaml.Node {
	return fieldOfKind(top, key, yaml.SequenceNode, "!!seq")
}

// fieldOfKind is the node of kind m holds at key, made (empty) when absent
// or null; nil when it holds another kind.
func fieldOfKind(m *yaml.Node, key string, kind yaml.Kind, tag string) *yaml.Node {
	n := mapGet(m, key)
	switch {
	case n == nil:
		n = &yaml.Node{Kind: kind, Tag: tag}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, n)
	case n.Tag == "!!null":
		*n = yaml.Node{Kind: kind, Tag: tag}
	}
	if n.Kind != kind {
		return nil
	}
	return n
}
