package engine

// Local Helm charts as applications (issue 34, item 2). A chart directory in
// the tree (a Chart.yaml with a templates/ directory, its vendored subcharts
// under charts/ rendered with it) is rendered in-process by
// internal/helmrender, with the chart's default values, the release named
// after the chart and the namespace "default" (what `helm template CHART`
// says without flags). Its objects are judged by every object rule, and by
// the cross-resource rules as one application (the chart's directory); its
// template files, which were skipped as templates, are then read only for
// their lines. A finding is placed where the value was written: the values
// line Helm took it from (helmrender's origins), else the template line
// that holds it literally, else the template file (line 0) saying the line
// is not known. Fixes are not carried into charts. A chart that does not
// render is a render-error at the template line Helm names, and its
// templates stay skipped; a dependency listed in Chart.yaml but not
// vendored is a render-skipped finding at its entry (the parent is still
// rendered, as Helm's engine renders it).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/helmrender"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// chartNamespace is the namespace a local chart is rendered in: helm
// template's without --namespace.
const chartNamespace = "default"

// chartApp is one local chart rendered as an application.
type chartApp struct {
	dir       string // the chart's directory (real path)
	chartFile string // its Chart.yaml: the File of its objects' findings until placed
	release   string
	namespace string
	// key names the application: its objects' File and the cross-resource
	// rules' AppID (the Chart.yaml for a chart with its defaults; see
	// releases.go for a release's)
	key string
	// values are the user's values (a release's), lowest first; what
	// describes them in messages
	values     []helmrender.ValuesSource
	valuesNote string
	// owner is the node that names a release's chart: where a finding
	// goes that has no line of its own (a template inside an archive)
	owner     *yaml.Node
	ownerFile string
	// archiveLabel names a fetched archive in messages (the URL it came
	// from) instead of its place in the cache; "" for the others
	archiveLabel string
	res          *helmrender.Result
	err          error
	judged       *FileResult // its objects judged, as a pseudo-file (see judgeRendered)
}

// chartRun is the run's local charts, by Chart.yaml.
type chartRun struct {
	apps    []*chartApp
	byChart map[string]*chartApp
	// byTemplate: the chart of each input that is one of its templates
	byTemplate map[string]*chartApp
	// released: where the not-rendered findings of the HelmReleases
	// rendered here sit (releases.go)
	released map[releaseAt]bool
	// unfetched: why the chart of a release not rendered was not fetched
	// (--fetch-charts), by where its not-rendered finding sits
	unfetched map[releaseAt]string
}

// renderCharts finds the charts the inputs belong to and renders them, on
// all cores, judging each one's objects.
func (e *Engine) renderCharts(t *renderState, in treeInputs) *chartRun {
	run := &chartRun{byChart: map[string]*chartApp{}, byTemplate: map[string]*chartApp{}}
	var kustomized map[string]bool
	if t.graph != nil {
		kustomized = t.graph.HelmChartDirs()
	}
	for _, input := range in.list {
		if input.Path == manifest.Stdin || !mayBelongToChart(input.Path) {
			continue
		}
		key := t.key(input.Path)
		dir, ok := chartRootOf(key, e.holds)
		if !ok {
			continue
		}
		file := filepath.Join(dir, "Chart.yaml")
		if t.excluded(file) {
			continue
		}
		if kustomized[dir] {
			// Rendered by the kustomize roots whose helmCharts name it,
			// with their values: its templates are judged through those.
			if filepath.Base(key) != "Chart.yaml" {
				run.byTemplate[key] = viaKustomize
			}
			continue
		}
		app := run.byChart[file]
		if app == nil {
			app = &chartApp{dir: dir, chartFile: file, key: file, namespace: chartNamespace, valuesNote: "the chart's default values"}
			run.apps = append(run.apps, app)
			run.byChart[file] = app
		}
		if filepath.Base(key) != "Chart.yaml" {
			run.byTemplate[key] = app
		}
	}
	for _, app := range run.apps {
		app.release = chartName(app.chartFile, e.MaxFileSize)
	}
	e.findReleases(t, in, run)
	e.parallel(len(run.apps), func(i int) {
		app := run.apps[i]
		app.res, app.err = e.renderChart(app)
		if app.err == nil {
			app.judged = e.judgeChart(app)
		}
	})
	return run
}

// renderChart renders one chart, refusing one with a link that leads out
// of the run's scope (Helm's loader follows links), and turning a panic
// into that chart's error: one hostile chart does not stop the run.
func (e *Engine) renderChart(app *chartApp) (res *helmrender.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("internal error while rendering the chart (please report it): %v", r)
		}
	}()
	if link := e.linkOutside(app.dir); link != "" {
		return nil, fmt.Errorf("%s: a link leads out of the directories linted: not rendered", link)
	}
	return helmrender.Render(helmrender.Options{ChartDir: app.dir, ReleaseName: app.release, Namespace: app.namespace, Values: app.values,
		KubernetesVersion: e.KubernetesVersion, MayLoad: e.mayLoadChart})
}

// mayBelongToChart: a Chart.yaml, or a file below a templates/ directory.
func mayBelongToChart(path string) bool {
	return filepath.Base(path) == "Chart.yaml" || strings.Contains(filepath.ToSlash(path), "/templates/") || strings.HasPrefix(filepath.ToSlash(path), "templates/")
}

// chartRootOf is the chart abs (a Chart.yaml or a template) belongs to: the
// nearest directory above it with a Chart.yaml, whose templates/ holds it,
// and then its parent chart as long as it is vendored in one's charts/.
// Only directories holds admits are looked at.
func chartRootOf(abs string, holds func(dir string) bool) (string, bool) {
	var dir string
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if !holds(d) {
			return "", false
		}
		if isFile(filepath.Join(d, "Chart.yaml")) {
			dir = d
			break
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil || rel != "Chart.yaml" && !strings.HasPrefix(filepath.ToSlash(rel), "templates/") {
		return "", false
	}
	for filepath.Base(filepath.Dir(dir)) == "charts" && holds(filepath.Dir(filepath.Dir(dir))) && isFile(filepath.Join(filepath.Dir(filepath.Dir(dir)), "Chart.yaml")) {
		dir = filepath.Dir(filepath.Dir(dir))
	}
	return dir, true
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// chartName is the chart's name in Chart.yaml: the release's name.
func chartName(chartFile string, limit int64) string {
	var doc yaml.Node
	if data, err := manifest.ReadRegular(chartFile, limit); err == nil && yaml.Unmarshal(data, &doc) == nil && len(doc.Content) == 1 {
		if n := manifest.MapGet(doc.Content[0], "name"); n != nil && n.Value != "" {
			return n.Value
		}
	}
	return filepath.Base(filepath.Dir(chartFile))
}

// judgeChart runs the object rules over a chart's rendered objects, as
// judgeRendered does for a kustomize root: rules that judge how a file is
// read see only what their Rendered visitor sees (a JSON patch's values:
// none here).
func (e *Engine) judgeChart(app *chartApp) *FileResult {
	var objs []*manifest.Object
	for i, o := range app.res.Objects {
		if o.Node == nil || len(o.Node.Content) != 1 {
			continue
		}
		if obj := manifest.NewObject(o.Node.Content[0], app.key, i, false); obj != nil {
			obj.Root = app.key
			if obj.Namespace == "" && app.namespace != chartNamespace && !clusterScoped[obj.Kind] {
				obj.Namespace = app.namespace // where Helm installs it
			}
			objs = append(objs, obj)
		}
	}
	noJSONPatch := func(int, string) *yaml.Node { return nil }
	fr := &FileResult{own: e.checkObjects(objs, nil, noJSONPatch), objects: len(objs)}
	for _, obj := range objs {
		e.observe(fr, obj, objectKey{obj.Doc, -1}, analysis.AppID{Dir: app.key})
	}
	return fr
}

// rendersTemplate says whether the file at key is a template of a chart
// that rendered: read for its lines, judged through the rendering.
func (c *chartRun) rendersTemplate(key string) bool {
	if c == nil {
		return false
	}
	app := c.byTemplate[key]
	return app != nil && app.err == nil
}

// quietTemplates takes the template-skipped finding (and what a template
// file could not say anyway) off the templates of the charts that rendered.
func (c *chartRun) quietTemplates(t *renderState, slots []*FileResult) {
	for _, fr := range slots {
		if fr.Input.Path != manifest.Stdin && c.rendersTemplate(t.key(fr.Input.Path)) {
			fr.own, fr.summaries, fr.origins, fr.unreadApp = nil, nil, nil, analysis.AppID{}
		}
	}
}

// gatherCharts places the charts' findings and problems, and hands their
// objects to the cross-resource rules.
func (e *Engine) gatherCharts(t *renderState, files map[string]*FileResult, res *Result) {
	if t.charts == nil {
		return
	}
	for _, app := range t.charts.apps {
		if app.err != nil {
			e.reportChartError(t, files, app)
			continue
		}
		for _, p := range app.res.Problems {
			if p.Kind == helmrender.MissingDependency && e.Enabled(RenderSkippedID) && p.Pos.Archive == "" {
				f := e.fileFinding("", RenderSkippedID, t.relPaths(p.Message))
				f.Unrendered = analysis.ChartDependency
				e.recordAt(t, files, f, p.Pos.File, p.Pos.Line, p.Pos.Column)
			}
		}
		for _, f := range app.judged.own {
			e.placeChart(t, files, app, f)
		}
		res.context = append(res.context, app.judged)
	}
}

// reportChartError is a render-error at the template line Helm names, or
// at the chart's Chart.yaml.
func (e *Engine) reportChartError(t *renderState, files map[string]*FileResult, app *chartApp) {
	if !e.Enabled(RenderErrorID) {
		return
	}
	file, line, col := app.chartFile, 0, 0
	if app.owner != nil { // a release: at the chart it names, unless Helm names a line here
		file, line, col = app.ownerFile, app.owner.Line, app.owner.Column
	}
	msg := app.err.Error()
	var te *helmrender.TemplateError
	var se *helmrender.SchemaError
	switch {
	case errors.As(app.err, &te) && te.Pos.Archive == "" && te.Pos.File != "":
		file, line, col, msg = te.Pos.File, te.Pos.Line, te.Pos.Column, te.Message
	case errors.As(app.err, &se) && se.Pos.Archive == "" && se.Pos.File != "":
		file, line, col = se.Pos.File, se.Pos.Line, se.Pos.Column
	}
	values := app.valuesNote
	if len(app.values) == 0 && app.key == app.chartFile {
		values = "its default values"
	}
	if app.archiveLabel != "" {
		msg = strings.ReplaceAll(msg, app.dir, app.archiveLabel)
	}
	// The reason leads: text output holds a line to 300 characters.
	f := e.fileFinding("", RenderErrorID, fmt.Sprintf("Helm chart %s does not render: %s (release %q, namespace %q, %s); its templates are not judged",
		app.show(t, app.dir), t.relPaths(msg), app.release, app.namespace, values))
	e.recordAt(t, files, f, file, line, col)
}

// placeChart puts a finding about a rendered chart object where its value
// was written (see the top of this file).
func (e *Engine) placeChart(t *renderState, files map[string]*FileResult, app *chartApp, f analysis.Finding) {
	if f.Doc < 0 || f.Doc >= len(app.res.Objects) {
		return
	}
	o := app.res.Objects[f.Doc]
	f.Severity = e.severityOf(f)
	f.Fix = nil // not carried into values files or templates (yet)
	tmpl := t.show(o.Source.File)
	if o.Source.Archive != "" {
		tmpl = app.show(t, o.Source.Archive) + "!" + o.Source.File
	}
	where := fmt.Sprintf("in what Helm renders from %s (release %q, namespace %q, %s)", tmpl, app.release, app.namespace, app.valuesNote)
	field := chartField(f.Field)
	for _, use := range o.Values {
		if use.Origin.Line > 0 && use.Origin.Archive == "" && equalFields(use.Field, field) {
			f.Message += fmt.Sprintf(" (%s: the value is set here, at .Values.%s)", where, strings.Join(use.ValuesPath, "."))
			e.recordAt(t, files, f, use.Origin.File, use.Origin.Line, use.Origin.Column)
			return
		}
	}
	if o.Source.Archive != "" {
		if app.owner != nil { // a release's chart archive: at the release
			f.Message += fmt.Sprintf(" (%s, the value is rendered: its line is not known)", where)
			e.recordAt(t, files, f, app.ownerFile, app.owner.Line, app.owner.Column)
		}
		return // a subchart vendored as an archive: nothing to point at
	}
	if line, col, ok := literalLine(o.Source.File, o.Node, field, o.Values, f, e.MaxFileSize); ok {
		f.Message += " (" + where + ": written here)"
		e.recordAt(t, files, f, o.Source.File, line, col)
		return
	}
	f.Message += " (" + where + "; the template line is not known)"
	e.recordAt(t, files, f, o.Source.File, 0, 0)
}

// recordAt adds f to the file at abs, at line:col, unless an ignore
// comment there suppresses it. Roots stays empty: it names kustomize roots,
// and the message names the chart.
func (e *Engine) recordAt(t *renderState, files map[string]*FileResult, f analysis.Finding, abs string, line, col int) {
	fr := t.fileFor(files, abs)
	if fr == nil {
		return
	}
	f.File, f.Rendered, f.Line, f.Column, f.Doc, f.Item = fr.Input.Path, false, line, col, -1, -1
	if fr.ignores.suppresses(f.Line, f.Rule) {
		return
	}
	for _, g := range fr.Findings {
		if g.Rule == f.Rule && g.Line == f.Line && g.Column == f.Column && g.Message == f.Message && g.Resource == f.Resource {
			return
		}
	}
	fr.Findings = append(fr.Findings, f)
}

// chartField is a finding's field as helmrender's ValueUse.Field: mapping
// keys and sequence indices in decimal.
func chartField(field string) []string {
	p, err := render.ParsePath(field)
	if err != nil {
		return nil
	}
	out := make([]string, len(p))
	for i, s := range p {
		if s.IsIndex {
			out[i] = strconv.Itoa(s.Index)
		} else {
			out[i] = s.Key
		}
	}
	return out
}

func equalFields(a, b []string) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// literalLine finds the one template line that writes the rendered scalar
// at field literally (`key: value`, no template action on the line). More
// than one such line, or none, is no answer: the line must be exact.
func literalLine(templateFile string, doc *yaml.Node, field []string, uses []helmrender.ValueUse, f analysis.Finding, limit int64) (int, int, bool) {
	if len(field) == 0 {
		return 0, 0, false
	}
	for _, use := range uses {
		if equalFields(use.Field, field) {
			return 0, 0, false // a value inserted, not written in the template
		}
	}
	v := doc
	if v != nil && v.Kind == yaml.DocumentNode && len(v.Content) == 1 {
		v = v.Content[0]
	}
	var k *yaml.Node
	for _, seg := range field {
		k, v = child(v, seg)
	}
	key := field[len(field)-1]
	if v == nil || v.Kind != yaml.ScalarNode || v.Value == "" || isIndex(key) {
		return 0, 0, false
	}
	data, err := manifest.ReadRegular(templateFile, limit)
	if err != nil {
		return 0, 0, false
	}
	// As in a file judged as written: at the value when the rule reported
	// the value, else at the key.
	atValue := k != nil && f.Line == v.Line && f.Column == v.Column && (k.Line != v.Line || k.Column != v.Column)
	keyAt := `^(\s*(?:-\s+)?)(` + regexp.QuoteMeta(key) + `:\s+)`
	re := regexp.MustCompile(keyAt + `["']?` + regexp.QuoteMeta(v.Value) + `["']?\s*(?:#.*)?$`)
	templated := regexp.MustCompile(keyAt + `.*\{\{`)
	line, col := 0, 0
	for i, text := range strings.Split(string(data), "\n") {
		if strings.Contains(text, "{{") {
			if templated.MatchString(text) {
				return 0, 0, false // the key is also written by a template action
			}
			continue
		}
		if m := re.FindStringSubmatch(text); m != nil {
			if line != 0 {
				return 0, 0, false
			}
			line, col = i+1, len(m[1])+1
			if atValue {
				col += len(m[2])
			}
		}
	}
	return line, col, line != 0
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// child is the key node (nil for a sequence item) and the value node at
// seg of n.
func child(n *yaml.Node, seg string) (*yaml.Node, *yaml.Node) {
	if n == nil {
		return nil, nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == seg {
				return n.Content[i], n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(n.Content) {
			return nil, n.Content[i]
		}
	}
	return nil, nil
}

// about is the chart whose rendered object f is about, if any.
func (c *chartRun) about(f analysis.Finding) *chartApp {
	if c == nil || !f.Rendered {
		return nil
	}
	if app := c.byChart[f.File]; app != nil && app.err == nil {
		return app
	}
	return nil
}
