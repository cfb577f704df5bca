package engine

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// How an application's engine applies its change (analysis.Applier):
// what the repository says first (a Flux Kustomization building the
// application's path, an Argo CD Application whose source path it is),
// then the configuration (lws.engine names the engine the repository is
// applied with), else unknown.

// appliers are the Argo CD Applications of the tree, by the directory
// their source builds (real, absolute), and the configured engine.
type appliers struct {
	argo       map[string]analysis.Applier
	configured analysis.Engine
}

// appliers reads the Argo CD Applications among the run's files (only
// under --base, when the change touches an application).
func (e *Engine) appliers(t *renderState, slots []*FileResult, plan rootPlan) *appliers {
	a := &appliers{argo: map[string]analysis.Applier{}, configured: configuredEngine(e.cfg.LWS.Engine)}
	for _, fr := range slots {
		if fr.Input.Path == manifest.Stdin {
			continue
		}
		data, err := e.read(fr.Input)
		if err != nil || !strings.Contains(string(data), "argoproj.io/") {
			continue
		}
		docs, _ := manifest.DocumentRoots(data)
		for _, doc := range docs {
			for _, path := range argoPaths(doc) {
				dir := t.graph.Real(filepath.Join(e.Base.Root, filepath.FromSlash(path)))
				a.argo[dir] = argoApplier(doc)
			}
		}
	}
	return a
}

// of is the applier of the application in dir; flux is the Flux
// Kustomization that builds it, if any.
func (a *appliers) of(dir string, flux *render.FluxApply) analysis.Applier {
	if flux != nil {
		return analysis.Applier{Engine: analysis.EngineFlux, Prune: flux.Prune, Recreate: flux.Force, Known: true}
	}
	if ap, ok := a.argo[dir]; ok {
		return ap
	}
	return analysis.Applier{Engine: a.configured}
}

// configuredEngine is the engine lws.engine names.
func configuredEngine(name string) analysis.Engine {
	switch name {
	case "argocd":
		return analysis.EngineArgoCD
	case "flux":
		return analysis.EngineFlux
	case "kapp":
		return analysis.EngineKapp
	case "cli-utils":
		return analysis.EngineKubectl
	}
	return analysis.EngineUnknown
}

// argoPaths are the source paths of doc when it is an Argo CD
// Application (spec.source, or each of spec.sources).
func argoPaths(doc *yaml.Node) []string {
	if manifest.ScalarValue(manifest.MapGet(doc, "kind")) != "Application" ||
		!strings.HasPrefix(manifest.ScalarValue(manifest.MapGet(doc, "apiVersion")), "argoproj.io/") {
		return nil
	}
	spec := manifest.MapGet(doc, "spec")
	var out []string
	if p := manifest.ScalarValue(manifest.MapGet(manifest.MapGet(spec, "source"), "path")); p != "" {
		out = append(out, p)
	}
	if list := manifest.MapGet(spec, "sources"); list != nil && list.Kind == yaml.SequenceNode {
		for _, s := range list.Content {
			if p := manifest.ScalarValue(manifest.MapGet(s, "path")); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// argoApplier reads an Application's sync policy: automated prune, and
// the sync options that turn a refused update into delete and create
// (Replace=true with Force=true; Replace alone replaces, which the API
// server refuses alike for an immutable field).
func argoApplier(doc *yaml.Node) analysis.Applier {
	policy := manifest.MapGet(manifest.MapGet(doc, "spec"), "syncPolicy")
	prune := manifest.ScalarValue(manifest.MapGet(manifest.MapGet(policy, "automated"), "prune")) == "true"
	var opts []string
	if list := manifest.MapGet(policy, "syncOptions"); list != nil && list.Kind == yaml.SequenceNode {
		for _, n := range list.Content {
			opts = append(opts, strings.ReplaceAll(manifest.ScalarValue(n), " ", ""))
		}
	}
	recreate := slices.Contains(opts, "Replace=true") && slices.Contains(opts, "Force=true")
	return analysis.Applier{Engine: analysis.EngineArgoCD, Prune: prune, Recreate: recreate, Known: true}
}

// safeChange runs a change rule; a panic is an internal error reported at
// fallback (the application's kustomization or first file), not the end
// of the run.
func (e *Engine) safeChange(r *analysis.Rule, p *analysis.ChangePass, fallback *FileResult) {
	defer func() {
		if v := recover(); v != nil && fallback != nil {
			fallback.Findings = append(fallback.Findings, e.fileFinding(fallback.Input.Path, InternalErrorID,
				fmt.Sprintf("internal error in %s while judging the change against the base (please report it): %v", r.ID, v)))
		}
	}()
	r.Change(p)
}

func itoa(n int) string { return strconv.Itoa(n) }

// childAt is n's child at el (a mapping key or a sequence index), or nil.
func childAt(n *yaml.Node, el manifest.PathElem) *yaml.Node {
	if n == nil {
		return nil
	}
	if el.Index < 0 {
		return manifest.MapGet(n, el.Key)
	}
	if n.Kind == yaml.SequenceNode && el.Index >= 0 && el.Index < len(n.Content) {
		return n.Content[el.Index]
	}
	return nil
}
