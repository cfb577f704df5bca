package engine

// Flux HelmReleases whose chart is in this repository (issue 34, item 3):
// rendered as applications of their own, with the values helm-controller
// gives them. A HelmRelease whose spec.chart.spec names a path with a
// GitRepository sourceRef is taken to use this repository (Flux's
// flux-system GitRepository is the repository the cluster is synced from)
// when that path, from the repository's root, is a chart directory here.
// Values, lowest first, as helm-controller merges them: the chart's
// values.yaml, then spec.valuesFrom in order (ConfigMaps and Secrets
// found in the tree), then spec.values. The release's name and namespace
// are helm-controller's. A release whose values cannot all be found (a
// ConfigMap made elsewhere) is not rendered: it stays not-rendered.

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/helmrender"
	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/scope"
)

// notRenderedID is the rule that says a release is not rendered; the
// engine takes its finding off the releases it rendered.
const notRenderedID = "not-rendered"

// releaseDoc is one HelmRelease or Argo CD Application document of the
// tree.
type releaseDoc struct {
	file string // real path
	doc  int
	node *yaml.Node // the object's mapping
}

// valuesObject is a ConfigMap or Secret a valuesFrom entry may name.
type valuesObject struct {
	file      string
	kind      string
	name      string
	namespace string // "" when the file does not say
	node      *yaml.Node
}

// releaseAt says where the not-rendered finding of a rendered release
// sits: the file and the node the rule reports (spec.chart.spec.chart).
type releaseAt struct {
	file         string
	line, column int
}

// findReleases adds to run the HelmReleases of the inputs whose chart is
// a chart directory of the repository, with their values.
func (e *Engine) findReleases(t *renderState, in treeInputs, run *chartRun) {
	// Two passes, so that a tree without releases parses no file again:
	// the files that may define a release, then, only when some release
	// reads values from others, those that may hold a ConfigMap or Secret.
	var releases, argoApps []releaseDoc
	var objects []valuesObject
	read := map[string]bool{}
	// candidate: the input may hold one of words, and also each of also.
	candidate := func(input manifest.Input, words, also scanWord) bool {
		key := t.key(input.Path)
		if input.Path == manifest.Stdin || mayBelongToChart(input.Path) || read[key] {
			return false
		}
		if ext := filepath.Ext(key); ext != ".yaml" && ext != ".yml" || !t.scans.mayHold(input.Path, key, words) {
			return false
		}
		for w := scanWord(1); w != 0 && w <= also; w <<= 1 {
			if also&w != 0 && !t.scans.mayHold(input.Path, key, w) {
				return false
			}
		}
		return true
	}
	scan := func(words, also scanWord) {
		for _, input := range in.list {
			if !candidate(input, words, also) {
				continue
			}
			key := t.key(input.Path)
			if rs, as, vs, ok := readReleaseObjects(key, e.MaxFileSize, words.texts()...); ok {
				read[key] = true
				releases, argoApps, objects = append(releases, rs...), append(argoApps, as...), append(objects, vs...)
			}
		}
	}
	// A tree where no file may hold a HelmRelease has no release: the
	// files that name only an Application are then parsed for Argo CD's
	// alone (the values objects of others are read for releases only).
	if slices.ContainsFunc(in.list, func(input manifest.Input) bool { return candidate(input, wordHelmRelease, 0) }) {
		scan(wordHelmRelease|wordApplication, 0)
	} else {
		scan(wordApplication, wordArgo)
	}
	for _, hr := range releases {
		if manifest.Path(hr.node, "spec", "valuesFrom") != nil {
			scan(wordConfigMap|wordSecret, 0)
			break
		}
	}
	for _, hr := range releases {
		// Source objects matter only to a chart an archive may be found
		// or fetched for.
		if (e.Fetcher != nil || e.ChartsDir != "") && readsFluxSource(hr.node) {
			scan(wordHelmRepository|wordOCIRepository|wordHelmChart, 0)
			break
		}
	}
	for _, hr := range releases {
		app, loc := e.releaseApp(t, hr, objects)
		switch {
		case app != nil:
			run.addRelease(app, hr.file, loc.owner)
		case loc.unfetched != "" && loc.owner != nil:
			run.noteUnfetched(hr.file, loc.owner, loc.unfetched)
		}
	}
	for _, doc := range argoApps {
		e.argoReleases(t, doc, run)
	}
}

// addRelease adds a release's application to the run; at is the node the
// not-rendered rule reports it at (nil when the rule does not).
func (c *chartRun) addRelease(app *chartApp, file string, at *yaml.Node) {
	c.apps = append(c.apps, app)
	c.byChart[app.key] = app
	if at == nil {
		return
	}
	if c.released == nil {
		c.released = map[releaseAt]bool{}
	}
	c.released[releaseAt{file, at.Line, at.Column}] = true
}

// readReleaseObjects reads the HelmReleases, ConfigMaps and Secrets of a
// YAML file; a file that is not YAML, or a document that does not parse,
// gives nothing (the file's own lint says why).
// Only a file whose text holds one of words is parsed (ok).
func readReleaseObjects(file string, limit int64, words ...string) (releases, apps []releaseDoc, objects []valuesObject, ok bool) {
	ext := filepath.Ext(file)
	if ext != ".yaml" && ext != ".yml" {
		return nil, nil, nil, false
	}
	data, err := manifest.ReadRegular(file, limit)
	if err != nil || !slices.ContainsFunc(words, func(w string) bool { return strings.Contains(string(data), w) }) {
		return nil, nil, nil, false
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for doc := 0; ; doc++ {
		var n yaml.Node
		if dec.Decode(&n) != nil {
			break
		}
		if len(n.Content) != 1 || n.Content[0].Kind != yaml.MappingNode {
			continue
		}
		obj := n.Content[0]
		kind := manifest.ScalarValue(manifest.Path(obj, "kind"))
		api := manifest.ScalarValue(manifest.Path(obj, "apiVersion"))
		switch {
		case kind == "HelmRelease" && strings.HasPrefix(api, "helm.toolkit.fluxcd.io/"):
			releases = append(releases, releaseDoc{file: file, doc: doc, node: obj})
		case kind == "Application" && strings.HasPrefix(api, "argoproj.io/"):
			apps = append(apps, releaseDoc{file: file, doc: doc, node: obj})
		case (kind == "ConfigMap" || kind == "Secret") && api == "v1",
			(kind == "HelmRepository" || kind == "OCIRepository" || kind == "HelmChart") && strings.HasPrefix(api, fluxSourceAPI):
			objects = append(objects, valuesObject{file: file, kind: kind, node: obj,
				name:      manifest.ScalarValue(manifest.Path(obj, "metadata", "name")),
				namespace: manifest.ScalarValue(manifest.Path(obj, "metadata", "namespace"))})
		}
	}
	return releases, apps, objects, true
}

// releaseApp is the application of a HelmRelease whose chart is here (a
// chart directory of the repository, an archive of --charts DIR, or one
// fetched), or nil; loc says where its chart was looked for.
func (e *Engine) releaseApp(t *renderState, hr releaseDoc, objects []valuesObject) (*chartApp, chartLocation) {
	spec := manifest.Path(hr.node, "spec")
	name := manifest.ScalarValue(manifest.Path(hr.node, "metadata", "name"))
	namespace := manifest.ScalarValue(manifest.Path(hr.node, "metadata", "namespace"))
	loc := e.releaseChart(t, hr.file, spec, namespace, objects)
	if loc.dir == "" {
		return nil, loc
	}
	target := manifest.ScalarValue(manifest.Path(spec, "targetNamespace"))
	release := manifest.ScalarValue(manifest.Path(spec, "releaseName"))
	if release == "" {
		release = name
		if target != "" {
			release = target + "-" + name
		}
	}
	values, ok := releaseValues(hr.file, spec, namespace, objects, e.MaxFileSize)
	if !ok || name == "" {
		return nil, chartLocation{}
	}
	if target != "" {
		namespace = target
	}
	if namespace == "" {
		namespace = chartNamespace
	}
	return &chartApp{
		dir: loc.dir, chartFile: loc.chartFile, archiveLabel: loc.label, key: fmt.Sprintf("%s#%d", hr.file, hr.doc), owner: loc.owner, ownerFile: hr.file,
		release: shortenReleaseName(release), namespace: namespace, values: values,
		valuesNote: fmt.Sprintf("the values of HelmRelease %s in %s", name, t.show(hr.file)),
	}, loc
}

// exactVersion is a chart version that names one release (no range).
var exactVersion = lazyregexp.New(`^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// chartArchive is the archive of chart name at version in the charts
// directory (`helm pull` writes NAME-VERSION.tgz), or "": only an exact
// version is looked up (a range would need the repository's index).
func (e *Engine) chartArchive(name, version string) string {
	if e.ChartsDir == "" || !exactVersion.MatchString(version) || strings.ContainsAny(name, `/\`) {
		return ""
	}
	p := filepath.Join(e.ChartsDir, name+"-"+strings.TrimPrefix(version, "v")+".tgz")
	if !isFile(p) {
		return ""
	}
	return p
}

// repositoryChart is the chart directory a GitRepository path names (see
// repositoryDirs).
func (t *renderState) repositoryChart(file, chart string, contains func(string) bool) (string, bool) {
	for _, dir := range t.repositoryDirs(file, chart, contains) {
		if isFile(filepath.Join(dir, "Chart.yaml")) {
			if st, err := os.Stat(filepath.Join(dir, "templates")); err == nil && st.IsDir() {
				return dir, true
			}
		}
	}
	return "", false
}

// repositoryDirs are the directories a path that an object in file names
// relative to its repository (a GitRepository chart path, an Argo CD
// source path) may be: below the root of the git repository holding file,
// else below each directory named on the command line that holds it.
// Nothing outside the scope (by name or through a link) is given, nor a
// path that climbs out.
func (t *renderState) repositoryDirs(file, path string, contains func(string) bool) []string {
	rel := filepath.FromSlash(strings.TrimPrefix(path, "./"))
	if path == "" || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	var tops []string
	if repo := scope.RepositoryRoot(filepath.Dir(file)); repo != "" {
		tops = append(tops, repo)
	}
	for _, n := range t.named {
		for _, dir := range n.dirs {
			if _, ok := below(dir, file); ok {
				tops = append(tops, dir)
			}
		}
	}
	var out []string
	for _, top := range tops {
		if dir := filepath.Join(top, rel); contains(dir) {
			out = append(out, dir)
		}
	}
	return out
}

// shortenReleaseName is helm-controller's (internal/release.ShortenName):
// a name over 53 characters is cut to 40, a hyphen and the first 12 hex
// digits of its SHA-256.
func shortenReleaseName(name string) string {
	const maxLength, hashLength = 53, 12
	if len(name) <= maxLength {
		return name
	}
	sum := fmt.Sprintf("%x", sha256.Sum256([]byte(name)))
	return name[:maxLength-hashLength-1] + "-" + sum[:hashLength]
}

// releaseValues are a HelmRelease's values sources, lowest first:
// spec.valuesFrom in order, then spec.values; false when a valuesFrom
// entry that is not optional names nothing found here.
func releaseValues(file string, spec *yaml.Node, namespace string, objects []valuesObject, limit int64) ([]helmrender.ValuesSource, bool) {
	var out []helmrender.ValuesSource
	if from := manifest.Path(spec, "valuesFrom"); from != nil && from.Kind == yaml.SequenceNode {
		for _, ref := range from.Content {
			src, found := valuesFromRef(ref, namespace, objects, limit)
			if !found {
				if manifest.ScalarValue(manifest.Path(ref, "optional")) == "true" {
					continue
				}
				return nil, false
			}
			out = append(out, src)
		}
	}
	if v := manifest.Path(spec, "values"); v != nil && v.Kind == yaml.MappingNode {
		out = append(out, helmrender.ValuesSource{File: file, Node: v})
	}
	return out, true
}

// valuesFromRef is the values one valuesFrom entry gives: the text at
// valuesKey (default values.yaml) read as values, or, with targetPath, that
// text as a string at the path. Positions are the file's where the text
// is a literal block or a plain scalar (ConfigMap data, Secret
// stringData); a Secret's base64 data gives values without positions.
func valuesFromRef(ref *yaml.Node, namespace string, objects []valuesObject, limit int64) (helmrender.ValuesSource, bool) {
	kind := manifest.ScalarValue(manifest.Path(ref, "kind"))
	name := manifest.ScalarValue(manifest.Path(ref, "name"))
	key := manifest.ScalarValue(manifest.Path(ref, "valuesKey"))
	if key == "" {
		key = "values.yaml"
	}
	target := manifest.ScalarValue(manifest.Path(ref, "targetPath"))
	for _, o := range objects {
		if o.kind != kind || o.name != name || o.namespace != "" && namespace != "" && o.namespace != namespace {
			continue
		}
		text, pos, ok := valuesText(o, key)
		if !ok {
			return helmrender.ValuesSource{}, false
		}
		if target != "" {
			if !plainParameter.MatchString(target) {
				return helmrender.ValuesSource{}, false // a path strvals parses further
			}
			return helmrender.ValuesSource{File: o.file, Node: atTargetPath(target, text, pos, nil)}, true
		}
		return embeddedValues(o.file, text, pos, limit)
	}
	return helmrender.ValuesSource{}, false
}

// embeddedValues reads values text written in a YAML file at pos (a
// literal block keeps its positions; any other style, or none, claims no
// position).
func embeddedValues(file, text string, pos *yaml.Node, limit int64) (helmrender.ValuesSource, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return helmrender.ValuesSource{}, false
	}
	if len(doc.Content) == 0 {
		return helmrender.ValuesSource{File: file, Node: &yaml.Node{Kind: yaml.MappingNode}}, true
	}
	if pos != nil && pos.Style == yaml.LiteralStyle {
		shiftPositions(&doc, pos.Line, literalIndent(file, pos.Line+1, limit))
	} else {
		shiftPositions(&doc, -1, 0)
	}
	return helmrender.ValuesSource{File: file, Node: &doc}, true
}

// valuesText is the text at key of a ConfigMap (data) or Secret
// (stringData, else base64 data), and its node when the text is written
// in the file as is.
func valuesText(o valuesObject, key string) (string, *yaml.Node, bool) {
	if n := manifest.Path(o.node, "data", key); n != nil && o.kind == "ConfigMap" {
		return n.Value, n, true
	}
	if o.kind != "Secret" {
		return "", nil, false
	}
	if n := manifest.Path(o.node, "stringData", key); n != nil {
		return n.Value, n, true
	}
	if n := manifest.Path(o.node, "data", key); n != nil {
		if text, err := decodeBase64(n.Value); err == nil {
			return text, nil, true
		}
	}
	return "", nil, false
}

// atTargetPath is a values mapping holding text, as a string, at a dotted
// path (helm-controller sets it as `--set-string` would).
// A given leaf is used as is.
func atTargetPath(path, text string, pos, leaf *yaml.Node) *yaml.Node {
	if leaf == nil {
		leaf = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: text, Style: yaml.DoubleQuotedStyle}
		if pos != nil {
			leaf.Line, leaf.Column = pos.Line, pos.Column
		}
	}
	n := leaf
	segs := strings.Split(path, ".")
	for i := len(segs) - 1; i >= 0; i-- {
		n = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: segs[i]}, n}}
	}
	return n
}

// shiftPositions moves the positions of text parsed alone to where it is
// written in the file: below the literal block's indicator line, indented.
// A negative line leaves the nodes at line 0: no position is claimed.
func shiftPositions(n *yaml.Node, line, indent int) {
	if line < 0 {
		n.Line, n.Column = 0, 0
	} else {
		n.Line += line
		n.Column += indent
	}
	for _, c := range n.Content {
		shiftPositions(c, line, indent)
	}
}

// literalIndent is the indentation of the line at line (1-based) of file.
func literalIndent(file string, line int, limit int64) int {
	data, err := manifest.ReadRegular(file, limit)
	if err != nil {
		return 0
	}
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		return 0
	}
	text := lines[line-1]
	return len(text) - len(strings.TrimLeft(text, " "))
}

// dropRendered takes the not-rendered finding off the releases the run
// rendered, and adds to the others' why their chart was not fetched.
func (c *chartRun) dropRendered(t *renderState, fr *FileResult) {
	if c == nil || len(c.released) == 0 && len(c.unfetched) == 0 || fr.Input.Path == manifest.Stdin {
		return
	}
	key := t.key(fr.Input.Path)
	kept := fr.own[:0]
	for _, f := range fr.own {
		at := releaseAt{key, f.Line, f.Column}
		if f.Rule == notRenderedID && f.Unrendered == analysis.HelmRelease && c.released[at] {
			continue
		}
		if why := c.unfetched[at]; why != "" && f.Rule == notRenderedID && f.Unrendered == analysis.HelmRelease {
			f.Message += "; --fetch-charts: " + why
		}
		kept = append(kept, f)
	}
	fr.own = kept
}

func decodeBase64(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
	return string(b), err
}

// clusterScoped are Kubernetes' built-in kinds that have no namespace:
// Helm installs a release's other objects in its namespace. A custom
// resource's scope is unknown here; it is taken to be namespaced.
var clusterScoped = map[string]bool{
	"Namespace": true, "Node": true, "PersistentVolume": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"StorageClass": true, "CustomResourceDefinition": true, "PriorityClass": true, "IngressClass": true,
	"ValidatingWebhookConfiguration": true, "MutatingWebhookConfiguration": true, "ValidatingAdmissionPolicy": true,
	"ValidatingAdmissionPolicyBinding": true, "APIService": true, "CSIDriver": true, "CSINode": true,
	"RuntimeClass": true, "VolumeSnapshotClass": true, "ComponentStatus": true, "CertificateSigningRequest": true,
}
