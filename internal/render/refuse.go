package render

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
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
// IsRemote (kustomize's own predicates); and it refuses helmCharts whose
// chart is not local (helmcharts.go renders the others in-process),
// helmChartInflationGenerator, function configs and external plugins
// (configs whose apiVersion is not builtin) outright
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
		p.Also = otherRemotes(root, p)
		return p
	}
	if p := templateRoot(root); p != nil {
		return p
	}
	return g.fleetOverlay(root)
}

// templateRoot refuses a root one of whose kustomizations writes Go/Helm
// template markers where no applied manifest can hold them (`namespace:
// "{{ .Release.Namespace }}"`, a name prefix, selector labels, an image,
// or, through an inline patch, a namespace, name, labels, replicas or
// image): its output is the source of a Helm chart that another tool
// makes, never applied as rendered, so its objects are not judged.
// Markers elsewhere (a generator literal or a patched ConfigMap holding
// an alert template) are data, and a marker in a file it reads is that
// file's business.
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
				if p == nil && isMarker(n) {
					p = templateProblem(k, n)
				}
			})
		}
		for _, n := range inlinePatches(k) {
			if p == nil && strings.Contains(n.Value, "{{") {
				docs, _ := inlineDocs(k.Src, n)
				for _, d := range docs {
					if m := structuralMarker(d); m != nil && p == nil {
						p = templateProblem(k, m)
					}
				}
			}
		}
	})
	return p
}

func isMarker(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "{{") && strings.Contains(n.Value, "}}")
}

func templateProblem(k *Kustomization, n *yaml.Node) *Problem {
	return &Problem{File: k.File, Line: n.Line, Column: n.Column, Refused: true, Template: true, Entry: n.Value,
		Message: "not rendered: the kustomization sets Go/Helm template markers ({{ }}): it renders the source of a chart another tool makes, not manifests to apply (lint that tool's output: helm template | shipshape lint -)"}
}

// inlinePatches are the patches k writes inline (block scalars).
func inlinePatches(k *Kustomization) []*yaml.Node {
	var out []*yaml.Node
	for _, f := range []string{"patches", "patchesJson6902"} {
		for _, e := range seq(mapGet(k.Doc, f)) {
			if n := mapGet(e, "patch"); n != nil && n.Kind == yaml.ScalarNode {
				out = append(out, n)
			}
		}
	}
	for _, e := range seq(mapGet(k.Doc, "patchesStrategicMerge")) {
		if e.Kind == yaml.ScalarNode && strings.Contains(e.Value, "\n") {
			out = append(out, e)
		}
	}
	return out
}

// structuralMarker returns the first marker a patch document writes where
// a manifest's structure is, else nil: in a JSON patch, an op's value at
// such a path; in a strategic-merge patch, such a field.
func structuralMarker(doc *yaml.Node) *yaml.Node {
	var found *yaml.Node
	visit := func(path []string, n *yaml.Node) {
		if found == nil && isMarker(n) && structural(path) {
			found = n
		}
	}
	if doc.Kind == yaml.SequenceNode {
		for _, op := range doc.Content {
			path := strings.Split(strings.TrimPrefix(scalarOf(op, "path"), "/"), "/")
			for i, s := range path {
				path[i] = unescapePointer(s)
			}
			walkPaths(mapGet(op, "value"), path, visit)
		}
		return found
	}
	walkPaths(doc, nil, visit)
	return found
}

// structural reports whether a value at path (keys; list indexes as
// "[]") names or selects an object or sets its count or image: a field
// kustomize's namespace, name, labels, replicas or images settings write.
func structural(path []string) bool {
	keys := slices.DeleteFunc(slices.Clone(path), func(s string) bool {
		return s == "[]" || s == "-" || strings.Trim(s, "0123456789") == ""
	})
	n := len(keys)
	switch {
	case n == 0:
		return false
	case keys[n-1] == "image" || keys[n-1] == "replicas" && n == 2 && keys[0] == "spec":
		return true
	case n >= 2 && keys[n-2] == "metadata" && (keys[n-1] == "namespace" || keys[n-1] == "name"):
		return n == 2
	}
	for i := 1; i < n; i++ {
		if keys[i-1] == "metadata" && keys[i] == "labels" || keys[i-1] == "spec" && keys[i] == "selector" {
			return true
		}
	}
	return false
}

// walkPaths calls fn on every scalar under n with its key path (list
// items as "[]").
func walkPaths(n *yaml.Node, path []string, fn func([]string, *yaml.Node)) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		fn(path, n)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkPaths(n.Content[i+1], append(slices.Clip(path), n.Content[i].Value), fn)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			walkPaths(c, append(slices.Clip(path), "[]"), fn)
		}
	}
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
	at := func(n *yaml.Node, kind analysis.Unrendered, format string, args ...any) *Problem {
		return &Problem{File: k.File, Line: n.Line, Column: n.Column, Refused: true, Unrendered: kind, Entry: n.Value, Message: fmt.Sprintf(format, args...)}
	}
	remote := func(r *Ref) *Problem {
		return at(r.Node, analysis.RemoteBase, remoteFormat, r.Field, r.Value)
	}
	for _, r := range k.Refs {
		if r.Outside {
			return at(r.Node, analysis.OutsideScope, "not rendered: %s entry %q leads outside the repository (or the paths given); shipshape reads nothing there%s", r.Field, r.Value, kustomizeRefuses(r, k.Dir))
		}
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
		// helmGlobals only says where charts live: without charts listed,
		// kustomize runs no helm and builds with no flag.
		key, value := k.Doc.Content[i], k.Doc.Content[i+1]
		switch key.Value {
		case "helmCharts", "helmChartInflationGenerator":
			if value.Tag != "!!null" && !(value.Kind == yaml.SequenceNode && len(value.Content) == 0) {
				if p := refuseHelmCharts(k, key, value); p != nil {
					return p
				}
			}
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
			docs, _ := inlineDocs(k.Src, r.Node)
			why = refuseConfig(docs, k.File)
		case r.Target != nil:
			if p := refuseIn(r.Target, seen); p != nil {
				return p
			}
			walkGraph(r.Target, func(t *Kustomization) {
				for _, tr := range t.Refs {
					if why == "" && tr.Path != "" && tr.Target == nil && tr.Kind == RefResource {
						why = refuseConfigFile(t.src, tr.Path)
					}
				}
			})
		case r.Path != "":
			why = refuseConfigFile(k.src, r.Path)
		}
		if why != "" {
			entry := fmt.Sprintf("%q", r.Value)
			if r.Inline {
				entry = "(inline)"
			}
			return at(r.Node, analysis.Function, "not rendered: %s entry %s: %s", r.Field, entry, why)
		}
	}
	return nil
}

// kustomizeRefuses says, for an entry outside the scope, whether
// kustomize refuses it too: with its default load restrictor (RootOnly) a
// file must be in or below the directory of the kustomization that lists
// it; only a directory holding a kustomization (a base, a component) may
// be anywhere. The entry is never looked at, so a resources entry may be
// either, and one that leaves through a link is not judged.
func kustomizeRefuses(r *Ref, dir string) string {
	if !filepath.IsAbs(r.Value) && within(filepath.Join(dir, r.Value), dir) {
		return ""
	}
	switch r.Kind {
	case RefResource:
		return " (kustomize refuses it too unless it is a directory with a kustomization: files must be in or below the kustomization's directory)"
	case RefComponent:
		return ""
	}
	return " (kustomize refuses it too: files must be in or below the kustomization's directory)"
}

// refuseConfigFile reads a plugin config file and checks it; a file that
// cannot be read is left to kustomize to report.
func refuseConfigFile(from source, path string) string {
	data, err := from.read(path)
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
// container, starlark), the Helm generator, a path-like field that is
// remote, or an external (exec or Go) plugin.
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
		// Not builtin (kustomize's test: apiVersion "builtin"), not a
		// function: an external plugin, which kustomize loads only with
		// --enable-alpha-plugins. Without apiVersion, kustomize's error
		// says what is wrong.
		if av, kind := mapGet(obj, "apiVersion"), mapGet(obj, "kind"); av != nil && av.Value != "" && av.Value != "builtin" && kind != nil {
			return fmt.Sprintf("%s:%d:%d is an external kustomize plugin (%s %s), which kustomize loads only with --enable-alpha-plugins and runs as a program; shipshape never starts a process", where, av.Line, av.Column, av.Value, kind.Value)
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

// TemplateBases returns the kustomizations that only roots refused for
// template markers list, directly: a Helm overlay over an operator's
// config/default makes a chart from it, and config/default is applied on
// its own too (`kustomize build config/default | kubectl apply -f -`), so
// it is rendered as a root of its own rather than not judged at all. A
// base that a rendered root reaches is judged there already.
func TemplateBases(g *Graph, roots []*Kustomization) []*Kustomization {
	var templates, rendered []*Kustomization
	for _, r := range roots {
		// templateRoot reads only the kustomizations, already parsed;
		// Refuse, which Render runs again, may read plugin configs.
		if templateRoot(r) != nil {
			if p := Refuse(g, r); p != nil && p.Template {
				templates = append(templates, r)
				continue
			}
		}
		rendered = append(rendered, r)
	}
	return basesOf(templates, rendered)
}

// UnrenderedBases is TemplateBases for roots that were not rendered for
// another reason (a file kustomize cannot read, a remote base): an
// operator's config/manifests lists a file `make bundle` writes, and
// config/default, which it lists too, is what `make deploy` applies.
func UnrenderedBases(results []*Result) []*Kustomization {
	var failed, rendered []*Kustomization
	for _, res := range results {
		switch {
		case res.Problem == nil:
			rendered = append(rendered, res.Root)
		case !res.Problem.Template:
			failed = append(failed, res.Root)
		}
		// A template root renders nothing of its bases either:
		// TemplateBases left to the others those that they reach.
	}
	return basesOf(failed, rendered)
}

// basesOf is the kustomizations parents list directly as resources that
// no root of rendered reaches, Components aside (never applied alone).
func basesOf(parents, rendered []*Kustomization) []*Kustomization {
	if len(parents) == 0 {
		return nil
	}
	reached := map[*Kustomization]bool{}
	for _, r := range rendered {
		walkGraph(r, func(k *Kustomization) { reached[k] = true })
	}
	var out []*Kustomization
	for _, p := range parents {
		for _, ref := range p.Refs {
			if b := ref.Target; ref.Kind == RefResource && b != nil && b != p && b.Kind != "Component" && !reached[b] {
				reached[b] = true
				out = append(out, b)
			}
		}
	}
	return out
}

const remoteFormat = "not rendered: %s entry %q is remote; shipshape never reaches the network or runs git (vendor it, or lint the repository it comes from)"

// otherRemotes lists, as problems of their own, the remote entries the
// root reaches besides the one p reports: each stays hidden otherwise (a
// second remote base, leaderworkerset's beside argo's), and vendoring the
// first only brings the next one to light.
func otherRemotes(root *Kustomization, p *Problem) []*Problem {
	var out []*Problem
	walkGraph(root, func(k *Kustomization) {
		for _, r := range k.Refs {
			if !r.Remote || r.Node == nil || k.File == p.File && r.Node.Line == p.Line && r.Node.Column == p.Column {
				continue
			}
			out = append(out, &Problem{File: k.File, Line: r.Node.Line, Column: r.Node.Column, Refused: true, Unrendered: analysis.RemoteBase, Entry: r.Value,
				Message: fmt.Sprintf(remoteFormat, r.Field, r.Value)})
		}
	})
	return out
}
