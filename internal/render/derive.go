package render

import (
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/resource"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// Deriving origins from the graph, without a second build.
//
// Trace asks kustomize, and costs about twice the render (kustomize
// re-encodes the transformer list into every object after every
// transformer). derive reaches the same answer from what Discover already
// read: the object's document is the one of its kind whose name it
// carries among the resource files the root reaches; the transformers
// that ran over it are those of the kustomizations on the way from the
// file up to the root, in kustomize's order (at each level: the
// components listed after the branch the object came through, then the
// kustomization's own fields in krusty's fixed order, then its
// `transformers:` configs). Locate checks every candidate against the
// rendered value either way, so a derived origin that is wrong yields a
// FromRendered location, never a wrong exact one; TestCorpusLocate
// compares both over the corpus.

// builtinOrder is krusty's order of the transformers configured by
// kustomization fields (target.KustTarget.configureBuiltinTransformers),
// each with the fields that configure it.
var builtinOrder = []struct {
	kind   string
	fields []string
}{
	{"PatchStrategicMergeTransformer", []string{"patchesStrategicMerge"}},
	{"PatchTransformer", []string{"patches"}},
	{"NamespaceTransformer", []string{"namespace"}},
	{"PrefixTransformer", []string{"namePrefix"}},
	{"SuffixTransformer", []string{"nameSuffix"}},
	{"LabelTransformer", []string{"commonLabels", "labels"}},
	{"AnnotationsTransformer", []string{"commonAnnotations"}},
	{"PatchJson6902Transformer", []string{"patchesJson6902"}},
	{"ReplicaCountTransformer", []string{"replicas"}},
	{"ImageTagTransformer", []string{"images"}},
	{"ReplacementTransformer", []string{"replacements"}},
}

// derived is an object's origin as derive found it.
type derived struct {
	origin          *resource.Origin
	transformations []*resource.Origin
}

// origins returns o's origin and transformations: kustomize's when Trace
// ran, else derived from the graph (once per result).
func (r *Renderer) origins(res *Result, o *Object) (*resource.Origin, []*resource.Origin) {
	if o.Origin != nil || o.Transformations != nil {
		return o.Origin, o.Transformations
	}
	res.deriveOnce.Do(func() { r.derive(res) })
	d := res.derived[o.Index]
	if d == nil {
		return nil, nil
	}
	return d.origin, d.transformations
}

// derive fills res.derived.
func (r *Renderer) derive(res *Result) {
	root := res.Root
	rel := func(p string) string {
		if s, err := filepath.Rel(root.Dir, p); err == nil {
			return s
		}
		return p
	}
	// The first path from the root to every kustomization, and which
	// kustomization lists each resource file.
	type step struct {
		k   *Kustomization
		via *Ref // the entry of k the path continues through
	}
	paths := map[*Kustomization][]step{}
	lister := map[string]*Kustomization{}
	var walk func(k *Kustomization, path []step)
	walk = func(k *Kustomization, path []step) {
		if k == nil {
			return
		}
		if _, seen := paths[k]; seen {
			return
		}
		paths[k] = path
		if file := res.helm.fileOf(k); file != "" {
			lister[file] = k // the rendered helmCharts: its last resource
		}
		for _, ref := range k.Refs {
			switch {
			case ref.Target != nil && (ref.Kind == RefResource || ref.Kind == RefComponent):
				walk(ref.Target, append(path[:len(path):len(path)], step{k, ref}))
			case ref.Kind == RefResource && ref.Path != "" && ref.Target == nil:
				if _, ok := lister[ref.Path]; !ok {
					lister[ref.Path] = k
				}
			}
		}
	}
	walk(root, nil)

	res.derived = make([]*derived, len(res.Objects))
	for i, o := range res.Objects {
		var b *base
		for file := range lister {
			if fb := r.findDoc(file, o); fb != nil && (b == nil || len(fb.name) > len(b.name) ||
				len(fb.name) == len(b.name) && fb.file < b.file) {
				b = fb
			}
		}
		d := &derived{}
		var from *Kustomization
		if gk, gkind, gname := r.generatorOf(root, o); gk != nil && (b == nil || len(gname) > len(b.name)) {
			d.origin = &resource.Origin{ConfiguredIn: rel(gk.File), ConfiguredBy: kyaml.ResourceIdentifier{
				TypeMeta: kyaml.TypeMeta{APIVersion: "builtin", Kind: gkind}}}
			from = gk
		} else if b != nil {
			d.origin = &resource.Origin{Path: rel(b.file)}
			from = lister[b.file]
		} else {
			res.derived[i] = d
			continue
		}
		// Up from the kustomization that made or listed the object.
		var ts []*resource.Origin
		path := paths[from]
		var via *Ref
		for level := from; level != nil; {
			ts = append(ts, r.transformersOf(level, via, rel)...)
			if len(path) == 0 {
				break
			}
			last := path[len(path)-1]
			level, via, path = last.k, last.via, path[:len(path)-1]
		}
		d.transformations = ts
		res.derived[i] = d
	}
}

// transformersOf lists the transformers of k that run over an object
// that came into k through its entry via (nil: k's own resource or
// generator): the components listed after via (or all of them) with what
// they reach, then k's own fields, then its `transformers:` configs.
func (r *Renderer) transformersOf(k *Kustomization, via *Ref, rel func(string) string) []*resource.Origin {
	var ts []*resource.Origin
	after := via == nil || via.Kind != RefComponent
	for _, ref := range k.Refs {
		if ref == via {
			after = true
			continue
		}
		if after && ref.Kind == RefComponent && ref.Target != nil {
			ts = append(ts, r.transformersOf(ref.Target, nil, rel)...)
		}
	}
	for _, b := range builtinOrder {
		for _, f := range b.fields {
			if mapGet(k.Doc, f) != nil || f == "patches" && len(k.appendedPatches()) > 0 {
				ts = append(ts, &resource.Origin{ConfiguredIn: rel(k.File),
					ConfiguredBy: kyaml.ResourceIdentifier{TypeMeta: kyaml.TypeMeta{APIVersion: "builtin", Kind: b.kind}}})
				break
			}
		}
	}
	for _, ref := range k.Refs {
		if ref.Field != "transformers" || ref.Inline {
			continue
		}
		files := []string{ref.Path}
		if ref.Target != nil {
			files = r.resourceFiles(ref.Target)
		}
		for _, f := range files {
			docs, _ := r.docs(f)
			for _, d := range docs {
				kind := scalarOf(d, "kind")
				if kind == "" {
					continue
				}
				ts = append(ts, &resource.Origin{ConfiguredIn: rel(f), ConfiguredBy: kyaml.ResourceIdentifier{
					TypeMeta: kyaml.TypeMeta{APIVersion: scalarOf(d, "apiVersion"), Kind: kind},
					NameMeta: kyaml.NameMeta{Name: scalarOf(mapGet(d, "metadata"), "name")}}})
			}
		}
	}
	return ts
}

// generatorOf finds the configMapGenerator or secretGenerator entry of the
// root's graph whose name o's name carries (the longest), for ConfigMaps
// and Secrets. Entries with `behavior: merge` change an object another
// generator made: kustomize keeps the maker as the origin, and so does
// this.
func (r *Renderer) generatorOf(root *Kustomization, o *Object) (k *Kustomization, kind, name string) {
	field := map[string]string{"ConfigMap": "configMapGenerator", "Secret": "secretGenerator"}[o.Kind]
	if field == "" || o.APIVersion != "v1" {
		return nil, "", ""
	}
	walkGraph(root, func(g *Kustomization) {
		for _, e := range seq(mapGet(g.Doc, field)) {
			if scalarOf(e, "behavior") == "merge" {
				continue
			}
			if n := scalarOf(e, "name"); n != "" && strings.Contains(o.Name, n) && len(n) > len(name) {
				k, name = g, n
			}
		}
	})
	if k == nil {
		return nil, "", ""
	}
	return k, strings.ToUpper(field[:1]) + field[1:], name
}
