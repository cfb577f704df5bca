package engine

// Flux post-build variable substitution (issue 34, item 4). A Flux
// Kustomization whose spec.postBuild sets substitute or substituteFrom
// applies what its spec.path builds (a kustomize root, or a directory
// without a kustomization, for which Flux generates one) after
// substituting ${…} in each object's text and reading the text back as
// YAML 1.1 (internal/fluxsubst does it as kustomize-controller does). What
// it applies is judged by the object rules; a finding is kept when the
// field it is about held a placeholder (the object's other findings are
// the unsubstituted object's, reported once), and placed at that ${VAR}
// in the source, naming the value and where it is defined. Variables, lowest first:
// substituteFrom in order (ConfigMap data, Secret data or stringData, in
// the Flux Kustomization's namespace; newlines removed), then substitute.

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/fluxsubst"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// fluxVar is one variable of a post-build substitution and where it is
// defined.
type fluxVar struct {
	value        string
	file         string // real path
	line, column int    // the value's
	key          *yaml.Node
	from         string // "spec.postBuild.substitute", "ConfigMap/vars"
}

// unknownSource is a substituteFrom entry whose values are not known, and
// why.
type unknownSource struct {
	ref *yaml.Node
	why string
}

// postBuildVars are a Flux Kustomization's variables; missing is the
// substituteFrom entry whose values are not known (the variables are then
// not known); bad is a variable whose name Flux refuses (its key nil when
// there is none).
func postBuildVars(pb *render.FluxPostBuild, objects []valuesObject) (vars map[string]fluxVar, missing *unknownSource, bad fluxVar) {
	vars = map[string]fluxVar{}
	if from := manifest.Path(pb.PostBuild, "substituteFrom"); from != nil && from.Kind == yaml.SequenceNode {
		for _, ref := range from.Content {
			kind := manifest.ScalarValue(manifest.Path(ref, "kind"))
			name := manifest.ScalarValue(manifest.Path(ref, "name"))
			i, ambiguous := nearestObject(pb, kind, name, objects)
			switch {
			case ambiguous:
				return nil, &unknownSource{ref, "is defined in several files as near to the Flux Kustomization as each other"}, fluxVar{}
			case i >= 0 && manifest.Path(objects[i].node, "sops") != nil:
				return nil, &unknownSource{ref, "is encrypted (SOPS)"}, fluxVar{}
			case i < 0 && manifest.ScalarValue(manifest.Path(ref, "optional")) == "true":
				continue
			case i < 0:
				return nil, &unknownSource{ref, "is not in the files linted (made in the cluster?)"}, fluxVar{}
			}
			objectVars(objects[i], vars)
		}
	}
	if sub := manifest.Path(pb.PostBuild, "substitute"); sub != nil && sub.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(sub.Content); i += 2 {
			k, v := sub.Content[i], sub.Content[i+1]
			vars[k.Value] = fluxVar{value: strings.ReplaceAll(v.Value, "\n", ""), file: pb.File, line: v.Line, column: v.Column, key: k, from: "spec.postBuild.substitute"}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		if !fluxsubst.ValidName(name) {
			return nil, nil, vars[name]
		}
	}
	return vars, nil, fluxVar{}
}

// nearestObject is the index in objects of the ConfigMap or Secret a
// substituteFrom entry names, in the Flux Kustomization's namespace: of
// several (each cluster's directory has its own cluster-vars), the one in
// the directory nearest the Flux Kustomization's file; -1 when there is
// none, or (ambiguous) when two are as near: which one the cluster has
// is not known.
func nearestObject(pb *render.FluxPostBuild, kind, name string, objects []valuesObject) (int, bool) {
	best, bestLen, tie := -1, -1, false
	dir := filepath.Dir(pb.File) + string(filepath.Separator)
	for i, o := range objects {
		if o.kind != kind || o.name != name || o.namespace != "" && pb.Namespace != "" && o.namespace != pb.Namespace {
			continue
		}
		other := filepath.Dir(o.file) + string(filepath.Separator)
		n := 0
		for n < len(dir) && n < len(other) && dir[n] == other[n] {
			n++
		}
		n = strings.LastIndex(dir[:n], string(filepath.Separator)) // whole directories only
		switch {
		case n > bestLen:
			best, bestLen, tie = i, n, false
		case n == bestLen:
			tie = true
		}
	}
	if tie {
		return -1, true
	}
	return best, false
}

// objectVars adds the data of a ConfigMap or Secret to vars.
func objectVars(o valuesObject, vars map[string]fluxVar) {
	add := func(data *yaml.Node, decode bool) {
		if data == nil || data.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(data.Content); i += 2 {
			k, v := data.Content[i], data.Content[i+1]
			text := v.Value
			if decode {
				var err error
				if text, err = decodeBase64(v.Value); err != nil {
					continue
				}
			}
			vars[k.Value] = fluxVar{value: strings.ReplaceAll(text, "\n", ""), file: o.file, line: v.Line, column: v.Column, key: k, from: o.kind + "/" + o.name}
		}
	}
	add(manifest.Path(o.node, "data"), o.kind == "Secret")
	if o.kind == "Secret" {
		add(manifest.Path(o.node, "stringData"), false) // the API server merges it over data
	}
}

// judgePostBuilds judges what each Flux Kustomization with a post-build
// substitution applies, and places its findings (see the top of this file).
func (e *Engine) judgePostBuilds(t *renderState, files map[string]*FileResult, res *Result, slots []*FileResult, pbs []*render.FluxPostBuild) {
	if len(pbs) == 0 {
		return
	}
	// The files are read again for ConfigMaps and Secrets only when a
	// Kustomization substitutes from them.
	var objects []valuesObject
	from := slices.ContainsFunc(pbs, func(pb *render.FluxPostBuild) bool { return manifest.Path(pb.PostBuild, "substituteFrom") != nil })
	for _, fr := range slots {
		if !from || fr.Input.Path == manifest.Stdin {
			continue
		}
		if _, _, vs, ok := readReleaseObjects(t.key(fr.Input.Path), e.MaxFileSize, "ConfigMap", "Secret"); ok {
			objects = append(objects, vs...)
		}
	}
	for _, pb := range pbs {
		vars, missing, bad := postBuildVars(pb, objects)
		switch {
		case missing != nil:
			if e.Enabled(notRenderedID) {
				f := e.fileFinding("", notRenderedID, fmt.Sprintf("not substituted: %s/%s %s, so the variables of Flux Kustomization %s are not known; what it applies is judged without its post-build substitution",
					manifest.ScalarValue(manifest.Path(missing.ref, "kind")), manifest.ScalarValue(manifest.Path(missing.ref, "name")), missing.why, pb.Name))
				f.Unrendered = analysis.Substitution
				e.recordAt(t, files, f, pb.File, missing.ref.Line, missing.ref.Column)
			}
			continue
		case bad.key != nil:
			e.postBuildErrorIn(t, files, pb, bad.file, bad.key.Line, bad.key.Column, fmt.Sprintf("'%s' var name is invalid, must match '^[_[:alpha:]][_[:alpha:][:digit:]]*$' (%s)", bad.key.Value, bad.from))
			continue
		case len(vars) == 0:
			continue // Flux substitutes nothing without variables
		}
		var srcs []substSource
		for _, root := range pb.Roots {
			if r := t.byRoot[root.File]; r != nil && r.Problem == nil {
				srcs = append(srcs, rootObjects(t, r))
			}
		}
		if pb.Generated != "" {
			srcs = append(srcs, generatedObjects(t, slots, pb.Generated, e.MaxFileSize)...)
		}
		if fr := e.judgeSubstituted(t, files, pb, vars, srcs); fr != nil {
			res.context = append(res.context, fr)
		}
	}
}

// substSource is a set of objects Flux substitutes in, before
// substitution, and how to find where their values are written.
type substSource struct {
	from string // what Flux built, as shown (a root's or a directory's)
	file string // what the objects' Doc indexes: a root's kustomization, or a file
	objs []*yaml.Node
	// locate is where the value at p of objs[i] is written: file, line and
	// column; ok is false when it is not known.
	locate func(i int, p render.Path) (file string, line, col int, ok bool)
}

// rootObjects are the rendered objects of a kustomize root.
func rootObjects(t *renderState, res *render.Result) substSource {
	src := substSource{from: t.show(res.Root.Dir), file: res.Root.File}
	for _, o := range res.Objects {
		src.objs = append(src.objs, o.Node)
	}
	src.locate = func(i int, p render.Path) (string, int, int, bool) {
		loc := t.renderer.Locate(res, res.Objects[i], p)
		return loc.File, loc.Line, loc.Column, loc.Source != render.FromRendered && loc.Line > 0
	}
	return src
}

// generatedObjects are the objects of the manifests of a directory Flux
// generates a kustomization for (those of its files whose Flux
// application is there or below), one source per file. A file is read
// again under limit (--max-file-size), as lint read it.
func generatedObjects(t *renderState, slots []*FileResult, dir string, limit int64) []substSource {
	var out []substSource
	for _, fr := range slots {
		if fr.Input.Path == manifest.Stdin {
			continue
		}
		key := t.key(fr.Input.Path)
		if _, ok := below(dir, key); !ok || t.graph.FluxApplication(key) == "" {
			continue
		}
		data, err := manifest.ReadRegular(key, limit)
		if err != nil || !strings.Contains(string(data), "${") {
			continue
		}
		docs, _ := manifest.DocumentRoots(data)
		src := substSource{from: t.show(dir), file: key, objs: docs}
		src.locate = func(i int, p render.Path) (string, int, int, bool) {
			_, v := p.Get(docs[i])
			if v == nil {
				return "", 0, 0, false
			}
			return key, v.Line, v.Column, true
		}
		out = append(out, src)
	}
	return out
}

// postBuildError is a render-error at line:col of the Flux Kustomization:
// Flux's build fails there, and nothing it applies is applied.
func (e *Engine) postBuildError(t *renderState, files map[string]*FileResult, pb *render.FluxPostBuild, line, col int, msg string) {
	e.postBuildErrorIn(t, files, pb, pb.File, line, col, msg)
}

// postBuildErrorIn is postBuildError at line:col of file (where the
// variable that fails it is defined).
func (e *Engine) postBuildErrorIn(t *renderState, files map[string]*FileResult, pb *render.FluxPostBuild, file string, line, col int, msg string) {
	if !e.Enabled(RenderErrorID) {
		return
	}
	f := e.fileFinding("", RenderErrorID, fmt.Sprintf("Flux's post-build substitution fails for Kustomization %s: %s; Flux applies none of its objects (they are judged without the substitution)", pb.Name, t.relPaths(msg)))
	e.recordAt(t, files, f, file, line, col)
}

// substVariant is one source of what a Flux Kustomization applies after
// substitution: where its findings go (see placeSubstituted).
type substVariant struct {
	pb   *render.FluxPostBuild
	vars map[string]fluxVar
	src  substSource
}

// judgeSubstituted substitutes vars in the objects of the sources, judges
// the objects that held a placeholder, places the findings about a field
// that held one, and returns every object observed for the
// cross-resource rules as one application (the Flux Kustomization's), or
// nil when Flux's substitution fails.
func (e *Engine) judgeSubstituted(t *renderState, files map[string]*FileResult, pb *render.FluxPostBuild, vars map[string]fluxVar, srcs []substSource) *FileResult {
	values := make(map[string]string, len(vars))
	for k, v := range vars {
		values[k] = v.value
	}
	app := analysis.AppID{Dir: fmt.Sprintf("%s#%d", pb.File, pb.Doc)}
	fr := &FileResult{}
	var found []analysis.Finding
	for _, src := range srcs {
		key := fmt.Sprintf("%s#%d!%s", pb.File, pb.Doc, src.file)
		var changed []*manifest.Object
		for i, n := range src.objs {
			if n == nil || n.Kind != yaml.MappingNode {
				continue
			}
			sub, substituted := n, !fluxsubst.Disabled(n) && strings.Contains(nodeText(n), "${")
			if substituted {
				var err error
				if sub, err = fluxsubst.Apply(n, values); err != nil {
					e.postBuildError(t, files, pb, pb.PostBuild.Line, pb.PostBuild.Column, fmt.Sprintf("%s/%s of %s: %v",
						manifest.ScalarValue(manifest.Path(n, "kind")), manifest.ScalarValue(manifest.Path(n, "metadata", "name")), src.from, err))
					return nil
				}
			}
			obj := manifest.NewObject(sub, key, i, false)
			if obj == nil {
				continue
			}
			obj.Root, obj.Substituted = key, pb.File
			if substituted {
				changed = append(changed, obj)
			}
			e.observe(fr, obj, objectKey{i, -1}, app)
		}
		noJSONPatch := func(int, string) *yaml.Node { return nil }
		found = e.checkObjects(changed, found[:0], noJSONPatch)
		for _, f := range found {
			e.placeSubstituted(t, files, pb, vars, src, f)
		}
		if t.substituted == nil {
			t.substituted = map[string]substVariant{}
		}
		t.substituted[key] = substVariant{pb, vars, src}
	}
	return fr
}

// nodeText is every scalar of n, for a cheap test of whether it holds a
// placeholder at all.
func nodeText(n *yaml.Node) string {
	var b strings.Builder
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		b.WriteString(n.Value)
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// placeSubstituted puts f, about object f.Doc of src after substitution,
// at the placeholder its field held in the source (the first, for a
// mapping or list: a selector of variables); f is dropped when the field
// held none (the unsubstituted object's own finding says it).
func (e *Engine) placeSubstituted(t *renderState, files map[string]*FileResult, pb *render.FluxPostBuild, vars map[string]fluxVar, src substSource, f analysis.Finding) {
	p, err := render.ParsePath(f.Field)
	if err != nil || len(p) == 0 || f.Doc < 0 || f.Doc >= len(src.objs) {
		return
	}
	_, v := p.Get(src.objs[f.Doc])
	p, v = firstPlaceholder(p, v)
	if v == nil {
		return
	}
	holes := fluxsubst.Placeholders(v.Value)
	var said []string
	for _, h := range holes {
		fv, ok := vars[h.Name]
		switch {
		case ok:
			said = append(said, fmt.Sprintf("${%s} is %q, set at %s:%d:%d (%s)", h.Name, fv.value, t.show(fv.file), fv.line, fv.column, fv.from))
		case h.Default:
			said = append(said, fmt.Sprintf("${%s} is not set: its default applies", h.Name))
		default:
			said = append(said, fmt.Sprintf("${%s} is not set: Flux substitutes an empty string", h.Name))
		}
	}
	f.Severity = e.severityOf(f)
	f.Fix = nil
	f.Message += fmt.Sprintf(" (in what Flux Kustomization %s applies from %s after its post-build substitution: %s)", pb.Name, src.from, strings.Join(said, "; "))
	file, line, col, ok := src.locate(f.Doc, p)
	if !ok {
		e.recordAt(t, files, f, pb.File, pb.PostBuild.Line, pb.PostBuild.Column)
		return
	}
	e.recordAt(t, files, f, file, line, placeholderColumn(file, line, col, holes[0].Name, e.MaxFileSize))
}

// firstPlaceholder is the first scalar at or below v (at p) that holds a
// placeholder, and its path; nil when none does.
func firstPlaceholder(p render.Path, v *yaml.Node) (render.Path, *yaml.Node) {
	if v == nil {
		return p, nil
	}
	switch v.Kind {
	case yaml.ScalarNode:
		if len(fluxsubst.Placeholders(v.Value)) > 0 {
			return p, v
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(v.Content); i += 2 {
			if q, n := firstPlaceholder(append(p[:len(p):len(p)], render.Step{Key: v.Content[i].Value}), v.Content[i+1]); n != nil {
				return q, n
			}
		}
	case yaml.SequenceNode:
		for i, c := range v.Content {
			if q, n := firstPlaceholder(append(p[:len(p):len(p)], render.Step{Index: i, IsIndex: true}), c); n != nil {
				return q, n
			}
		}
	}
	return p, nil
}

// placeholderColumn is the column of "${name" on line of file at or after
// col (the value's column); col when it is not there (a block scalar), or
// when file cannot be read under limit (--max-file-size).
func placeholderColumn(file string, line, col int, name string, limit int64) int {
	data, err := manifest.ReadRegular(file, limit)
	if err != nil {
		return col
	}
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) || col < 1 || col > len(lines[line-1])+1 {
		return col
	}
	if i := strings.Index(lines[line-1][col-1:], "${"+name); i >= 0 {
		return col + i
	}
	return col
}
