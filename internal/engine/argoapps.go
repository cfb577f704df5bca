package engine

// Argo CD Applications whose source path is a chart directory of this
// repository (issue 34, item 3): rendered as applications of their own,
// as Argo CD's repo server renders them (reposerver/repository:
// helmTemplate). The source's repoURL is not compared with the
// repository's remote: a path that, from the repository's root, is a
// chart directory here is taken to be this repository's. Values, lowest
// first: the chart's values.yaml, helm.valueFiles (relative to the chart
// directory), helm.valuesObject or else helm.values, then helm.parameters
// (as --set). Release name: helm.releaseName or the Application's name;
// namespace: helm.namespace or spec.destination.namespace. A source
// whose values shipshape cannot read all of (a value file elsewhere, a
// parameter name --set would parse further) is not rendered. A chart from
// a chart repository (remotecharts.go) has its value files read from its
// archive, as the repo server reads them from the chart it extracted.

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"

	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/helmrender"
	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// argoReleases adds to run the chart sources of an Application that are
// chart directories of the repository.
func (e *Engine) argoReleases(t *renderState, doc releaseDoc, run *chartRun) {
	spec := manifest.Path(doc.node, "spec")
	name := manifest.ScalarValue(manifest.Path(doc.node, "metadata", "name"))
	if name == "" {
		return
	}
	sources := []*yaml.Node{manifest.Path(spec, "source")}
	if srcs := manifest.Path(spec, "sources"); srcs != nil && srcs.Kind == yaml.SequenceNode {
		sources = srcs.Content
	}
	for i, src := range sources {
		if src == nil || src.Kind != yaml.MappingNode {
			continue
		}
		if manifest.Path(src, "chart") != nil {
			e.argoChartRelease(t, doc, i, src, name, run)
			continue
		}
		path := manifest.ScalarValue(manifest.Path(src, "path"))
		dir, ok := t.repositoryChart(doc.file, path, e.contains)
		if path == "" || !ok || !e.holds(dir) || t.excluded(filepath.Join(dir, "Chart.yaml")) {
			continue
		}
		helm := manifest.Path(src, "helm")
		values, ok := argoValues(doc.file, helm, func(name string) (helmrender.ValuesSource, bool, bool) {
			return valueFile(dir, name, e.contains, e.MaxFileSize)
		}, e.MaxFileSize)
		if !ok {
			continue
		}
		release, namespace := argoReleaseName(doc.node, helm, name)
		app := &chartApp{
			dir: dir, chartFile: filepath.Join(dir, "Chart.yaml"), key: fmt.Sprintf("%s#%d#%d", doc.file, doc.doc, i),
			release: release, namespace: namespace, values: values,
			valuesNote: fmt.Sprintf("the values of Application %s in %s", name, t.show(doc.file)),
		}
		helmKey, _ := manifest.MapEntry(src, "helm")
		run.addRelease(app, doc.file, helmKey)
	}
}

// argoReleaseName is a source's release name (helm.releaseName, else the
// Application's name) and namespace (helm.namespace, else the
// destination's, else default).
func argoReleaseName(app, helm *yaml.Node, name string) (string, string) {
	release := manifest.ScalarValue(manifest.Path(helm, "releaseName"))
	if release == "" {
		release = name
	}
	namespace := manifest.ScalarValue(manifest.Path(helm, "namespace"))
	if namespace == "" {
		namespace = manifest.ScalarValue(manifest.Path(app, "spec", "destination", "namespace"))
	}
	if namespace == "" {
		namespace = chartNamespace
	}
	return release, namespace
}

// valueFileReader reads a helm.valueFiles entry of the source's chart
// (see valueFile, archiveValueFile): found false when it does not exist,
// ok false when shipshape does not read what it names.
type valueFileReader func(name string) (src helmrender.ValuesSource, found, ok bool)

// argoValues are an Application source's values sources, lowest first;
// false when one cannot be read here.
func argoValues(appFile string, helm *yaml.Node, readValueFile valueFileReader, limit int64) ([]helmrender.ValuesSource, bool) {
	if helm == nil {
		return nil, true
	}
	var out []helmrender.ValuesSource
	ignoreMissing := manifest.ScalarValue(manifest.Path(helm, "ignoreMissingValueFiles")) == "true"
	if files := manifest.Path(helm, "valueFiles"); files != nil && files.Kind == yaml.SequenceNode {
		for _, f := range files.Content {
			src, found, ok := readValueFile(f.Value)
			if !ok || !found && !ignoreMissing {
				return nil, false
			}
			if found {
				out = append(out, src)
			}
		}
	}
	if obj := manifest.Path(helm, "valuesObject"); obj != nil && obj.Kind == yaml.MappingNode {
		out = append(out, helmrender.ValuesSource{File: appFile, Node: obj})
	} else if text := manifest.Path(helm, "values"); text != nil && text.Kind == yaml.ScalarNode {
		src, ok := embeddedValues(appFile, text.Value, text, limit)
		if !ok {
			return nil, false
		}
		out = append(out, src)
	}
	if params := manifest.Path(helm, "parameters"); params != nil && params.Kind == yaml.SequenceNode {
		for _, p := range params.Content {
			src, ok := setParameter(appFile, p)
			if !ok {
				return nil, false
			}
			out = append(out, src)
		}
	}
	return out, true
}

// valueFile reads a value file of the chart directory: found false when
// it does not exist, ok false when it names something shipshape does not
// read (a URL, another source's $ref, a path out of the chart's tree or
// out of the scope, by name or through a link: never opened).
func valueFile(chartDir, name string, contains func(string) bool, limit int64) (src helmrender.ValuesSource, found, ok bool) {
	if name == "" || strings.Contains(name, "://") || strings.HasPrefix(name, "$") || filepath.IsAbs(name) {
		return src, false, false
	}
	p := filepath.Join(chartDir, filepath.FromSlash(name))
	if !contains(p) {
		return src, false, false
	}
	data, err := manifest.ReadRegular(p, limit)
	if os.IsNotExist(err) {
		return src, false, true
	}
	if err != nil {
		return src, false, false
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return src, false, false
	}
	if len(doc.Content) == 0 {
		return helmrender.ValuesSource{File: p, Node: &yaml.Node{Kind: yaml.MappingNode}}, true, true
	}
	return helmrender.ValuesSource{File: p, Node: &doc}, true, true
}

// archiveValueFile reads a value file from inside a chart archive, as Argo
// CD's repo server reads one from the chart it extracted (the value files
// of a chart from a chart repository are resolved in the chart's
// directory, and may not lead out of it). Its values are rendered and
// known to come from the archive, where no finding can point: findings
// about them go to the Application (placeChart).
func archiveValueFile(archive, name string) (src helmrender.ValuesSource, found, ok bool) {
	if name == "" || strings.Contains(name, "://") || strings.HasPrefix(name, "$") {
		return src, false, false
	}
	data, found, err := helmrender.ReadArchiveFile(archive, name)
	if err != nil || !found {
		return src, false, err == nil
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return src, false, false
	}
	member := path.Clean(name)
	if len(doc.Content) == 0 {
		return helmrender.ValuesSource{Archive: archive, File: member, Node: &yaml.Node{Kind: yaml.MappingNode}}, true, true
	}
	return helmrender.ValuesSource{Archive: archive, File: member, Node: &doc}, true, true
}

// plainParameter is a --set name shipshape reads: dotted keys, no list
// indices or escapes (which strvals parses further).
var plainParameter = lazyregexp.New(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)

// setParameter is one helm.parameters entry as values, typed as `--set`
// types it (strvals: true, false, null and integers; a string with
// forceString, as --set-string), positioned at its value.
func setParameter(appFile string, p *yaml.Node) (helmrender.ValuesSource, bool) {
	name := manifest.ScalarValue(manifest.Path(p, "name"))
	value := manifest.Path(p, "value")
	if !plainParameter.MatchString(name) || value == nil || value.Kind != yaml.ScalarNode {
		return helmrender.ValuesSource{}, false
	}
	leaf := &yaml.Node{Kind: yaml.ScalarNode, Value: value.Value, Line: value.Line, Column: value.Column, Tag: "!!str", Style: yaml.DoubleQuotedStyle}
	if manifest.ScalarValue(manifest.Path(p, "forceString")) != "true" {
		switch {
		case value.Value == "true" || value.Value == "false":
			leaf.Tag, leaf.Style = "!!bool", 0
		case value.Value == "null":
			leaf.Tag, leaf.Style = "!!null", 0
		case regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*)$`).MatchString(value.Value):
			leaf.Tag, leaf.Style = "!!int", 0
		}
	}
	return helmrender.ValuesSource{File: appFile, Node: atTargetPath(name, "", nil, leaf)}, true
}
