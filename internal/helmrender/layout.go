package helmrender

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
)

// chartLocation is where a chart's files are: a directory on disk, or a
// directory inside a chart archive.
type chartLocation struct {
	archive string // the .tgz holding the chart; "" for a directory on disk
	dir     string // the directory on disk, or the member directory inside archive
}

func (l chartLocation) file(name string) Position {
	if l.archive != "" {
		return Position{Archive: l.archive, File: path.Join(l.dir, name)}
	}
	return Position{File: filepath.Join(l.dir, filepath.FromSlash(name))}
}

// chartLayout maps the loaded charts (the root and its vendored subcharts) to
// the files they were read from. Helm's loader keeps no paths, so the layout
// scans charts/ itself and pairs entries with loaded charts by name and
// version.
type chartLayout struct {
	// Keyed by a chart's first raw file: Helm's alias handling copies a
	// *chart.Chart but shares its files, so the key survives the copy.
	byChart map[*chart.File]chartLocation
}

func chartKey(c *chart.Chart) *chart.File {
	if len(c.Raw) == 0 {
		return nil
	}
	return c.Raw[0]
}

func newChartLayout(chartPath string, root *chart.Chart) (*chartLayout, error) {
	l := &chartLayout{byChart: map[*chart.File]chartLocation{}}
	loc := chartLocation{dir: chartPath}
	if isArchive(chartPath) {
		top, _, err := archiveChart(chartPath)
		if err != nil {
			return nil, err
		}
		loc = chartLocation{archive: chartPath, dir: top}
	}
	l.place(root, loc)
	return l, nil
}

// place records c's location and, for a chart on disk, its subcharts'. The
// subcharts of a chart inside an archive stay unplaced: their positions are
// reported as the archive alone.
func (l *chartLayout) place(c *chart.Chart, loc chartLocation) {
	l.byChart[chartKey(c)] = loc
	if loc.archive != "" {
		for _, d := range c.Dependencies() {
			l.byChart[chartKey(d)] = chartLocation{archive: loc.archive}
		}
		return
	}
	entries, err := os.ReadDir(filepath.Join(loc.dir, "charts"))
	if err != nil {
		return
	}
	unplaced := append([]*chart.Chart(nil), c.Dependencies()...)
	for _, e := range entries {
		p := filepath.Join(loc.dir, "charts", e.Name())
		var meta *chart.Metadata
		sub := chartLocation{dir: p}
		if e.IsDir() {
			meta = dirChart(p)
		} else if isArchive(e.Name()) {
			top, m, err := archiveChart(p)
			if err != nil {
				continue
			}
			meta, sub = m, chartLocation{archive: p, dir: top}
		}
		if meta == nil {
			continue
		}
		for i, d := range unplaced {
			if d.Metadata.Name == meta.Name && d.Metadata.Version == meta.Version {
				l.place(d, sub)
				unplaced = append(unplaced[:i], unplaced[i+1:]...)
				break
			}
		}
	}
}

func dirChart(dir string) *chart.Metadata {
	data, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return nil
	}
	var m chart.Metadata
	if sigsyaml.Unmarshal(data, &m) != nil {
		return nil
	}
	return &m
}

// archiveChart reads a chart archive's top directory and its Chart.yaml.
func archiveChart(p string) (string, *chart.Metadata, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", p, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return "", nil, fmt.Errorf("%s: no Chart.yaml in the archive", p)
		}
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", p, err)
		}
		parts := strings.Split(path.Clean(h.Name), "/")
		if len(parts) != 2 || parts[1] != "Chart.yaml" {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(tr, 1<<20))
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", p, err)
		}
		var m chart.Metadata
		if err := sigsyaml.Unmarshal(data, &m); err != nil {
			return "", nil, fmt.Errorf("%s!%s: %w", p, h.Name, err)
		}
		return parts[0], &m, nil
	}
}

// fileOf is the position of a chart's file (name relative to the chart).
func (l *chartLayout) fileOf(c *chart.Chart, name string) Position {
	loc, ok := l.byChart[chartKey(c)]
	if !ok {
		return Position{File: c.ChartFullPath() + "/" + name}
	}
	if loc.dir == "" { // a subchart inside an archive: the archive alone
		return Position{Archive: loc.archive}
	}
	return loc.file(name)
}

func (l *chartLayout) chartFile(c *chart.Chart) Position { return l.fileOf(c, "Chart.yaml") }

// templatePos maps Helm's template name ("parent/charts/sub/templates/x.yaml")
// to the file it came from.
func (l *chartLayout) templatePos(root *chart.Chart, name string) Position {
	c, rel := root, strings.TrimPrefix(name, root.Name()+"/")
	for strings.HasPrefix(rel, "charts/") {
		sub, rest, ok := strings.Cut(strings.TrimPrefix(rel, "charts/"), "/")
		if !ok {
			break
		}
		var next *chart.Chart
		for _, d := range c.Dependencies() {
			if d.Name() == sub {
				next = d
			}
		}
		if next == nil {
			break
		}
		c, rel = next, rest
	}
	return l.fileOf(c, rel)
}

// missingDependencies lists, for the chart and every vendored subchart, the
// dependencies Chart.yaml names that are not vendored (as `helm template`'s
// CheckDependencies does, but as a problem instead of a refusal: the
// engines build dependencies before rendering, so the chart is rendered
// without them and only their objects go unjudged).
func (l *chartLayout) missingDependencies(c *chart.Chart) []Problem {
	var out []Problem
	have := map[string]bool{}
	for _, d := range c.Dependencies() {
		have[d.Name()] = true
	}
	for _, dep := range c.Metadata.Dependencies {
		if have[dep.Name] {
			continue
		}
		// A chart of apiVersion v1 may list them in requirements.yaml.
		listedIn := "Chart.yaml"
		line, col := dependencyLine(c, listedIn, dep.Name)
		if line == 0 {
			if l2, c2 := dependencyLine(c, "requirements.yaml", dep.Name); l2 > 0 {
				listedIn, line, col = "requirements.yaml", l2, c2
			}
		}
		pos := l.fileOf(c, listedIn)
		pos.Line, pos.Column = line, col
		out = append(out, Problem{Kind: MissingDependency, Pos: pos, Message: fmt.Sprintf(
			"dependency %q (version %q, repository %q) is listed in %s but not vendored under charts/: shipshape renders %q without it, so the dependency's objects are not judged (helm template refuses the chart until helm dependency build fetches it, as Argo CD and Flux run before rendering)",
			dep.Name, dep.Version, dep.Repository, listedIn, c.Name())})
	}
	for _, d := range c.Dependencies() {
		out = append(out, l.missingDependencies(d)...)
	}
	return out
}

// dependencyLine finds the `name:` of the dependency in the chart's file
// (Chart.yaml, or a v1 chart's requirements.yaml).
func dependencyLine(c *chart.Chart, file, name string) (int, int) {
	var doc yaml.Node
	for _, f := range c.Raw {
		if f.Name == file && yaml.Unmarshal(f.Data, &doc) == nil {
			break
		}
	}
	deps := mapValue(&doc, "dependencies")
	if deps == nil {
		return 0, 0
	}
	for _, item := range deps.Content {
		if n := mapValue(item, "name"); n != nil && n.Value == name {
			return n.Line, n.Column
		}
	}
	return 0, 0
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// Helm's messages name the template and line: "template: c/templates/x.yaml:3:5:
// executing ...", "parse error at (c/templates/x.yaml:3): ...",
// "execution error at (c/templates/x.yaml:3:5): ...".
var templateLocation = lazyregexp.New(`([^\s():"]+):(\d+)(?::(\d+))?`)

func (l *chartLayout) templateError(root *chart.Chart, err error) error {
	msg := err.Error()
	// The last location is the innermost: the helper an include failed in,
	// the line where an unclosed action starts.
	pos := l.chartFile(root)
	for _, m := range templateLocation.FindAllStringSubmatch(msg, -1) {
		if !strings.HasPrefix(m[1], root.Name()+"/") {
			continue
		}
		pos = l.templatePos(root, m[1])
		pos.Line, _ = strconv.Atoi(m[2])
		pos.Column, _ = strconv.Atoi(m[3])
	}
	return &TemplateError{Pos: pos, Message: msg}
}

const notesSuffix = "NOTES.txt"

// objects splits the rendered files into documents as Helm does, in template
// name order. NOTES.txt is not a manifest, as in `helm template`.
func (l *chartLayout) objects(root *chart.Chart, files map[string]string) ([]Object, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		if !strings.HasSuffix(name, notesSuffix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var out []Object
	for _, name := range names {
		objs, err := splitDocuments(name, l.templatePos(root, name), files[name])
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// crdObjects are the files under every chart's crds/ directory, not templated.
func (l *chartLayout) crdObjects(root *chart.Chart) ([]Object, error) {
	var out []Object
	for _, crd := range root.CRDObjects() {
		objs, err := splitDocuments(crd.Filename, l.templatePos(root, crd.Filename), string(crd.File.Data))
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// manifestSeparator is releaseutil.SplitManifests' separator.
var manifestSeparator = lazyregexp.New("(?:^|\\s*\n)---\\s*")

// splitDocuments splits one rendered file as releaseutil.SplitManifests does
// and parses each document; a document of comments only is no object.
// SplitManifests trims each document and `helm template` prints it followed
// by a line break, so that is the text: a block scalar at the document's
// end (`data: {conf: |...}`) keeps its final newline, as in helm's output.
func splitDocuments(name string, src Position, text string) ([]Object, error) {
	var out []Object
	for _, d := range manifestSeparator.Split(strings.TrimSpace(text), -1) {
		d = strings.TrimSpace(d)
		if d == "" {
			continue
		}
		d += "\n"
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(d), &doc); err != nil {
			return nil, &TemplateError{Pos: src, Message: fmt.Sprintf("YAML parse error on %s (document %d as rendered): %v", name, len(out)+1, err)}
		}
		if len(doc.Content) == 0 {
			continue
		}
		out = append(out, Object{Template: name, Source: src, Index: len(out), Text: d, Node: &doc})
	}
	return out, nil
}
