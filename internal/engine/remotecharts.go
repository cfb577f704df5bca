package engine

// Releases whose chart comes from a chart repository (issue 34, item 2): a
// Flux HelmRelease whose spec.chart.spec.sourceRef is a HelmRepository, or
// whose spec.chartRef is an OCIRepository or a HelmChart, and an Argo CD
// Application source with chart and repoURL. The chart is an archive the
// user has (--charts DIR: NAME-VERSION.tgz, an exact version), else, with
// --fetch-charts, the archive internal/chartfetch pulls into the cache
// from the repository the Flux source object (found among the files
// linted) or the Application names. A release whose chart is neither stays
// not-rendered; with --fetch-charts its finding says why the fetch failed
// or was refused (a source that needs credentials: none are sent).

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/chartfetch"
	"github.com/shipshape-dev/shipshape/internal/helmrender"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// fluxSourceAPI is the API group of Flux's source objects.
const fluxSourceAPI = "source.toolkit.fluxcd.io/"

// remoteChart is a chart in a chart repository, as a release names it.
type remoteChart struct {
	chart, version string // what --charts DIR is searched for
	req            chartfetch.Request
	// refused says why it is not fetched ("" when it may be)
	refused string
}

// chartArchiveFor is where rc's archive is: in --charts DIR, else fetched
// into the cache when fetching is on. label names a fetched archive in
// messages (its URL; "" for one of --charts DIR); unfetched says why a
// fetch failed or was refused ("" when nothing was tried).
func (e *Engine) chartArchiveFor(rc remoteChart) (archive, label, unfetched string) {
	if p := e.chartArchive(rc.chart, rc.version); p != "" {
		return p, "", ""
	}
	if e.Fetcher == nil {
		return "", "", ""
	}
	if rc.refused != "" {
		return "", "", fmt.Sprintf("chart %s not fetched: %s", rc.chart, rc.refused)
	}
	a, err := e.Fetcher.Fetch(context.Background(), rc.req)
	if err != nil {
		return "", "", err.Error()
	}
	return a.Path, a.From, ""
}

// show names a file of the chart in messages: a fetched archive by the URL
// it came from, not by its place in the cache.
func (app *chartApp) show(t *renderState, abs string) string {
	if app.archiveLabel != "" && abs == app.dir {
		return app.archiveLabel
	}
	return t.show(abs)
}

// fluxSource is the Flux source object of kind named by ref (name, and
// namespace defaulting to namespace), among the files linted.
func fluxSource(kind string, ref *yaml.Node, namespace string, objects []valuesObject) (valuesObject, bool) {
	name := manifest.ScalarValue(manifest.Path(ref, "name"))
	if ns := manifest.ScalarValue(manifest.Path(ref, "namespace")); ns != "" {
		namespace = ns
	}
	for _, o := range objects {
		if o.kind == kind && o.name == name && (o.namespace == "" || namespace == "" || o.namespace == namespace) {
			return o, true
		}
	}
	return valuesObject{}, false
}

// needsCredentials says which field of a source's spec asks for
// credentials or a cloud provider's identity ("" for none).
func needsCredentials(spec *yaml.Node) string {
	for _, field := range []string{"secretRef", "certSecretRef", "serviceAccountName"} {
		if manifest.Path(spec, field) != nil {
			return "spec." + field
		}
	}
	if p := manifest.ScalarValue(manifest.Path(spec, "provider")); p != "" && p != "generic" {
		return "spec.provider: " + p
	}
	return ""
}

// helmRepositoryChart is chart at version from a Flux HelmRepository.
func helmRepositoryChart(repo valuesObject, chart, version string) remoteChart {
	rc := remoteChart{chart: chart, version: version}
	spec := manifest.Path(repo.node, "spec")
	repoURL := manifest.ScalarValue(manifest.Path(spec, "url"))
	if field := needsCredentials(spec); field != "" {
		rc.refused = fmt.Sprintf("HelmRepository %s needs credentials (%s), which shipshape does not read", repo.name, field)
		return rc
	}
	if manifest.ScalarValue(manifest.Path(spec, "type")) == "oci" {
		registry, ok := strings.CutPrefix(repoURL, "oci://")
		if !ok {
			rc.refused = fmt.Sprintf("HelmRepository %s of type oci has URL %q, not oci://", repo.name, repoURL)
			return rc
		}
		rc.req = ociChartRequest(strings.TrimSuffix(registry, "/")+"/"+chart, chart, version)
		rc.req.PlainHTTP = rc.req.PlainHTTP || manifest.ScalarValue(manifest.Path(spec, "insecure")) == "true"
		return rc
	}
	rc.req = chartfetch.Request{IndexURL: repoURL, Chart: chart, Version: version}
	return rc
}

// ociChartRequest is a chart version in an OCI repository, as Helm's
// registry client resolves it: an exact version is a tag; a range, or
// none, the highest tag it admits.
func ociChartRequest(repository, chart, version string) chartfetch.Request {
	r := chartfetch.Request{OCIRepository: repository, Chart: chart, Version: version, PlainHTTP: chartfetch.Loopback(repository)}
	if !exactVersion.MatchString(version) {
		r.Semver = true
		if version == "" {
			r.Version = "*"
		}
	}
	return r
}

// ociRepositoryChart is the chart of a Flux OCIRepository (a chartRef):
// spec.url oci://host/path/chart, spec.ref digest, semver or tag
// (default latest), the digest winning as source-controller's does.
func ociRepositoryChart(src valuesObject) remoteChart {
	spec := manifest.Path(src.node, "spec")
	repository, ok := strings.CutPrefix(manifest.ScalarValue(manifest.Path(spec, "url")), "oci://")
	chart := path.Base(repository)
	rc := remoteChart{chart: chart}
	switch {
	case !ok:
		rc.refused = fmt.Sprintf("OCIRepository %s's spec.url is not oci://", src.name)
		return rc
	case needsCredentials(spec) != "":
		rc.refused = fmt.Sprintf("OCIRepository %s needs credentials (%s), which shipshape does not read", src.name, needsCredentials(spec))
		return rc
	}
	ref := manifest.Path(spec, "ref")
	rc.req = chartfetch.Request{OCIRepository: repository, Chart: chart, PlainHTTP: chartfetch.Loopback(repository) || manifest.ScalarValue(manifest.Path(spec, "insecure")) == "true"}
	switch digest, semver, tag := manifest.ScalarValue(manifest.Path(ref, "digest")), manifest.ScalarValue(manifest.Path(ref, "semver")), manifest.ScalarValue(manifest.Path(ref, "tag")); {
	case digest != "":
		rc.req.Digest = digest
	case semver != "":
		rc.req.Version, rc.req.Semver = semver, true
	case tag != "":
		rc.req.Version, rc.version = tag, tag
	default:
		rc.req.Version = "latest"
	}
	return rc
}

// argoChart is an Application source's chart from repoURL: an http(s)
// URL is a chart repository; a repoURL without a scheme (as Argo CD writes
// an OCI Helm repository) or with oci:// is a registry path the chart is
// below.
func argoChart(src *yaml.Node) (remoteChart, bool) {
	chart := manifest.ScalarValue(manifest.Path(src, "chart"))
	repoURL := manifest.ScalarValue(manifest.Path(src, "repoURL"))
	version := manifest.ScalarValue(manifest.Path(src, "targetRevision"))
	if chart == "" || repoURL == "" || strings.ContainsAny(chart, `/\`) {
		return remoteChart{}, false
	}
	rc := remoteChart{chart: chart, version: version}
	if u, err := url.Parse(repoURL); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		rc.req = chartfetch.Request{IndexURL: repoURL, Chart: chart, Version: version}
		return rc, true
	}
	registry := strings.TrimSuffix(strings.TrimPrefix(repoURL, "oci://"), "/")
	if strings.Contains(registry, "://") {
		return remoteChart{}, false
	}
	rc.req = ociChartRequest(registry+"/"+chart, chart, version)
	return rc, true
}

// chartLocation is where a release's chart was found: dir (a chart
// directory or an archive) and the file its findings go to until placed;
// label names a fetched archive; unfetched says why a fetch failed or was
// refused; owner is the node that names the chart (where the not-rendered
// finding sits).
type chartLocation struct {
	dir, chartFile, label, unfetched string
	owner                            *yaml.Node
}

// readsFluxSource says whether a HelmRelease names a Flux source object
// other than a GitRepository: those are looked for in the files linted.
func readsFluxSource(hr *yaml.Node) bool {
	kind := manifest.ScalarValue(manifest.Path(hr, "spec", "chart", "spec", "sourceRef", "kind"))
	return kind == "HelmRepository" || manifest.Path(hr, "spec", "chartRef") != nil
}

// releaseChart is where a HelmRelease's chart is: spec.chart.spec, else
// spec.chartRef (an OCIRepository, or a HelmChart whose spec is read as
// spec.chart.spec is).
func (e *Engine) releaseChart(t *renderState, file string, spec *yaml.Node, namespace string, objects []valuesObject) chartLocation {
	if chartSpec := manifest.Path(spec, "chart", "spec"); manifest.Path(spec, "chart") != nil {
		chart := manifest.Path(chartSpec, "chart")
		if chart == nil || chart.Kind != yaml.ScalarNode {
			return chartLocation{}
		}
		loc := e.chartSpecLocation(t, file, chartSpec, namespace, objects)
		loc.owner = chart
		return loc
	}
	key, ref := manifest.MapEntry(spec, "chartRef")
	if ref == nil {
		return chartLocation{}
	}
	kind := manifest.ScalarValue(manifest.Path(ref, "kind"))
	src, found := fluxSource(kind, ref, namespace, objects)
	var loc chartLocation
	switch {
	case !found:
		if e.Fetcher != nil {
			loc.unfetched = fmt.Sprintf("%s %s is not among the files linted", kind, manifest.ScalarValue(manifest.Path(ref, "name")))
		}
	case kind == "OCIRepository":
		loc.dir, loc.label, loc.unfetched = e.chartArchiveFor(ociRepositoryChart(src))
		loc.chartFile = loc.dir
	case kind == "HelmChart":
		ns := src.namespace
		if ns == "" {
			ns = namespace
		}
		loc = e.chartSpecLocation(t, src.file, manifest.Path(src.node, "spec"), ns, objects)
	}
	loc.owner = key
	return loc
}

// chartSpecLocation reads a HelmRelease's spec.chart.spec, or a HelmChart's
// spec: chart, version and sourceRef (a GitRepository: this repository;
// a HelmRepository among the files linted). file holds the object.
func (e *Engine) chartSpecLocation(t *renderState, file string, chartSpec *yaml.Node, namespace string, objects []valuesObject) chartLocation {
	chart := manifest.ScalarValue(manifest.Path(chartSpec, "chart"))
	version := manifest.ScalarValue(manifest.Path(chartSpec, "version"))
	ref := manifest.Path(chartSpec, "sourceRef")
	var loc chartLocation
	switch kind := manifest.ScalarValue(manifest.Path(ref, "kind")); kind {
	case "GitRepository":
		dir, ok := t.repositoryChart(file, chart, e.contains)
		chartFile := filepath.Join(dir, "Chart.yaml")
		if ok && e.holds(dir) && !t.excluded(chartFile) {
			loc.dir, loc.chartFile = dir, chartFile
		}
	case "HelmRepository", "OCIRepository":
		if loc.dir = e.chartArchive(chart, version); loc.dir != "" || kind == "OCIRepository" {
			break
		}
		repo, found := fluxSource(kind, ref, namespace, objects)
		switch {
		case found:
			loc.dir, loc.label, loc.unfetched = e.chartArchiveFor(helmRepositoryChart(repo, chart, version))
		case e.Fetcher != nil:
			loc.unfetched = fmt.Sprintf("HelmRepository %s is not among the files linted", manifest.ScalarValue(manifest.Path(ref, "name")))
		}
	}
	if loc.chartFile == "" {
		loc.chartFile = loc.dir
	}
	return loc
}

// noteUnfetched records why the chart of the release whose chart node is
// at was not fetched: said in its not-rendered finding.
func (c *chartRun) noteUnfetched(file string, at *yaml.Node, why string) {
	if c.unfetched == nil {
		c.unfetched = map[releaseAt]string{}
	}
	c.unfetched[releaseAt{file, at.Line, at.Column}] = why
}

// argoChartRelease adds the release of an Application source whose chart
// comes from a chart repository, when its archive is here (--charts DIR,
// or fetched). Its value files are read from inside the archive, as Argo
// CD's repo server reads them from the chart it extracted.
func (e *Engine) argoChartRelease(t *renderState, doc releaseDoc, i int, src *yaml.Node, name string, run *chartRun) {
	chartNode := manifest.Path(src, "chart")
	rc, ok := argoChart(src)
	if !ok || chartNode == nil {
		return
	}
	helm := manifest.Path(src, "helm")
	archive, label, unfetched := e.chartArchiveFor(rc)
	if archive == "" {
		if unfetched != "" {
			run.noteUnfetched(doc.file, chartNode, unfetched)
		}
		return
	}
	values, ok := argoValues(doc.file, helm, func(name string) (helmrender.ValuesSource, bool, bool) {
		return archiveValueFile(archive, name)
	}, e.MaxFileSize)
	if !ok {
		if e.Fetcher != nil {
			run.noteUnfetched(doc.file, chartNode, "the chart was fetched, but not all its values are read here (a helm.valueFiles entry missing from the chart or outside it, a URL or another source's $ref; a parameter --set parses further)")
		}
		return
	}
	release, namespace := argoReleaseName(doc.node, helm, name)
	app := &chartApp{
		dir: archive, chartFile: archive, archiveLabel: label, key: fmt.Sprintf("%s#%d#%d", doc.file, doc.doc, i),
		owner: chartNode, ownerFile: doc.file, release: release, namespace: namespace, values: values,
		valuesNote: fmt.Sprintf("the values of Application %s in %s", name, t.show(doc.file)),
	}
	run.addRelease(app, doc.file, chartNode)
}
