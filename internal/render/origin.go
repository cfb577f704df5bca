package render

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Locations: where a value of a rendered object came from (Location,
// SourceKind), and Locate, the dispatcher that asks each possible source
// in turn (origin_*.go: kustomization fields, patches, JSON 6902 ops, the
// base document, removed fields, tree alignment).

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
	// FromHelm: an object of a kustomization's helmCharts as the chart
	// rendered it; File is the in-memory file (Renderer.IsHelmOutput
	// says which chart and object Doc is), Path the field in it. Where
	// the value was written (values or template line) is the chart's to
	// say.
	FromHelm
)

func (k SourceKind) String() string {
	return [...]string{"rendered", "base", "patch", "json-patch", "kustomization", "generator", "transformer-config", "helm"}[k]
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
			if res.Root.Argo != nil && k == res.Root.Argo.Root {
				k = res.Root // the root as the Application edits it
			}
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
		if r.fs.isVirtual(base.file) {
			// Not a file to edit: the chart says where the value was written.
			l.Source, l.Exact, l.Why = FromHelm, false, "the chart of a helmCharts entry renders it"
		}
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
			if l := r.Locate(res, o, q); l.Source != FromRendered && l.Source != FromBase && l.Source != FromHelm {
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
	if b == nil || r.fs.isVirtual(b.file) {
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
