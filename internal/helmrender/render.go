package helmrender

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// DefaultKubernetesVersion is the cluster version templates see in
// .Capabilities.KubeVersion when Options.KubernetesVersion is empty. Helm built
// from its Go module says v1.20, which charts such as podinfo's (kubeVersion
// ">=1.23.0-0") refuse; a current release is the honest default for a linter
// of what will be applied now.
const DefaultKubernetesVersion = "v1.34.0"

// ValuesSource is one set of user values, as a yaml.v3 node read from File: a
// values file, a HelmRelease's spec.values, an Application's valuesObject.
// Helm reads it as it reads a values file (YAML 1.1); the node's positions say
// where each value is written.
type ValuesSource struct {
	File string
	Node *yaml.Node // a mapping node, or a document node holding one
	// Unplaced is set for values read from text no user wrote as it is
	// (kustomize's merge of valuesInline into a values file): they are
	// rendered, but no value is claimed to come from a line of File.
	Unplaced bool
	// Archive is set for a values file inside a chart archive (an Argo CD
	// valueFiles entry of a chart from a chart repository): File is then
	// its member's path, as in a Position.
	Archive string
}

// Options says what to render and how, as `helm template` flags do.
type Options struct {
	ChartDir    string // a chart directory, or a chart archive (.tgz)
	ReleaseName string
	Namespace   string
	// Values are the user's values, lowest precedence first (helm's `-f a -f b`
	// order); the chart's own values.yaml comes before all of them.
	Values []ValuesSource
	// KubernetesVersion is the target cluster version (.Capabilities.KubeVersion),
	// e.g. "v1.34.0" or "1.34"; empty means DefaultKubernetesVersion.
	KubernetesVersion string
	// APIVersions are added to Helm's built-in set (.Capabilities.APIVersions),
	// as `helm template --api-versions` does.
	APIVersions []string
	// IncludeCRDs renders the files under each chart's crds/ directory too
	// (`helm template --include-crds`; Flux and Argo CD install them).
	IncludeCRDs bool
	// SkipTests leaves out the test hooks (`helm template --skip-tests`),
	// NoHooks every hook (`--no-hooks`).
	SkipTests, NoHooks bool
	// MayLoad says whether a `file://` dependency's directory, not vendored
	// under charts/, may be read (nil: none is); see localdeps.go.
	MayLoad func(dir string) error
}

// Position is a place in a file. A file inside a chart archive has Archive set
// to the archive's path and File to the member's path inside it.
type Position struct {
	Archive      string
	File         string
	Line, Column int
}

func (p Position) String() string {
	name := p.File
	if p.Archive != "" {
		name = p.Archive + "!" + p.File
	}
	if p.Line == 0 {
		return name
	}
	if p.Column == 0 {
		return fmt.Sprintf("%s:%d", name, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", name, p.Line, p.Column)
}

// Object is one rendered document.
type Object struct {
	Template string   // Helm's template name, e.g. "mychart/templates/deployment.yaml"
	Source   Position // the template file (no line: a document has no single one)
	Index    int      // 0-based position among the template's non-empty documents
	Text     string   // the document as Helm rendered it
	Node     *yaml.Node
	// Values lists the rendered scalars known to come from a values leaf, and
	// where that leaf was set (see markers.go for what "known" means).
	Values []ValueUse
}

// ValueUse says that the scalar at Field in a rendered object was produced by
// inserting the value at ValuesPath.
type ValueUse struct {
	Field      []string // mapping keys, sequence indices in decimal
	ValuesPath []string // e.g. ["image", "tag"], in the root chart's values
	// Whole is true when the rendered scalar is the value and nothing else
	// (e.g. `tag: {{ .Values.tag }}`), false when the value is part of it
	// (e.g. `image: "{{ .Values.repo }}:{{ .Values.tag }}"`).
	Whole bool
	Value interface{} // the value as Helm read it (e.g. float64 1.1 for `1.10`)
	// Origin is where the value was written; zero when no source that Helm
	// read holds exactly this value at this path (then nothing is claimed).
	Origin Position
}

// ProblemKind names what is wrong with a chart that still renders.
type ProblemKind int

const (
	// MissingDependency: Chart.yaml lists a dependency that is not under
	// charts/. Helm's engine renders the parent alone without a word;
	// `helm template` refuses (`helm dependency build` fetches it).
	MissingDependency ProblemKind = iota + 1
)

func (k ProblemKind) String() string {
	switch k {
	case MissingDependency:
		return "missing-dependency"
	}
	return fmt.Sprintf("ProblemKind(%d)", int(k))
}

// Problem is something wrong that did not stop the rendering.
type Problem struct {
	Kind    ProblemKind
	Pos     Position
	Message string
}

// Result is what a chart renders to.
type Result struct {
	Chart    string // the chart's name
	Objects  []Object
	Problems []Problem
}

// TemplateError is a template that failed to parse or execute, at its line.
type TemplateError struct {
	Pos     Position
	Message string // Helm's message
}

func (e *TemplateError) Error() string { return e.Pos.String() + ": " + e.Message }

// Render renders the chart as `helm template` would with the same release
// name, namespace, values, --kube-version and --api-versions.
func Render(opts Options) (*Result, error) {
	chrt, err := loader.Load(opts.ChartDir)
	if err != nil {
		return nil, fmt.Errorf("%s: loading chart: %w", opts.ChartDir, err)
	}
	var local []localDependency
	if !isArchive(opts.ChartDir) {
		local = addLocalDependencies(chrt, opts.ChartDir, opts.MayLoad)
	}
	layout, err := newChartLayout(opts.ChartDir, chrt)
	if err != nil {
		return nil, err
	}
	for _, d := range local {
		layout.place(d.chart, chartLocation{dir: d.dir})
	}
	caps, err := capabilities(opts)
	if err != nil {
		return nil, err
	}
	if c := chrt.Metadata.KubeVersion; c != "" && !compatibleRange(c, caps.KubeVersion.String()) {
		return nil, fmt.Errorf("%s: chart requires kubeVersion: %s which is incompatible with Kubernetes %s (set kubernetesVersion)",
			layout.chartFile(chrt), c, caps.KubeVersion.String())
	}
	res := &Result{Chart: chrt.Name(), Problems: layout.missingDependencies(chrt)}

	userVals, err := readUserValues(opts.Values)
	if err != nil {
		return nil, err
	}
	// Conditions, tags and import-values, as action.Install does before rendering.
	if err := processDependencies(chrt, userVals); err != nil {
		return nil, fmt.Errorf("%s: dependencies: %w", opts.ChartDir, err)
	}
	index := newOriginIndex(layout, chrt, opts.Values)
	top, err := renderValues(chrt, userVals, opts, caps)
	if err != nil {
		return nil, fmt.Errorf("%s: values: %w", opts.ChartDir, err)
	}
	if err := validateSchemas(chrt, top["Values"].(Values), nil, "", index); err != nil {
		return nil, err
	}
	files, err := renderCharts(chrt, top)
	if err != nil {
		return nil, layout.templateError(chrt, err)
	}
	objs, err := layout.objects(chrt, files)
	if err != nil {
		return nil, err
	}
	objs = withoutHooks(installSorted(objs), opts)
	if opts.IncludeCRDs {
		crds, err := layout.crdObjects(chrt)
		if err != nil {
			return nil, err
		}
		objs = append(crds, objs...)
	}
	res.Objects = objs

	traceValues(layout, chrt, top, res.Objects, index)
	return res, nil
}

// renderValues is what the root templates see, as Helm's ToRenderValues
// gives it for `helm template` (revision 1, an install). Helm also validates
// the values against values.schema.json there: Render does it next
// (validateSchemas).
func renderValues(chrt *chart.Chart, user Values, opts Options, caps *Capabilities) (map[string]interface{}, error) {
	vals, err := coalesceValues(chrt, user, false)
	if err != nil {
		return nil, err
	}
	return map[string]interface{}{
		"Chart":        chrt.Metadata,
		"Capabilities": caps,
		"Release": map[string]interface{}{
			"Name":      opts.ReleaseName,
			"Namespace": opts.Namespace,
			"IsUpgrade": false,
			"IsInstall": true,
			"Revision":  1,
			"Service":   "Helm",
		},
		"Values": vals,
	}, nil
}

// UserValues is the user's values as Helm reads and merges them (helm's
// `-f a -f b`), before the chart's defaults are coalesced under them.
func UserValues(sources []ValuesSource) (map[string]interface{}, error) {
	return readUserValues(sources)
}

// readUserValues reads each source as Helm reads a values file and merges them
// in order, later sources winning, as helm's values.Options does for `-f`.
func readUserValues(sources []ValuesSource) (Values, error) {
	merged := Values{}
	for _, src := range sources {
		vals, err := readValuesNode(src.Node)
		if err != nil {
			return nil, fmt.Errorf("%s: values: %w", Position{Archive: src.Archive, File: src.File}, err)
		}
		merged = mergeMaps(merged, vals)
	}
	return merged, nil
}

// readValuesNode re-encodes a node and reads it as Helm reads a values file, so
// that the values are Helm's reading of the text (YAML 1.1), not yaml.v3's.
func readValuesNode(n *yaml.Node) (Values, error) {
	if n == nil {
		return Values{}, nil
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: values must be a mapping, not %s", n.Line, n.ShortTag())
	}
	text, err := yaml.Marshal(n)
	if err != nil {
		return nil, err
	}
	return readValues(text)
}

// mergeMaps is helm's pkg/cli/values mergeMaps: maps merge key by key,
// anything else in b replaces a.
func mergeMaps(a, b map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bm, ok := v.(map[string]interface{}); ok {
			if am, ok := out[k].(map[string]interface{}); ok {
				out[k] = mergeMaps(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

func isArchive(p string) bool {
	return strings.HasSuffix(p, ".tgz") || strings.HasSuffix(p, ".tar.gz")
}
