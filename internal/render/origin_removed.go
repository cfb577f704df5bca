package render

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resource"
)

// Removed fields: a finding about a field the rendered object lacks is
// placed at the patch that took it out (render.Locate, when the base
// document has the field): a strategic-merge null or $patch directive, or a
// JSON-patch op that removes it or replaces a field above it.

// removedBy finds the patch that took p out of o, last first: a
// strategic-merge patch that sets p (or a mapping above it) to null, or
// marks it `$patch: delete` or `$patch: replace`, or a JSON-patch op that
// removes p or replaces a field above it. Only paths of mapping keys are
// followed (a list item's identity in a patch is its merge key).
func (r *Renderer) removedBy(res *Result, o *Object, origin *resource.Origin, transformations []*resource.Origin, p Path) (Location, bool) {
	for _, s := range p {
		if s.IsIndex {
			return Location{}, false
		}
	}
	base := r.baseDoc(res, o, origin)
	for i := len(transformations) - 1; i >= 0; i-- {
		t := transformations[i]
		field := patchField(t.ConfiguredBy.Kind)
		if t.Repo != "" || t.ConfiguredIn == "" || field == "" {
			continue
		}
		file := r.graph.Real(filepath.Join(res.Root.Dir, t.ConfiguredIn))
		k := r.graph.Load(filepath.Dir(file))
		if k == nil || k.Doc == nil || !slices.Contains(KustomizationNames, filepath.Base(file)) {
			continue
		}
		entries := r.patchEntries(k, field)
		for j := len(entries) - 1; j >= 0; j-- {
			e := entries[j]
			if len(e.docs) == 0 || e.docs[0] == nil {
				continue
			}
			var l Location
			var ok bool
			if e.docs[0].Kind == yaml.SequenceNode {
				if e.target != nil && selects(e, o, base) {
					l, ok = removedByOps(e, p)
				}
			} else {
				l, ok = removedBySMP(e, o, base, p)
			}
			if ok {
				l.Block, l.BlockPath, l.BlockDoc = e.block, e.blockPath, e.blockDoc
				return l, true
			}
		}
	}
	return Location{}, false
}

// patchField is the kustomization field that configures a patch
// transformer of kind, or "" for other kinds.
func patchField(kind string) string {
	switch kind {
	case "PatchTransformer":
		return "patches"
	case "PatchStrategicMergeTransformer":
		return "patchesStrategicMerge"
	case "PatchJson6902Transformer":
		return "patchesJson6902"
	}
	return ""
}

// removedByOps finds the op of e that removes p, or replaces (or adds
// anew) a field above it.
func removedByOps(e patchEntry, p Path) (Location, bool) {
	ptr := ""
	for _, s := range p {
		ptr += "/" + strings.ReplaceAll(strings.ReplaceAll(s.Key, "~", "~0"), "/", "~1")
	}
	ops := seq(e.docs[0])
	for i := len(ops) - 1; i >= 0; i-- {
		op, opPath := ops[i], scalarOf(ops[i], "path")
		kind := scalarOf(op, "op")
		var why string
		switch {
		case kind == "remove" && opPath == ptr:
			why = "the JSON-patch remove op deletes it"
		case (kind == "replace" || kind == "add") && strings.HasPrefix(ptr, opPath+"/"):
			if _, v := p[strings.Count(opPath, "/"):].Get(mapGet(op, "value")); v != nil {
				continue // the value it sets holds p
			}
			why = fmt.Sprintf("the JSON-patch %s op sets %s without it", kind, opPath)
		default:
			continue
		}
		key, val := Path{{Key: "path"}}.Get(op)
		l := at(FromJSONPatch, e.file, key, val)
		l.Doc, l.Path, l.Why = 0, Path{{Index: i, IsIndex: true}, {Key: "path"}}, why
		return l, true
	}
	return Location{}, false
}

// patches reports whether doc, a strategic-merge patch document of e,
// patches o: e's target selects it, or, without one, doc names its kind
// and name.
func patches(e patchEntry, doc *yaml.Node, o *Object, b *base) bool {
	if doc == nil || doc.Kind != yaml.MappingNode {
		return false
	}
	if e.target != nil {
		return selects(e, o, b)
	}
	return scalarOf(doc, "kind") == o.Kind && contains2(names(o, b), scalarOf(mapGet(doc, "metadata"), "name"))
}

// removedBySMP finds, in the strategic-merge patch documents of e that
// patch o, the null or $patch directive that takes p out of it.
func removedBySMP(e patchEntry, o *Object, b *base, p Path) (Location, bool) {
	for d := len(e.docs) - 1; d >= 0; d-- {
		doc := e.docs[d]
		if !patches(e, doc, o, b) {
			continue
		}
		cur := doc
		for i, s := range p {
			if directive := scalarOf(cur, "$patch"); directive == "replace" || directive == "delete" {
				key, val := Path{{Key: "$patch"}}.Get(cur)
				l := at(FromPatch, e.file, key, val)
				l.Doc, l.Path, l.Why = d, append(slices.Clone(p[:i]), Step{Key: "$patch"}), "the strategic-merge patch's $patch: "+directive+" leaves it out"
				return l, true
			}
			key, val := Path{{Key: s.Key}}.Get(cur)
			if val == nil {
				break
			}
			if val.Kind == yaml.ScalarNode && val.Tag == "!!null" {
				l := at(FromPatch, e.file, key, val)
				l.Doc, l.Path, l.Why = d, slices.Clone(p[:i+1]), "the strategic-merge patch deletes it (null)"
				return l, true
			}
			cur = val
		}
	}
	return Location{}, false
}
