package render

import (
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// functionAnnotations mark a KRM function config (exec, container or
// starlark): kustomize would start a process or a container for it.
var functionAnnotations = []string{"config.kubernetes.io/function", "config.k8s.io/function"}

// Refuse returns the one reason not to hand root to kustomize, or nil.
//
// Rendering must never reach the network or start a process. Given the
// options of Options (builtin plugins only, Helm disabled), the only
// places where krusty v0.21.2 still would are in its file loader
// (api/internal/loader): Load of an http(s) URL does an HTTP GET, and New
// of anything git.NewRepoSpecFromURL accepts runs `git` through
// git.ClonerUsingGitExec. Both are fed only by the path-like entries of
// kustomizations (resources, bases, components, patch and generator
// files, openapi, replacements, configurations, crds, generator and
// transformer configs) and by the `path`-like fields of builtin plugin
// configs loaded through generators/transformers/validators. Refuse
// checks every one of them, in every kustomization the root reaches, with
// IsRemote (kustomize's own predicates); and it refuses helmCharts,
// helmGlobals, helmChartInflationGenerator and function configs outright
// (kustomize would refuse them too with these options, but the refusal
// here is earlier and says why). So when Refuse returns nil, krusty's
// loader only ever sees local paths, and the code paths that import
// net/http and os/exec are never reached: TestNoProcessNoNetwork proves
// it with a recording git/helm on PATH and a failing HTTP transport.
//
// The Problem is placed at the offending entry: the kustomization file
// and line:column of the entry (in a base or component when the entry is
// there), or of the generators/transformers entry that loads a function
// config. A root that passes is still refused when Rancher Fleet renders
// it over a Helm chart (see fleetOverlay): Fleet applies it to helm's
// output, which shipshape cannot make.
func Refuse(g *Graph, root *Kustomization) *Problem {
	if p := refuseIn(root, map[*Kustomization]bool{}); p != nil {
		return p
	}
	if p := templateRoot(root); p != nil {
		return p
	}
	return g.fleetOverlay(root)
}

// templateRoot refuses a root one of whose kustomizations writes Go/Helm
// template markers where no applied manifest can hold them (`namespace:
// "{{ .Release.Namespace }}"`, a name prefix, selector labels, an image):
// its output is the source of a Helm chart that another tool makes, never
// applied as rendered, so its objects are not judged. Markers elsewhere (a
// generator literal holding an alert template) are data, and a marker in
// a file it reads is that file's business.
func templateRoot(root *Kustomization) *Problem {
	var p *Problem
	walkGraph(root, func(k *Kustomization) {
		if p != nil || k.Doc == nil {
			return
		}
		var where []*yaml.Node
		for _, f := range []string{"namespace", "namePrefix", "nameSuffix", "commonLabels", "images"} {
			where = append(where, mapGet(k.Doc, f))
		}
		for _, l := range seq(mapGet(k.Doc, "labels")) {
			where = append(where, mapGet(l, "pairs"))
		}
		for _, w := range where {
			walkNodes(w, func(n *yaml.Node) {
				if p == nil && n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "{{") && strings.Contains(n.Value, "}}") {
					p = &Problem{File: k.File, Line: n.Line, Column: n.Column, Refused: true, Template: true, Entry: n.Value,
						Message: "not rendered: the kustomization sets Go/Helm template markers ({{ }}): it renders the source of a chart another tool makes, not manifests to apply (lint that tool's output: helm template | shipshape lint -)"}
				}
			})
		}
	})
	return p
}

// refuseIn checks k and what it reaches in the order kustomize loads them
// (resources and bases depth first, then components, then generators and
// transformers with their files), so that the refusal names the entry
// `kustomize build` would have tried first.
func refuseIn(k *Kustomization, seen map[*Kustomization]bool) *Problem {
	if k == nil || seen[k] {
		return nil
	}
	seen[k] = true
	if k.Doc == nil {
		return nil // kustomize will report the file itself
	}
	at := func(n *yaml.Node, format string, args ...any) *Problem {
		return &Problem{File: k.File, Line: n.Line, Column: n.Column, Refused: true, Entry: n.Value, Message: fmt.Sprintf(format, args...)}
	}
	remote := func(r *Ref) *Problem {
		return at(r.Node, "not rendered: %s entry %q is remote; shipshape never reaches the network or runs git (vendor it, or lint the repository it comes from)", r.Field, r.Value)
	}
	for _, r := range k.Refs {
		if r.Kind != RefResource && r.Kind != RefComponent {
			continue
		}
		if r.Remote {
			return remote(r)
		}
		if p := refuseIn(r.Target, seen); p != nil {
			return p
		}
	}
	for i := 0; i+1 < len(k.Doc.Content); i += 2 {
		key := k.Doc.Content[i]
		switch key.Value {
		case "helmCharts", "helmGlobals", "helmChartInflationGenerator":
			return at(key, "not rendered: %s runs the helm program and may download charts; shipshape never starts a process or reaches the network (render the chart and commit its output, or lint it with helm template)", key.Value)
		}
	}
	for _, r := range k.Refs {
		if r.Kind == RefResource || r.Kind == RefComponent {
			continue
		}
		if r.Remote {
			return remote(r)
		}
		if r.Kind != RefConfig {
			continue
		}
		var why string
		switch {
		case r.Inline:
			// Positions moved to the kustomization's own lines.
			docs, _ := inlineDocs(k, r.Node)
			why = refuseConfig(docs, k.File)
		case r.Target != nil:
			if p := refuseIn(r.Target, seen); p != nil {
				return p
			}
			walkGraph(r.Target, func(t *Kustomization) {
				for _, tr := range t.Refs {
					if why == "" && tr.Path != "" && tr.Target == nil && tr.Kind == RefResource {
						why = refuseConfigFile(tr.Path)
					}
				}
			})
		case r.Path != "":
			why = refuseConfigFile(r.Path)
		}
		if why != "" {
			entry := fmt.Sprintf("%q", r.Value)
			if r.Inline {
				entry = "(inline)"
			}
			return at(r.Node, "not rendered: %s entry %s: %s", r.Field, entry, why)
		}
	}
	return nil
}

// refuseConfigFile reads a plugin config file and checks it; a file that
// cannot be read is left to kustomize to report.
func refuseConfigFile(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	docs, err := manifest.DocumentRoots(data)
	if err != nil {
		return "" // kustomize reports malformed configs
	}
	return refuseConfig(docs, path)
}

// refuseConfig returns why plugin configs (the documents of a file, or
// of an inline entry, where) must not be run: a KRM function (exec,
// container, starlark), the Helm generator, or a path-like field that is
// remote.
func refuseConfig(docs []*yaml.Node, where string) string {
	for _, obj := range docs {
		if obj == nil {
			continue
		}
		if kind := mapGet(obj, "kind"); kind != nil && kind.Value == "HelmChartInflationGenerator" {
			return fmt.Sprintf("%s:%d:%d is a HelmChartInflationGenerator, which runs the helm program; shipshape never starts a process", where, kind.Line, kind.Column)
		}
		annos := mapGet(mapGet(obj, "metadata"), "annotations")
		for _, a := range functionAnnotations {
			if k, _ := (Path{{Key: a}}).Get(annos); k != nil {
				return fmt.Sprintf("%s:%d:%d is a KRM function (%s), which kustomize runs as a program or container; shipshape never starts a process", where, k.Line, k.Column, a)
			}
		}
		if n := remoteField(obj); n != nil {
			return fmt.Sprintf("%s:%d:%d names the remote %q; shipshape never reaches the network", where, n.Line, n.Column, n.Value)
		}
	}
	return ""
}

// remoteField returns the first scalar under a path-like key (path,
// paths, files, envs, env) of a plugin config that is remote.
func remoteField(n *yaml.Node) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch k.Value {
			case "path", "paths", "files", "envs", "env":
				for _, s := range append([]*yaml.Node{v}, v.Content...) {
					val := s.Value
					if j := strings.Index(val, "="); j >= 0 && k.Value == "files" {
						val = val[j+1:]
					}
					if s.Kind == yaml.ScalarNode && IsRemote(val) {
						return s
					}
				}
			}
			if r := remoteField(v); r != nil {
				return r
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if r := remoteField(c); r != nil {
				return r
			}
		}
	}
	return nil
}
