package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/yaml11"
)

// SourceKind says what kind of source a Location points into.
type SourceKind int

const (
	// FromRendered: no source byte is known; only the rendered object (of
	// the root named in Location.Root) explains the value.
	FromRendered SourceKind = iota
	// FromBase: the resource document the object was read from.
	FromBase
	// FromPatch: a strategic-merge patch document.
	FromPatch
	// FromJSONPatch: a JSON6902 operation.
	FromJSONPatch
	// FromKustomization: a kustomization field (labels, commonLabels,
	// namePrefix, nameSuffix, namespace, replicas, images,
	// commonAnnotations).
	FromKustomization
	// FromGenerator: a configMapGenerator or secretGenerator entry.
	FromGenerator
	// FromConfig: a builtin transformer config listed under
	// `transformers:` (a LabelTransformer's labels, ...).
	FromConfig
)

func (k SourceKind) String() string {
	return [...]string{"rendered", "base", "patch", "json-patch", "kustomization", "generator", "transformer-config"}[k]
}

// Location is where a rendered value came from.
//
// A fix addressed by rendered object and field path is carried to the
// source through File, Doc and Path: Path is the address of the node
// inside the source document (the base document, the patch document, the
// JSON-patch op list, or the kustomization), Key and Value are those
// nodes as parsed from File (positions exact). For a patch written inline
// in a kustomization (`patch: |`), Block is the kustomization's scalar
// node holding the patch text and BlockPath its address in the
// kustomization; Doc and Path then address the patch text, and Line and
// Column are already translated to the kustomization file.
//
// Exact is set only when the value at the source is the rendered value
// (checked, not assumed) and editing that node alone changes it; when not
// exact, Why says why, and no fix may be offered.
type Location struct {
	Source       SourceKind
	File         string
	Line, Column int
	Exact        bool
	Doc          int
	Path         Path
	Key, Value   *yaml.Node
	Block        *yaml.Node
	BlockPath    Path
	// BlockDoc is the document of File holding Block (0 in a
	// kustomization; the config's document in a transformer config file).
	BlockDoc int
	// Field is the kustomization field for FromKustomization and
	// FromGenerator ("labels", "namePrefix", "configMapGenerator", ...).
	Field string
	// Root is the root kustomization file the object was rendered from.
	Root string
	Why  string
}

func (l Location) String() string {
	if l.Source == FromRendered {
		return fmt.Sprintf("rendered by %s: %s", l.Root, l.Why)
	}
	exact := "exact"
	if !l.Exact {
		exact = "not exact"
	}
	return fmt.Sprintf("%s:%d:%d %s %s (%s: %s)", l.File, l.Line, l.Column, l.Source, l.Path, exact, l.Why)
}

// sourceFile is a parsed source file, shared between lookups.
type sourceFile struct {
	once sync.Once
	docs []*yaml.Node // document roots (the node below the DocumentNode)
	err  error
}

// docs returns the parsed documents of file, read once per Renderer.
func (r *Renderer) docs(file string) ([]*yaml.Node, error) {
	v, _ := r.sources.LoadOrStore(file, &sourceFile{})
	s := v.(*sourceFile)
	s.once.Do(func() {
		data, err := r.fs.ReadFile(file)
		if err != nil {
			s.err = err
			return
		}
		s.docs, s.err = manifest.DocumentRoots(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	})
	return s.docs, s.err
}

// SourceDoc is document doc of file as Locate reads it (nil when there is
// no such document): what a Location's Path addresses.
func (r *Renderer) SourceDoc(file string, doc int) *yaml.Node {
	docs, _ := r.docs(file)
	if doc < 0 || doc >= len(docs) {
		return nil
	}
	return docs[doc]
}

// AlsoPatches names the objects of res other than o that the patch l
// found (a FromPatch or FromJSONPatch Location of o) applies to, as
// kustomize matches them: a patch whose target selects several objects,
// where an edit made for o changes them too.
func (r *Renderer) AlsoPatches(res *Result, o *Object, l Location) []string {
	if l.Source != FromPatch && l.Source != FromJSONPatch {
		return nil
	}
	var out []string
	walkGraph(res.Root, func(k *Kustomization) {
		for _, field := range []string{"patches", "patchesStrategicMerge", "patchesJson6902"} {
			for _, e := range r.patchEntries(k, field) {
				if e.file != l.File || e.block != l.Block || len(e.docs) == 0 || e.docs[0] == nil {
					continue
				}
				for _, other := range res.Objects {
					if other == o {
						continue
					}
					origin, _ := r.origins(res, other)
					b := r.baseDoc(res, other, origin)
					if e.docs[0].Kind == yaml.SequenceNode && e.target != nil && selects(e, other, b) ||
						e.docs[0].Kind != yaml.SequenceNode && l.Doc >= 0 && l.Doc < len(e.docs) && patches(e, e.docs[l.Doc], other, b) {
						out = append(out, other.Label())
					}
				}
			}
		}
	})
	return out
}

// Locate finds the source of the value at path p of o, a rendered object
// of res. It looks, in this order (the reverse of kustomize's, so that
// the last writer wins): the transformers that ran over the object, last
// first (derived from the graph, or kustomize's own list after Trace),
// each with the kustomization that configured it — strategic-merge patches,
// JSON6902 ops, labels/commonLabels, commonAnnotations, namespace,
// namePrefix/nameSuffix, replicas, images — then the base document
// (found among the root's files, or named by kustomize after Trace), then
// the generator.
// Each candidate is checked against the rendered value by re-reading the
// source with exact positions; a value no candidate explains (vars,
// replacements, name references) gets a FromRendered location.
func (r *Renderer) Locate(res *Result, o *Object, p Path) Location {
	rendered := func(why string) Location {
		return Location{Source: FromRendered, File: res.Root.File, Root: res.Root.File, Doc: -1, Why: why}
	}
	_, v := p.Get(o.Node)
	origin, transformations := r.origins(res, o)
	if v == nil {
		if l, ok := r.removedBy(res, o, origin, transformations, p); ok {
			l.Root = res.Root.File
			return l
		}
		return rendered(fmt.Sprintf("the rendered %s has no %s", o.Label(), p))
	}
	loc := func() Location {
		base := r.baseDoc(res, o, origin)
		for i := len(transformations) - 1; i >= 0; i-- {
			t := transformations[i]
			if t.Repo != "" || t.ConfiguredIn == "" {
				continue
			}
			file := r.graph.Real(filepath.Join(res.Root.Dir, t.ConfiguredIn))
			if !slices.Contains(KustomizationNames, filepath.Base(file)) {
				// A builtin transformer configured by a file listed under
				// `transformers:`.
				if l, ok := r.byConfig(file, t, o, base, p, v); ok {
					return l
				}
				continue
			}
			k := r.graph.Load(filepath.Dir(file))
			if k == nil || k.Doc == nil {
				continue
			}
			if l, ok := r.byTransformer(k, t.ConfiguredBy.Kind, o, base, p, v); ok {
				return l
			}
		}
		if isGenerated(origin) {
			return r.byGenerator(res, o, origin)
		}
		if base == nil {
			if l, ok := r.kindPatched(res.Root, o); ok {
				return l
			}
			if origin != nil && origin.Path != "" {
				return rendered(fmt.Sprintf("%s comes from %s, which has no %s document whose name it carries", o.Label(), origin.Path, o.Kind))
			}
			return rendered("kustomize records no source document for " + o.Label())
		}
		srcPath, key, val := follow(base.node, o.Node, p)
		if val == nil {
			return rendered(fmt.Sprintf("%s is not in %s (added by a step shipshape cannot trace: vars, replacements or name references)", p, base.file))
		}
		l := at(FromBase, base.file, key, val)
		l.Doc, l.Path = base.doc, base.prefix.concat(srcPath)
		if !contains(v, val) {
			if l, ok := r.changedWithin(res, o, p, v); ok {
				return l
			}
			return rendered(fmt.Sprintf("%s in %s:%d:%d is changed by a step shipshape cannot trace (vars, replacements or name references)", p, base.file, l.Line, l.Column))
		}
		l.Exact, l.Why = true, "the base document sets it"
		return l
	}()
	loc.Root = res.Root.File
	return loc
}

// changedWithin locates a mapping or list v at p that differs from its
// base document by the first value under it that a patch or a
// kustomization field set (a selector that commonLabels rewrote): that is
// the change the finding is about. The location is not exact: it holds a
// part of v, not v.
func (r *Renderer) changedWithin(res *Result, o *Object, p Path, v *yaml.Node) (Location, bool) {
	var found Location
	var walk func(q Path, n *yaml.Node) bool
	walk = func(q Path, n *yaml.Node) bool {
		switch n.Kind {
		case yaml.ScalarNode:
			if l := r.Locate(res, o, q); l.Source != FromRendered && l.Source != FromBase {
				found = l
				return true
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if walk(q.Key(n.Content[i].Value), n.Content[i+1]) {
					return true
				}
			}
		case yaml.SequenceNode:
			for i, it := range n.Content {
				if walk(q.Idx(i), it) {
					return true
				}
			}
		}
		return false
	}
	if v.Kind == yaml.ScalarNode || !walk(p, v) {
		return Location{}, false
	}
	found.Exact = false
	return found, true
}

// BaseSets returns where o's base document sets p, whatever patches set
// it after: the first writer, where Locate returns the last.
func (r *Renderer) BaseSets(res *Result, o *Object, p Path) (Location, bool) {
	origin, _ := r.origins(res, o)
	b := r.baseDoc(res, o, origin)
	if b == nil {
		return Location{}, false
	}
	srcPath, key, val := follow(b.node, o.Node, p)
	if val == nil {
		return Location{}, false
	}
	l := at(FromBase, b.file, key, val)
	l.Doc, l.Path, l.Root, l.Exact = b.doc, b.prefix.concat(srcPath), res.Root.File, true
	l.Why = "the base document sets it too"
	return l, true
}

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

// concat appends q to p.
func (p Path) concat(q Path) Path {
	out := make(Path, 0, len(p)+len(q))
	return append(append(out, p...), q...)
}

// at makes a Location at the key node (or, for sequence items and
// document roots, the value node).
func at(src SourceKind, file string, key, val *yaml.Node) Location {
	l := Location{Source: src, File: file, Key: key, Value: val, Doc: -1}
	n := key
	if n == nil {
		n = val
	}
	if n != nil {
		l.Line, l.Column = n.Line, n.Column
	}
	return l
}

// kindPatched locates an object whose kind a JSON patch of root's graph
// changed (contour turns ClusterRoles into Roles with `op: replace, path:
// /kind`): at that op, not exact (its fields come from a document of
// the other kind, which stays what it is for everything else).
func (r *Renderer) kindPatched(root *Kustomization, o *Object) (Location, bool) {
	var l Location
	found := false
	walkGraph(root, func(k *Kustomization) {
		found = found || r.jsonOps(k, func(e patchEntry, op *yaml.Node) bool {
			if scalarOf(op, "path") != "/kind" || scalarOf(op, "value") != o.Kind || scalarOf(op, "op") != "replace" && scalarOf(op, "op") != "add" {
				return false
			}
			from := "another kind"
			if e.target != nil && e.target.Kind != "" {
				from = e.target.Kind
			}
			l = at(FromJSONPatch, e.file, op, nil)
			l.Doc, l.Block, l.BlockDoc = 0, e.block, e.blockDoc
			l.Why = fmt.Sprintf("this JSON-patch op turns %s into a %s: its fields come from the %s, which stays one where no such patch applies", from, o.Kind, from)
			return true
		})
		// A strategic-merge patch of another kind than its target's
		// (options.allowKindChange): at its kind.
		for _, e := range r.patchEntries(k, "patches") {
			if found || e.target == nil || e.target.Kind == "" || e.target.Kind == o.Kind {
				continue
			}
			for d, doc := range e.docs {
				if doc == nil || doc.Kind != yaml.MappingNode || scalarOf(doc, "kind") != o.Kind {
					continue
				}
				key, val := manifest.MapEntry(doc, "kind")
				l = at(FromPatch, e.file, key, val)
				l.Doc, l.Path, l.Block, l.BlockPath, l.BlockDoc = d, Path{{Key: "kind"}}, e.block, e.blockPath, e.blockDoc
				l.Why = fmt.Sprintf("this patch turns %s into a %s (allowKindChange): its fields come from the %s, which stays one where no such patch applies", e.target.Kind, o.Kind, e.target.Kind)
				found = true
				break
			}
		}
	})
	return l, found
}

// jsonOps calls fn on the ops of the JSON patches k lists (patches and
// patchesJson6902, inline or in files) until it returns true, and says
// whether it did.
func (r *Renderer) jsonOps(k *Kustomization, fn func(e patchEntry, op *yaml.Node) bool) bool {
	for _, field := range []string{"patches", "patchesJson6902"} {
		for _, e := range r.patchEntries(k, field) {
			if len(e.docs) == 0 || e.docs[0] == nil {
				continue
			}
			for _, op := range seq(e.docs[0]) {
				if fn(e, op) {
					return true
				}
			}
		}
	}
	return false
}

// unescapePointer reads one token of a JSON pointer (RFC 6901).
func unescapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

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
	l := at(FromKustomization, k.File, key, val)
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

// identity are the fields a strategic-merge patch selects its target by.
var identity = map[string]bool{"apiVersion": true, "kind": true, "metadata.name": true, "metadata.namespace": true}

// patchEntry is one patch of a kustomization, read.
type patchEntry struct {
	file      string // the patch file, or the kustomization for inline
	docs      []*yaml.Node
	block     *yaml.Node // the inline scalar, or nil
	blockPath Path
	blockDoc  int  // the document of file holding block
	exact     bool // positions are exact (file, or literal block)
	target    *types.Selector
	targetRe  *types.SelectorRegex // target compiled; nil when it does not compile
}

// byPatches checks the patches of field in k, last first.
func (r *Renderer) byPatches(k *Kustomization, field string, o *Object, b *base, p Path, v *yaml.Node) (Location, bool) {
	entries := r.patchEntries(k, field)
	appended := map[string]int{} // by the JSON patches after e: path -> appends
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if len(e.docs) == 0 || e.docs[0] == nil {
			continue
		}
		if e.docs[0].Kind == yaml.SequenceNode {
			if e.target == nil || !selects(e, o, b) {
				continue
			}
			if l, ok := byOps(e, o, p, v, appended); ok {
				return l, true
			}
			for _, op := range seq(e.docs[0]) {
				if path, ok := appends(op); ok {
					appended[path]++
				}
			}
			continue
		}
		if identity[p.String()] {
			// A strategic-merge patch names its target with these; it
			// does not set them.
			continue
		}
		for d := len(e.docs) - 1; d >= 0; d-- {
			doc := e.docs[d]
			if !patches(e, doc, o, b) {
				continue
			}
			srcPath, key, val := follow(doc, o.Node, p)
			if val == nil {
				continue
			}
			l := at(FromPatch, e.file, key, val)
			l.Doc, l.Path, l.Block, l.BlockPath, l.BlockDoc = d, srcPath, e.block, e.blockPath, e.blockDoc
			l.Exact = e.exact && contains(v, val)
			switch {
			case !e.exact:
				l.Why = "the strategic-merge patch sets it, written inline in a way whose lines shipshape cannot map (not a literal block)"
			case !l.Exact:
				l.Why = "the strategic-merge patch sets it, but the rendered value differs (changed later by a step shipshape cannot trace)"
			default:
				l.Why = "the strategic-merge patch sets it"
			}
			return l, true
		}
	}
	return Location{}, false
}

// patchKey identifies the patches of one field of one kustomization.
type patchKey struct {
	k     *Kustomization
	field string
}

// patchEntries reads the patches listed under field of k, once.
func (r *Renderer) patchEntries(k *Kustomization, field string) []patchEntry {
	if v, ok := r.patches.Load(patchKey{k, field}); ok {
		return v.([]patchEntry)
	}
	out := r.readPatchEntries(k, field)
	r.patches.Store(patchKey{k, field}, out)
	return out
}

func (r *Renderer) readPatchEntries(k *Kustomization, field string) []patchEntry {
	var out []patchEntry
	for i, item := range seq(mapGet(k.Doc, field)) {
		e := patchEntry{file: k.File, exact: true}
		var text *yaml.Node
		var textPath Path
		if item.Kind == yaml.ScalarNode { // patchesStrategicMerge: path or inline
			text, textPath = item, Path{{Key: field}, {Index: i, IsIndex: true}}
		} else {
			if n := mapGet(item, "patch"); n != nil {
				text, textPath = n, Path{{Key: field}, {Index: i, IsIndex: true}, {Key: "patch"}}
			} else if n := mapGet(item, "path"); n != nil {
				text = n
			}
			e.setTarget(mapGet(item, "target"))
		}
		if text == nil || text.Kind != yaml.ScalarNode {
			continue
		}
		if textPath != nil && (item.Kind != yaml.ScalarNode || isInline(text)) {
			e.block, e.blockPath = text, textPath
			e.docs, e.exact = inlineDocs(k.Src, text)
		} else {
			e.file = r.graph.Real(filepath.Join(k.Dir, text.Value))
			e.docs, _ = r.docs(e.file)
		}
		out = append(out, e)
	}
	if field == "patches" && k.Flux != nil {
		out = append(out, fluxPatchEntries(k.Flux)...)
	}
	return out
}

// setTarget sets e's target from a patch entry's target node t (nil: none).
func (e *patchEntry) setTarget(t *yaml.Node) {
	if t == nil {
		return
	}
	var sel types.Selector
	if err := t.Decode(&sel); err == nil {
		e.target = &sel
		e.targetRe, _ = types.NewSelectorRegex(&sel)
	}
}

// fluxPatchEntries are the patches of a Flux Kustomization's spec.patches,
// which Flux appends to the patches of the kustomization it builds: each
// is written inline (Flux has no patch files) in the Flux file.
func fluxPatchEntries(f *FluxPatches) []patchEntry {
	var out []patchEntry
	for i, item := range seq(f.List) {
		text := mapGet(item, "patch")
		if text == nil || text.Kind != yaml.ScalarNode {
			continue
		}
		e := patchEntry{file: f.File, block: text, blockDoc: f.Doc,
			blockPath: Path{{Key: "spec"}, {Key: "patches"}, {Index: i, IsIndex: true}, {Key: "patch"}}}
		e.docs, e.exact = inlineDocs(f.Src, text)
		e.setTarget(mapGet(item, "target"))
		out = append(out, e)
	}
	return out
}

// inlineDocs parses YAML text written inline in the file src (node n)
// and moves its positions to where the text stands in k's file. For a
// literal block scalar (`|`, `|-`, `|+`) the text is the lines below the
// indicator with the block's indentation removed, so inner line L column
// C is file line n.Line+L, column C+indent: exact. Other styles (folded,
// quoted) rewrap or unescape the text: every node gets n's position and
// exact is false.
func inlineDocs(src []byte, n *yaml.Node) (docs []*yaml.Node, exact bool) {
	docs, _ = manifest.DocumentRoots([]byte(n.Value))
	lineOff, colOff := n.Line, 0
	exact = n.Style&yaml.LiteralStyle != 0
	if exact {
		colOff = blockIndent(src, n.Line)
		exact = colOff > 0
	}
	for _, d := range docs {
		walkNodes(d, func(c *yaml.Node) {
			if exact {
				c.Line += lineOff
				c.Column += colOff
			} else {
				c.Line, c.Column = n.Line, n.Column
			}
		})
	}
	return docs, exact
}

// blockIndent returns the indentation of the first non-blank line after
// line (1-based) in src: the content indentation of a block scalar whose
// indicator is on that line. 0 when there is none.
func blockIndent(src []byte, line int) int {
	lines := bytes.Split(src, []byte("\n"))
	for i := line; i < len(lines); i++ {
		l := bytes.TrimRight(lines[i], "\r")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		return len(l) - len(bytes.TrimLeft(l, " "))
	}
	return 0
}

// walkNodes calls fn on n and every node below it.
func walkNodes(n *yaml.Node, fn func(*yaml.Node)) {
	if n == nil {
		return
	}
	fn(n)
	for _, c := range n.Content {
		walkNodes(c, fn)
	}
}

// selects reports whether a patch target selects o, by its rendered name
// or its base name (patches match the name an object had when they ran).
func selects(e patchEntry, o *Object, b *base) bool {
	s, sr := e.target, e.targetRe
	if sr == nil {
		return false
	}
	g, ver := resid.ParseGroupVersion(o.APIVersion)
	if !sr.MatchGvk(resid.NewGvk(g, ver, o.Kind)) {
		return false
	}
	if s.Namespace != "" && !sr.MatchNamespace(o.Namespace) &&
		(b == nil || !sr.MatchNamespace(scalarOf(mapGet(b.node, "metadata"), "namespace"))) {
		// Neither the rendered namespace nor the base's (an outer
		// kustomization may set it after the patch ran).
		return false
	}
	named := false
	for _, n := range names(o, b) {
		if sr.MatchName(n) {
			named = true
		}
	}
	if !named {
		return false
	}
	meta := mapGet(o.Node, "metadata")
	for sel, field := range map[string]string{s.LabelSelector: "labels", s.AnnotationSelector: "annotations"} {
		if sel == "" {
			continue
		}
		ls, err := labels.Parse(sel)
		if err != nil {
			return false
		}
		set := labels.Set{}
		m := mapGet(meta, field)
		for i := 0; m != nil && i+1 < len(m.Content); i += 2 {
			set[m.Content[i].Value] = m.Content[i+1].Value
		}
		if !ls.Matches(set) {
			return false
		}
	}
	return true
}

// byOps finds the JSON6902 op of e that set p: the last add or replace
// whose path is p or above it (then p is looked up inside its value).
// appended counts, by path, the items the JSON patches applied after e
// append to a list: each is after the one an op of e appended.
func byOps(e patchEntry, o *Object, p Path, v *yaml.Node, appended map[string]int) (Location, bool) {
	ops := seq(e.docs[0])
	for i := len(ops) - 1; i >= 0; i-- {
		op := ops[i]
		kind := scalarOf(op, "op")
		later := appendsAfter(ops, i)
		if path, ok := appends(op); ok {
			later += appended[path]
		}
		opPath, ok := pointerPath(scalarOf(op, "path"), o.Node, later)
		if !ok || len(opPath) > len(p) || !opPath.isPrefixOf(p) {
			continue
		}
		switch kind {
		case "add", "replace":
		case "copy", "move":
			key, val := Path{{Key: "path"}}.Get(op)
			l := at(FromJSONPatch, e.file, key, val)
			l.Doc, l.Path, l.Block, l.BlockPath, l.BlockDoc = 0, Path{{Index: i, IsIndex: true}, {Key: "path"}}, e.block, e.blockPath, e.blockDoc
			l.Why = fmt.Sprintf("the JSON-patch %s op moves the value here from %s", kind, scalarOf(op, "from"))
			return l, true
		default:
			continue
		}
		var l Location
		if len(opPath) == len(p) {
			// The op sets p whole: a finding about the field points at
			// its `path`, one about the value (atValue) at its `value`
			// (Value), which is also what a quoting fix edits.
			key, _ := Path{{Key: "path"}}.Get(op)
			_, val := Path{{Key: "value"}}.Get(op)
			l = at(FromJSONPatch, e.file, key, val)
			l.Path = Path{{Index: i, IsIndex: true}, {Key: "path"}}
			l.Exact = containsOp(v, val)
		} else {
			_, opVal := opPath.Get(o.Node)
			rest := p[len(opPath):]
			srcPath, key, val := follow(mapGet(op, "value"), opVal, rest)
			if val == nil {
				continue
			}
			l = at(FromJSONPatch, e.file, key, val)
			l.Path = Path{{Index: i, IsIndex: true}, {Key: "value"}}.concat(srcPath)
			l.Exact = containsOp(v, val)
		}
		l.Doc, l.Block, l.BlockPath, l.BlockDoc = 0, e.block, e.blockPath, e.blockDoc
		l.Exact = l.Exact && e.exact
		switch {
		case !e.exact:
			l.Why = fmt.Sprintf("the JSON-patch %s op sets it, written inline in a way whose lines shipshape cannot map", kind)
		case !l.Exact:
			l.Why = fmt.Sprintf("the JSON-patch %s op sets it, but the rendered value differs", kind)
		default:
			l.Why = fmt.Sprintf("the JSON-patch %s op sets it", kind)
		}
		return l, true
	}
	return Location{}, false
}

// isPrefixOf reports whether p is a prefix of q.
func (p Path) isPrefixOf(q Path) bool {
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// appendsAfter counts the ops after ops[i] that append to the list
// ops[i] appends to ("add" at the same path ending in "/-"): each puts
// an item after the one ops[i] added.
func appendsAfter(ops []*yaml.Node, i int) int {
	path, ok := appends(ops[i])
	if !ok {
		return 0
	}
	n := 0
	for _, op := range ops[i+1:] {
		if p, ok := appends(op); ok && p == path {
			n++
		}
	}
	return n
}

// appends returns the path of the list op appends to ("add" at a path
// ending in "/-").
func appends(op *yaml.Node) (path string, ok bool) {
	path = scalarOf(op, "path")
	return path, scalarOf(op, "op") == "add" && strings.HasSuffix(path, "/-")
}

// pointerPath turns a JSON pointer into a Path over the rendered object:
// numeric tokens under a sequence are indexes, and "-" (append) is the
// item that many items (later, appended after it) before the last of the
// rendered sequence.
func pointerPath(ptr string, obj *yaml.Node, later int) (Path, bool) {
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	var p Path
	cur := obj
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapePointer(tok)
		if cur != nil && cur.Kind == yaml.SequenceNode {
			n, err := strconv.Atoi(tok)
			if tok == "-" {
				n, err = len(cur.Content)-1-later, nil
			}
			if err != nil || n < 0 {
				return nil, false
			}
			p = p.Idx(n)
		} else {
			p = p.Key(tok)
		}
		_, cur = p[len(p)-1:].Get(cur)
	}
	return p, true
}

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

// contains reports whether the source node src is contained in the
// rendered node r: equal scalars (as data), every key of a mapping
// (patch directives such as $patch aside), every item of a sequence of
// the same length.
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
