package render

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/types"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/merge2"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/helmrender"
)

// kustomize's helmCharts with a local chart, rendered in-process: the
// entries are read as kustomize's HelmChartInflationGenerator reads them
// (api/internal/builtins, v0.21.2: chart home, version directory, values
// file and valuesInline merged by valuesMerge, the namespace a parent
// passes down), the chart is rendered by helmrender instead of the helm
// binary, and its output joins kustomize's pipeline as the generator's
// would: the kustomization is handed to krusty without its helm fields
// and with one more resource, a file held in memory that holds the
// rendered objects marked as kustomize marks the generator's (its
// namespace transformer leaves them to Helm). krusty has no way to
// replace a builtin generator (its factories are internal), so this is
// the seam. A chart not under chartHome is refused: kustomize would pull
// it with the helm binary.

// HelmChart is one helmCharts entry of a kustomization, resolved.
type HelmChart struct {
	Kust  *Kustomization
	Entry *yaml.Node // the entry in Kust's helmCharts
	Spec  types.HelmChart
	// ChartDir is the chart's directory (<chartHome>[/<name>-<version>]/<name>).
	ChartDir string
	// ValuesFile is the values file kustomize hands helm (the entry's, or
	// the chart's values.yaml); Inline the entry's valuesInline node.
	ValuesFile string
	Inline     *yaml.Node
	// Release and Namespace are what helm template is given.
	Release, Namespace string
}

// GeneratedName is the release name shipshape renders an entry without
// releaseName with: kustomize passes --generate-name, and helm names the
// release after the chart and the time of the run (<name>-<unix
// seconds>), which no two runs share; a fixed time stands in for it.
func GeneratedName(chart string) string { return chart + "-1700000000" }

// helmChartsDir is the in-memory component directory whose one resource
// holds the rendered objects of k's helmCharts, for a chart namespace
// passed down by a parent (ns); helmChartsFile is that resource.
func helmChartsDir(k *Kustomization, ns string) string {
	if ns == "" {
		return filepath.Join(k.Dir, ".shipshape-helmcharts")
	}
	return filepath.Join(k.Dir, ".shipshape-helmcharts."+ns)
}

func helmChartsFile(k *Kustomization, ns string) string {
	return filepath.Join(helmChartsDir(k, ns), "rendered.yaml")
}

// helmComponent is the kustomization of a helmChartsDir.
const helmComponent = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- rendered.yaml\n"

// HelmOutput is what one kustomization's helmCharts rendered to, as the
// in-memory file kustomize read: Docs[i] says which chart and object the
// file's document i is.
type HelmOutput struct {
	File    string
	Charts  []*HelmChart
	Results []*helmrender.Result
	Docs    []HelmDoc
	text    []byte
}

// HelmDoc is one document of a HelmOutput: object Object of Charts[Chart].
type HelmDoc struct{ Chart, Object int }

// HelmChartError is a helmCharts entry that is not rendered, at its place:
// Refused when kustomize would run the helm binary or read outside the
// scope, else kustomize (or helm) would fail on it.
type HelmChartError struct {
	File         string
	Line, Column int
	Refused      bool
	Unrendered   analysis.Unrendered
	Message      string
}

func (e *HelmChartError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Message)
}

func entryError(k *Kustomization, n *yaml.Node, format string, args ...any) *HelmChartError {
	return &HelmChartError{File: k.File, Line: n.Line, Column: n.Column, Message: fmt.Sprintf(format, args...)}
}

// helmGlobals is k's helmGlobals, as kustomize reads it.
func helmGlobals(k *Kustomization) types.HelmGlobals {
	var g types.HelmGlobals
	if n := mapGet(k.Doc, "helmGlobals"); n != nil {
		if text, err := yaml.Marshal(n); err == nil {
			_ = sigsyaml.Unmarshal(text, &g)
		}
	}
	return g
}

// chartHome is the absolute chart home of an entry, with the version
// directory kustomize adds when the entry names a repo and a version.
func chartHome(k *Kustomization, g types.HelmGlobals, c types.HelmChart) string {
	home := g.ChartHome
	if home == "" {
		home = types.HelmDefaultHome
	}
	if !filepath.IsAbs(home) {
		home = filepath.Join(k.Dir, home)
	}
	if c.Version != "" && c.Repo != "" {
		home = filepath.Join(home, fmt.Sprintf("%s-%s", c.Name, c.Version))
	}
	return home
}

// readHelmChart reads one entry as kustomize's YAML 1.1 reading of the
// kustomization does.
func readHelmChart(n *yaml.Node) (types.HelmChart, error) {
	var c types.HelmChart
	text, err := yaml.Marshal(n)
	if err == nil {
		err = sigsyaml.Unmarshal(text, &c)
	}
	return c, err
}

// refuseHelmCharts is the refusal of k's helmCharts, or nil: an entry whose
// chart is not a directory under its chart home and names a repo, which
// kustomize pulls with the helm binary. The deprecated
// helmChartInflationGenerator field is refused as a whole.
func refuseHelmCharts(k *Kustomization, key, value *yaml.Node) *Problem {
	at := func(n *yaml.Node, kind analysis.Unrendered, format string, args ...any) *Problem {
		return &Problem{File: k.File, Line: n.Line, Column: n.Column, Refused: true, Unrendered: kind, Entry: key.Value, Message: fmt.Sprintf(format, args...)}
	}
	if key.Value == "helmChartInflationGenerator" {
		return at(key, analysis.HelmCharts, "not rendered: the deprecated helmChartInflationGenerator field runs the helm program; shipshape renders local charts listed under helmCharts (write the entries there)")
	}
	g := helmGlobals(k)
	for _, e := range seq(value) {
		c, err := readHelmChart(e)
		if err != nil || c.Name == "" || c.Repo == "" {
			continue // kustomize fails on it; said when the root renders
		}
		dir := filepath.Join(chartHome(k, g, c), c.Name)
		if !k.src.isDir(dir) {
			return at(e, analysis.HelmCharts, "not rendered: chart %q not in chartHome (no directory %s); kustomize would pull it with the helm binary from %s, and shipshape never starts a process or reaches the network (vendor it: helm pull --untar --untardir %s)",
				c.Name, dir, c.Repo, filepath.Dir(dir))
		}
	}
	return nil
}

// resolveHelmChart resolves entry e of k for a chart namespace inherited
// from a parent (inherited), as kustomize's generator does before it
// runs helm; restricted is kustomize's LoadRestrictionsRootOnly.
func (r *Renderer) resolveHelmChart(k *Kustomization, g types.HelmGlobals, e *yaml.Node, inherited string, restricted bool) (*HelmChart, error) {
	c, err := readHelmChart(e)
	if err != nil {
		return nil, entryError(k, e, "helmCharts entry: %v", err)
	}
	switch {
	case c.Name == "":
		return nil, entryError(k, e, "chart name cannot be empty")
	case strings.HasPrefix(c.ReleaseName, "-"):
		return nil, entryError(k, e, "releaseName must not start with '-', got %q", c.ReleaseName)
	case strings.HasPrefix(c.Name, "-"):
		return nil, entryError(k, e, "chart name must not start with '-', got %q", c.Name)
	case c.ValuesMerge != "" && c.ValuesMerge != "merge" && c.ValuesMerge != "override" && c.ValuesMerge != "replace":
		return nil, entryError(k, mapGet(e, "valuesMerge"), "valuesMerge must be one of [merge override replace]")
	case c.NameTemplate != "" && c.ReleaseName == "":
		return nil, &HelmChartError{File: k.File, Line: e.Line, Column: e.Column, Refused: true, Unrendered: analysis.HelmCharts,
			Message: "not rendered: nameTemplate (a release name helm makes from a template) is not supported: set releaseName"}
	}
	home := chartHome(k, g, c)
	hc := &HelmChart{Kust: k, Entry: e, Spec: c, ChartDir: filepath.Join(home, c.Name), Inline: mapGet(e, "valuesInline"),
		Release: c.ReleaseName, Namespace: c.Namespace}
	if hc.Release == "" {
		hc.Release = GeneratedName(c.Name)
	}
	if hc.Namespace == "" {
		hc.Namespace = scalarOf(k.Doc, "namespace")
	}
	if hc.Namespace == "" {
		hc.Namespace = inherited
	}
	if !k.src.isDir(hc.ChartDir) {
		// kustomize's words: it pulls only with a repo.
		return nil, entryError(k, e, "no repo specified for pull, no chart found at '' (helmCharts entry %q: no directory %s)", c.Name, hc.ChartDir)
	}
	if k.src.fsys != nil {
		return nil, &HelmChartError{File: k.File, Line: e.Line, Column: e.Column, Refused: true, Unrendered: analysis.HelmCharts,
			Message: "not rendered: helmCharts are rendered from the working tree only, not from a git revision"}
	}
	if !r.fs.inScope(hc.ChartDir) || r.linkLeaves(hc.ChartDir) != "" {
		return nil, &HelmChartError{File: k.File, Line: e.Line, Column: e.Column, Refused: true, Unrendered: analysis.OutsideScope,
			Message: fmt.Sprintf("not rendered: chart %q (%s) is, or links, outside the repository (or the paths given); shipshape reads nothing there", c.Name, hc.ChartDir)}
	}
	hc.ValuesFile = c.ValuesFile
	if hc.ValuesFile == "" {
		hc.ValuesFile = filepath.Join(hc.ChartDir, "values.yaml")
	} else if !filepath.IsAbs(hc.ValuesFile) {
		hc.ValuesFile = filepath.Join(k.Dir, hc.ValuesFile)
	}
	for _, f := range append([]string{hc.ValuesFile}, c.AdditionalValuesFiles...) {
		if !filepath.IsAbs(f) {
			f = filepath.Join(k.Dir, f)
		}
		if restricted && !within(filepath.Clean(f), k.Dir) {
			return nil, entryError(k, e, "security; file '%s' is not in or below '%s'", f, k.Dir)
		}
	}
	return hc, nil
}

// linkLeaves is the first symbolic link under dir that leads out of the
// scope, or "": Helm's chart loader follows links.
func (r *Renderer) linkLeaves(dir string) string {
	var found string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || found != "" {
			return filepath.SkipDir
		}
		if d.Type()&os.ModeSymlink != 0 && !r.fs.inScope(p) {
			found = p
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// values are the values sources of hc as kustomize hands them to helm:
// the values file, with valuesInline merged into it (valuesMerge: override,
// the default, lets valuesInline win; merge lets the file win; replace
// keeps valuesInline alone), then additionalValuesFiles. Each source keeps
// its own file's positions when Helm's own merge of them gives what
// kustomize's merge (kyaml's merge2, which merges lists of named items
// and deletes a key set to null) gives; else the merged text is one
// source whose values are placed nowhere.
func (r *Renderer) values(hc *HelmChart) ([]helmrender.ValuesSource, error) {
	read := func(file string) (helmrender.ValuesSource, []byte, error) {
		data, err := r.fs.ReadFile(file)
		if err != nil {
			return helmrender.ValuesSource{}, nil, entryError(hc.Kust, hc.Entry, "helmCharts entry %q: %v", hc.Spec.Name, err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return helmrender.ValuesSource{}, nil, entryError(hc.Kust, hc.Entry, "helmCharts entry %q: values file %s: %v", hc.Spec.Name, file, err)
		}
		if len(doc.Content) == 0 {
			doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
		}
		return helmrender.ValuesSource{File: file, Node: &doc}, data, nil
	}
	var sources []helmrender.ValuesSource
	if len(hc.Spec.ValuesInline) == 0 {
		src, _, err := read(hc.ValuesFile)
		if err != nil {
			return nil, err
		}
		sources = append(sources, src)
	} else {
		inline := helmrender.ValuesSource{File: hc.Kust.File, Node: hc.Inline}
		merged, err := r.mergedInline(hc, read, inline)
		if err != nil {
			return nil, err
		}
		sources = append(sources, merged...)
	}
	for _, f := range hc.Spec.AdditionalValuesFiles {
		if !filepath.IsAbs(f) {
			f = filepath.Join(hc.Kust.Dir, f)
		}
		src, _, err := read(f)
		if err != nil {
			return nil, err
		}
		sources = append(sources, src)
	}
	return sources, nil
}

// mergedInline is the values file merged with valuesInline, as sources
// (see values).
func (r *Renderer) mergedInline(hc *HelmChart, read func(string) (helmrender.ValuesSource, []byte, error), inline helmrender.ValuesSource) ([]helmrender.ValuesSource, error) {
	inlineNode, err := kyaml.FromMap(hc.Spec.ValuesInline)
	if err != nil {
		return nil, entryError(hc.Kust, hc.Inline, "could not parse values inline into rnode: %v", err)
	}
	var out *kyaml.RNode
	var sources []helmrender.ValuesSource
	switch hc.Spec.ValuesMerge {
	case "replace":
		out, sources = inlineNode, []helmrender.ValuesSource{inline}
	default:
		file, data, err := read(hc.ValuesFile)
		if err != nil {
			return nil, err
		}
		fileNode, err := kyaml.Parse(string(data))
		if err != nil {
			return nil, entryError(hc.Kust, hc.Entry, "could not parse values file into rnode: %v", err)
		}
		if hc.Spec.ValuesMerge == "merge" {
			out, err = merge2.Merge(fileNode, inlineNode.Copy(), kyaml.MergeOptions{})
			sources = []helmrender.ValuesSource{inline, file}
		} else {
			out, err = merge2.Merge(inlineNode, fileNode.Copy(), kyaml.MergeOptions{})
			sources = []helmrender.ValuesSource{file, inline}
		}
		if err != nil {
			return nil, entryError(hc.Kust, hc.Entry, "could not merge values: %v", err)
		}
	}
	m, err := out.Map()
	if err != nil {
		return nil, entryError(hc.Kust, hc.Entry, "could not parse merged values into map: %v", err)
	}
	text, err := sigsyaml.Marshal(m)
	if err != nil {
		return nil, entryError(hc.Kust, hc.Entry, "merged values: %v", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil || len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	whole := []helmrender.ValuesSource{{File: hc.Kust.File, Node: &doc, Unplaced: true}}
	want, err1 := helmrender.UserValues(whole)
	got, err2 := helmrender.UserValues(sources)
	if err1 != nil || err2 != nil || !reflect.DeepEqual(want, got) {
		return whole, nil
	}
	return sources, nil
}

// renderHelmCharts renders k's helmCharts for the namespace a parent
// passes down, once per Renderer, into the in-memory file kustomize reads.
func (r *Renderer) renderHelmCharts(k *Kustomization, inherited string, restricted bool) (*HelmOutput, error) {
	file := helmChartsFile(k, inherited)
	key := fmt.Sprintf("%s\x00%t", file, restricted)
	v, _ := r.helm.LoadOrStore(key, &helmOnce{})
	h := v.(*helmOnce)
	h.once.Do(func() { h.out, h.err = r.renderHelmChartsOnce(k, file, inherited, restricted) })
	return h.out, h.err
}

type helmOnce struct {
	once sync.Once
	out  *HelmOutput
	err  error
}

func (r *Renderer) renderHelmChartsOnce(k *Kustomization, file, inherited string, restricted bool) (_ *HelmOutput, err error) {
	defer func() {
		// A panic in the chart's rendering is this root's failure, not
		// the run's (as charts.go does for a chart alone).
		if p := recover(); p != nil {
			n := mapGet(k.Doc, "helmCharts")
			err = &HelmChartError{File: k.File, Line: n.Line, Column: n.Column,
				Message: fmt.Sprintf("internal error while rendering helmCharts (please report it): %v", p)}
		}
	}()
	g := helmGlobals(k)
	out := &HelmOutput{File: file}
	var text strings.Builder
	for _, e := range seq(mapGet(k.Doc, "helmCharts")) {
		hc, err := r.resolveHelmChart(k, g, e, inherited, restricted)
		if err != nil {
			return nil, err
		}
		sources, err := r.values(hc)
		if err != nil {
			return nil, err
		}
		kube := hc.Spec.KubeVersion
		if kube == "" {
			kube = r.KubernetesVersion
		}
		res, err := helmrender.Render(helmrender.Options{ChartDir: hc.ChartDir, ReleaseName: hc.Release, Namespace: helmNamespace(hc.Namespace),
			Values: sources, KubernetesVersion: kube, APIVersions: hc.Spec.ApiVersions, IncludeCRDs: hc.Spec.IncludeCRDs,
			SkipTests: hc.Spec.SkipTests, NoHooks: hc.Spec.SkipHooks})
		if err != nil {
			return nil, &HelmChartError{File: k.File, Line: e.Line, Column: e.Column, Message: fmt.Sprintf("helmCharts entry %q: %v", hc.Spec.Name, err)}
		}
		ci := len(out.Charts)
		out.Charts, out.Results = append(out.Charts, hc), append(out.Results, res)
		for oi, o := range res.Objects {
			doc, err := helmGenerated(o.Text)
			if err != nil || doc == nil {
				continue
			}
			text.WriteString("---\n")
			text.Write(doc)
			out.Docs = append(out.Docs, HelmDoc{Chart: ci, Object: oi})
		}
	}
	out.text = []byte(text.String())
	r.fs.addVirtual(file, out.text)
	r.fs.addVirtual(filepath.Join(filepath.Dir(file), "kustomization.yaml"), []byte(helmComponent))
	r.fs.addVirtualDir(filepath.Dir(file))
	r.helmOut.Store(file, out)
	return out, nil
}

// helmNamespace is the namespace helm template renders in: the one given,
// else its default (no kube context: "default").
func helmNamespace(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// helmGenerated is the rendered document text (helm template's, each
// document ending with a line break) as kustomize's generator hands it on:
// annotated config.kubernetes.io/helm-generated, which kustomize's
// namespace transformer leaves alone and its output drops. nil for an
// empty document.
func helmGenerated(text string) ([]byte, error) {
	var c yaml.Node
	if err := yaml.Unmarshal([]byte(text), &c); err != nil {
		return nil, err
	}
	if len(c.Content) == 0 {
		return nil, nil
	}
	top := &c
	if top.Kind == yaml.DocumentNode {
		top = top.Content[0]
	}
	if top.Kind != yaml.MappingNode {
		return yaml.Marshal(&c)
	}
	meta := mapGet(top, "metadata")
	if meta == nil || meta.Kind != yaml.MappingNode {
		return yaml.Marshal(&c)
	}
	ann := mapGet(meta, "annotations")
	if ann == nil || ann.Kind != yaml.MappingNode {
		ann = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		meta.Content = append(meta.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "annotations"}, ann)
	}
	ann.Content = append(ann.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: konfig.HelmGeneratedAnnotation},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "true", Style: yaml.DoubleQuotedStyle})
	return yaml.Marshal(&c)
}

// HelmChartDirs are the chart directories the helmCharts entries of the
// graph's kustomizations render (those whose chart is under their chart
// home): kustomize applies them through the kustomization, never alone.
func (g *Graph) HelmChartDirs() map[string]bool {
	dirs := map[string]bool{}
	for _, k := range g.ByDir {
		if k == nil || k.Doc == nil {
			continue
		}
		glob := helmGlobals(k)
		for _, e := range seq(mapGet(k.Doc, "helmCharts")) {
			if c, err := readHelmChart(e); err == nil && c.Name != "" {
				if dir := filepath.Join(chartHome(k, glob, c), c.Name); k.src.isDir(dir) {
					dirs[dir] = true
				}
			}
		}
	}
	return dirs
}
