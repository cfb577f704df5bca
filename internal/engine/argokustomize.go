package engine

// Argo CD Applications that build a kustomize root of this repository
// with `kustomize:` options (issue 34, item 5): each such source is an
// application of its own, the root as Argo CD edits and builds it
// (render.ArgoVariant), judged by every object rule and, as one
// application, by the cross-resource rules. The plain root is still
// rendered and judged as before. A finding caused by an option is placed
// at the option's line in the Application; one in the root's files stays
// at its line there, naming the variant among its roots. The source's
// repoURL is not compared with the repository's remote (as for charts,
// argoapps.go): a path that is a root here is taken to be this
// repository's.

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// argoKustomizeOptions are the keys of a source's `kustomize:` that
// change what Argo CD builds (version and the like do not).
var argoKustomizeOptions = []string{"namePrefix", "nameSuffix", "images", "replicas", "commonLabels",
	"commonAnnotations", "namespace", "patches", "components"}

// argoVariants are the variants of the roots of t's graph that the
// Applications of inputs build with kustomize options, and the options
// Argo CD cannot build with (reported where they are written).
// overlay holds the bytes the fix driver has changed (by path, as named).
func (e *Engine) argoVariants(t *renderState, inputs []manifest.Input, overlay map[string][]byte, roots []*render.Kustomization) ([]*render.Kustomization, []*render.ArgoOptionsError) {
	var variants []*render.Kustomization
	var problems []*render.ArgoOptionsError
	for _, in := range inputs {
		if in.Path == manifest.Stdin {
			continue
		}
		file := t.inputKey(in)
		if ext := filepath.Ext(file); ext != ".yaml" && ext != ".yml" || t.excluded(file) {
			continue
		}
		data, changed := overlay[in.Path]
		var err error
		if !changed && (!t.scans.mayHold(in.Path, file, wordArgo) || !t.scans.mayHold(in.Path, file, wordKustomizeKey)) {
			continue
		}
		if !changed {
			data, err = manifest.ReadRegular(file, e.MaxFileSize)
		}
		if err != nil || !strings.Contains(string(data), "argoproj.io/") || !strings.Contains(string(data), "kustomize:") {
			continue
		}
		docs, _ := manifest.DocumentRoots(data)
		for di, doc := range docs {
			for _, src := range argoKustomizeSources(file, data, di, doc) {
				_, at := src.At.Get(doc)
				root := e.argoRoot(t, file, manifest.ScalarValue(manifest.MapGet(at, "path")), roots)
				if root == nil {
					continue
				}
				v, problem := t.graph.ArgoVariant(root, src)
				if problem != nil {
					problems = append(problems, problem)
					continue
				}
				variants = append(variants, v)
			}
		}
	}
	return variants, problems
}

// argoKustomizeSources are the sources of doc, an Argo CD Application,
// that set kustomize options.
func argoKustomizeSources(file string, data []byte, di int, doc *yaml.Node) []render.ArgoSource {
	if manifest.ScalarValue(manifest.MapGet(doc, "kind")) != "Application" ||
		!strings.HasPrefix(manifest.ScalarValue(manifest.MapGet(doc, "apiVersion")), "argoproj.io/") {
		return nil
	}
	name := manifest.ScalarValue(manifest.Path(doc, "metadata", "name"))
	spec := manifest.MapGet(doc, "spec")
	type at struct {
		node *yaml.Node
		path render.Path
	}
	sources := []at{{manifest.MapGet(spec, "source"), render.Path{{Key: "spec"}, {Key: "source"}}}}
	if list := manifest.MapGet(spec, "sources"); list != nil && list.Kind == yaml.SequenceNode {
		sources = nil
		for i, s := range list.Content {
			sources = append(sources, at{s, render.Path{{Key: "spec"}, {Key: "sources"}, {Index: i, IsIndex: true}}})
		}
	}
	var out []render.ArgoSource
	for _, s := range sources {
		key, opts := manifest.MapEntry(s.node, "kustomize")
		if opts == nil || opts.Kind != yaml.MappingNode || manifest.MapGet(s.node, "chart") != nil ||
			!slices.ContainsFunc(argoKustomizeOptions, func(k string) bool { return manifest.MapGet(opts, k) != nil }) {
			continue
		}
		str := func(n *yaml.Node, keys ...string) string { return manifest.ScalarValue(manifest.Path(n, keys...)) }
		out = append(out, render.ArgoSource{File: file, Src: data, Doc: di, App: name, At: s.path, Options: opts, Key: key,
			Env: map[string]string{
				"ARGOCD_APP_NAME":                   name,
				"ARGOCD_APP_NAMESPACE":              str(spec, "destination", "namespace"),
				"ARGOCD_APP_PROJECT_NAME":           str(spec, "project"),
				"ARGOCD_APP_SOURCE_REPO_URL":        str(s.node, "repoURL"),
				"ARGOCD_APP_SOURCE_PATH":            str(s.node, "path"),
				"ARGOCD_APP_SOURCE_TARGET_REVISION": str(s.node, "targetRevision"),
			}})
	}
	return out
}

// argoRoot is the root of roots that an Application's source path names
// (see repositoryDirs); nil when none.
func (e *Engine) argoRoot(t *renderState, file, path string, roots []*render.Kustomization) *render.Kustomization {
	for _, dir := range t.repositoryDirs(file, path, e.contains) {
		real := t.graph.Real(dir)
		for _, r := range roots {
			if r.Dir == real && r.Kind == "Kustomization" {
				return r
			}
		}
	}
	return nil
}

// variantName names a root as its findings' Roots do: an Argo CD
// Application's variant as the Application builds it.
func (t *renderState) variantName(root *render.Kustomization) string {
	if root.Argo == nil {
		return t.show(root.Dir)
	}
	return fmt.Sprintf("%s as Argo CD Application %s builds it", t.show(root.Dir), root.Argo.Source.App)
}

// renderVariants renders and judges the Applications' variants, places
// their findings, and reports those that do not build.
func (e *Engine) renderVariants(t *renderState, files map[string]*FileResult, res *Result, variants []*render.Kustomization, problems []*render.ArgoOptionsError) {
	for _, p := range problems {
		e.reportArgoOptions(t, files, p.File, p.Line, p.Column, p.App, p.Message, p.Unknown)
	}
	// The roots have rendered: the variants are judged whole here, not
	// by the early judging of renderRoots (which keeps only what its own
	// findings need).
	t.renderer.Rendered = nil
	results := make([]*render.Result, len(variants))
	judged := make([]*FileResult, len(variants))
	e.parallel(len(variants), func(i int) {
		results[i] = t.renderer.Render(variants[i])
		if results[i].Problem == nil {
			judged[i] = e.judgeRendered(t.renderer, results[i])
		}
	})
	for i, r := range results {
		key := r.Root.Argo.Key
		if p := r.Problem; p != nil {
			src := r.Root.Argo.Source
			line, col := src.Key.Line, src.Key.Column
			where := fmt.Sprintf(" (%s:%d:%d)", t.show(p.File), p.Line, p.Column)
			if p.File == r.Root.File && r.Root.Argo.OwnsAt(p.Line, p.Column) {
				line, col, where = p.Line, p.Column, "" // at the option
			}
			e.reportArgoOptions(t, files, src.File, line, col, src.App, fmt.Sprintf("kustomize fails on %s with Application %s's kustomize options: %s%s",
				t.show(r.Root.Dir), src.App, p.Message, where), p.Refused)
			continue
		}
		t.byRoot[key] = r
		t.judged[key] = judged[i]
		for _, f := range judged[i].own {
			e.place(t, files, f)
		}
		res.context = append(res.context, judged[i])
	}
}

// reportArgoOptions reports, at file:line:col of an Application, options
// it cannot be built with: a render-error, or a render-skipped when only
// the cluster knows what they need (unknown).
func (e *Engine) reportArgoOptions(t *renderState, files map[string]*FileResult, file string, line, col int, app, msg string, unknown bool) {
	id := RenderErrorID
	if unknown {
		id = RenderSkippedID
	}
	fr := t.fileFor(files, file)
	if fr == nil || !e.Enabled(id) {
		return
	}
	msg = strings.TrimSuffix(t.relPaths(strings.TrimPrefix(msg, "not rendered: ")), ".")
	tail := "; the root is still judged as it renders without them"
	if unknown {
		msg = fmt.Sprintf("Application %s's kustomize options are not rendered: %s", app, msg)
		tail = "; no rule judges the root as this Application builds it (the root as written is judged)"
	}
	f := e.fileFinding(fr.Input.Path, id, msg+tail)
	f.Line, f.Column = line, col
	if unknown {
		f.Unrendered = analysis.ArgoVariant
	}
	fr.Findings = append(fr.Findings, f)
}
