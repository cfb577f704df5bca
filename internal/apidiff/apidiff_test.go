package apidiff_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	kschema "github.com/shipshape-dev/shipshape/internal/schema"
	"github.com/shipshape-dev/shipshape/rules"
)

// judged are the rules the API server's decoder has an opinion on.
var judged = []string{"ambiguous-scalar", "type-mismatch", "unknown-field", "duplicate-key",
	// These report DaemonSet fields that are unknown fields, in place of
	// unknown-field.
	"daemonset-replicas", "daemonset-deployment-field"}

func newEngine(t testing.TB) *engine.Engine {
	var disable []string
	for _, r := range rules.All() {
		if !slices.Contains(judged, r.ID) {
			disable = append(disable, r.ID)
		}
	}
	eng, err := engine.New(rules.All(), nil, nil, disable)
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// stats count what a run compared, so that a test that silently compares
// nothing is noticed.
type stats struct {
	files, objects, rejected, incomplete, skipped int
	byRule                                        map[string]int
}

// differ compares one file's objects: the findings of the judged rules on
// one side, the API machinery's verdict on the other.
type differ struct {
	t     testing.TB
	eng   *engine.Engine
	kusts *manifest.Kustomizations
	st    stats
	// problems collects disagreements; the test fails on any.
	problems []string
	hit      map[string]bool // knownDisagreements seen
}

func (d *differ) problem(format string, args ...any) {
	d.problems = append(d.problems, fmt.Sprintf(format, args...))
}

// knownDisagreements are disagreements with the API machinery in
// ambiguous-scalar, which this test reports (to the owner of that rule)
// rather than fixes, keyed by file base name and field. Each must still
// occur: the test fails when one goes away, so that the entry goes too.
var knownDisagreements = map[string]string{
	"tags-aliases.yaml spec.template.metadata.labels.tier": "ambiguous-scalar does not walk an alias to a " +
		"mapping or sequence (labels: *labels): it reports the number 1 once, at the anchored mapping " +
		"(matchLabels: &labels {tier: 1}), not again for each place the alias copies it to, and not at all " +
		"when the anchor is in no string position",
}

// known reports whether a disagreement is a known one, and logs it.
func (d *differ) known(path, field, what string) bool {
	k := filepath.Base(path) + " " + field
	why, ok := knownDisagreements[k]
	if ok {
		d.hit[k] = true
		d.t.Logf("known disagreement at %s %s (%s): %s", path, field, what, why)
	}
	return ok
}

func (d *differ) file(path string, data []byte) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	f := manifest.Parse(path, data, d.kusts.For(path))
	if f.Template != "" || len(f.Errors) > 0 {
		d.st.skipped++
		return // templates and broken YAML: nothing to decode
	}
	var objs []*manifest.Object
	for _, o := range f.Objects {
		if o.Assertion {
			// Compared with a cluster by kuttl or chainsaw, never applied.
			d.st.skipped++
			d.t.Logf("%s: skipped, a test's assert file", path)
			return
		}
		if manifest.SOPSEncrypted(o.Node) {
			// Applied only once decrypted (Flux), never as written.
			d.st.skipped++
			d.t.Logf("%s: skipped, %s is SOPS-encrypted", path, o.Label())
			return
		}
		if _, ok := kschema.ForObject(o.APIVersion, o.Kind); ok {
			objs = append(objs, o)
		}
	}
	if len(objs) == 0 {
		return // nothing built-in (CRDs, custom resources): no decoding to compare
	}
	chunks := splitDocs(data)
	if err := checkSplit(data, chunks); err != nil {
		d.problem("%s: %v", path, err)
		return
	}
	var api []apiObject
	for i, c := range chunks {
		js, err := yaml.YAMLToJSON(c.data)
		if err != nil {
			// go-yaml v2 cannot read what yaml.v3 did (or the other way
			// round); the two sides would judge different documents.
			d.st.skipped++
			d.t.Logf("%s: skipped, kubectl cannot convert document %d: %v", path, i, err)
			return
		}
		for _, o := range apiObjects(js, i) {
			if _, ok := kschema.ForObject(o.gvk.GroupVersion().String(), o.gvk.Kind); ok {
				api = append(api, o)
			}
		}
	}
	d.st.files++
	if len(objs) != len(api) {
		d.problem("%s: shipshape reads %d built-in objects, kubectl %d", path, len(objs), len(api))
		return
	}
	var dupFindings []analysis.Finding
	for i, obj := range objs {
		if ignored(obj) {
			d.st.skipped++
			continue
		}
		findings := d.eng.LintObjects([]*manifest.Object{obj})
		var mine []analysis.Finding
		for _, fd := range findings {
			if fd.Rule == "duplicate-key" {
				dupFindings = append(dupFindings, fd)
				continue
			}
			mine = append(mine, fd)
		}
		d.object(path, obj, api[i], mine)
	}
	d.duplicates(path, chunks, objs, dupFindings)
}

func (d *differ) object(path string, obj *manifest.Object, api apiObject, findings []analysis.Finding) {
	d.st.objects++
	where := fmt.Sprintf("%s: %s %s", path, obj.Kind, obj.Name)
	if api.gvk.Kind != obj.Kind {
		d.problem("%s: objects out of step (kubectl reads a %s)", where, api.gvk.Kind)
		return
	}
	v := decide(api)
	if len(v.errs) > 0 || !v.complete {
		d.st.rejected++
	}
	if !v.complete {
		d.st.incomplete++
		d.t.Logf("%s: the API rejects it for a reason not placed at a field (%s); findings after it are not compared", where, v.other)
	}
	var expected []apiError
	for _, e := range v.errs {
		// Excluded by design, and documented in the rules: strategic-merge
		// directives in patches are not fields, and ${VAR} placeholders
		// and {{ }} expressions are substituted before the API sees them.
		if e.rule == "unknown-field" && obj.Partial && strings.HasPrefix(lastKey(e.path), "$") {
			continue
		}
		if e.rule == "type-mismatch" && (isTemplateVariable(v.spans, e.path) || isTemplateExpression(v.spans, e.path) || isVaultPlaceholder(v.spans, e.path, obj)) {
			continue
		}
		expected = append(expected, e)
	}
	// Every rejection carries its finding.
	for _, e := range expected {
		if !slices.ContainsFunc(findings, func(fd analysis.Finding) bool { return e.matches(fd) }) && !d.known(path, e.path, e.msg) {
			d.problem("%s: %s: the API rejects it (%s), and shipshape has no %s finding there", where, e.path, e.msg, e.rule)
		}
	}
	// Every finding is a rejection, or a value kubectl silently changes.
	for _, fd := range findings {
		d.st.byRule[fd.Rule]++
		if slices.ContainsFunc(expected, func(e apiError) bool { return e.matches(fd) }) {
			continue
		}
		if fd.Rule == "ambiguous-scalar" && silentChange(fd, v.spans) {
			continue
		}
		if !v.complete {
			continue // the API stopped before it reached this field
		}
		if !d.known(path, fd.Field, fd.Message) {
			d.problem("%s: %s: shipshape reports %s (%s), and the API accepts the value", where, fd.Field, fd.Rule, fd.Message)
		}
	}
}

func (e apiError) matches(fd analysis.Finding) bool {
	if fd.Rule != e.rule && !(e.rule == "unknown-field" && strings.HasPrefix(fd.Rule, "daemonset-")) {
		return false
	}
	if e.prefix {
		return fd.Field == e.path || strings.HasPrefix(fd.Field, e.path+".") || strings.HasPrefix(fd.Field, e.path+"[")
	}
	return fd.Field == e.path
}

// ignored: the object opts out of shipshape's rules by annotation.
func ignored(obj *manifest.Object) bool {
	return manifest.Path(obj.Node, "metadata", "annotations", analysis.IgnoreAnnotation) != nil
}

// silentChange: an ambiguous-scalar finding about a value the API accepts
// but not as written: a key that YAML 1.1 turns into other text (on:,
// !!bool "yes": and *k after &k on all become "true": no key of the written
// name arrives), or a null in a list or map of strings (the entry arrives
// empty).
func silentChange(fd analysis.Finding, ix *spanIndex) bool {
	s, ok := ix.byPath[fd.Field]
	if strings.HasPrefix(fd.Message, "unquoted key") || strings.HasPrefix(fd.Message, "tagged key") ||
		strings.HasPrefix(fd.Message, "alias key") {
		return !ok
	}
	return ok && s.kind == 'z'
}

// stringAt is the string the JSON of the object holds at path; ok is
// false when it holds no string there.
func stringAt(ix *spanIndex, path string) (v string, ok bool) {
	s, found := ix.byPath[path]
	if !found || s.kind != 's' {
		return "", false
	}
	return v, json.Unmarshal(ix.js[s.start:s.end], &v) == nil
}

// isTemplateVariable: the value at path holds a ${VAR} placeholder
// ("${CAPACITY_GB}Gi").
func isTemplateVariable(ix *spanIndex, path string) bool {
	v, _ := stringAt(ix, path)
	i := strings.Index(v, "${")
	return i >= 0 && strings.Contains(v[i:], "}")
}

// isTemplateExpression: the value at path is one {{ … }} expression
// (quoted arguments, a pipe, a field: not words alone), which Open
// Cluster Management's controllers fill in before the object reaches the
// API server.
func isTemplateExpression(ix *spanIndex, path string) bool {
	v, _ := stringAt(ix, path)
	v = strings.TrimSpace(v)
	return strings.HasPrefix(v, "{{") && strings.HasSuffix(v, "}}") && strings.Count(v, "}}") == 1 && strings.ContainsAny(v, `".|$(`)
}

// isVaultPlaceholder: the value at path is an argocd-vault-plugin
// placeholder, which the plugin replaces before Argo CD applies the
// object: <path:…#key>, or <key> in an object with an avp.kubernetes.io
// annotation.
func isVaultPlaceholder(ix *spanIndex, path string, obj *manifest.Object) bool {
	v, _ := stringAt(ix, path)
	if !strings.HasPrefix(v, "<") || !strings.HasSuffix(v, ">") {
		return false
	}
	if strings.HasPrefix(v, "<path:") {
		return true
	}
	ann := manifest.Path(obj.Node, "metadata", "annotations")
	for i := 0; ann != nil && i < len(ann.Content); i += 2 {
		if strings.HasPrefix(ann.Content[i].Value, "avp.kubernetes.io/") {
			return true
		}
	}
	return false
}

func lastKey(path string) string {
	segs := parsePath(path)
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i].index < 0 {
			return segs[i].key
		}
	}
	return ""
}

// duplicates compares duplicate-key findings with what the YAML decoders
// of kubectl and kustomize reject: go-yaml v2 in strict mode (kubectl's
// strict decoding; it names the line of the second key's value) and
// yaml.v3 (kustomize; it names the line of the second key). Every
// rejection inside an object has its finding, and every finding is a
// rejection by one of them.
func (d *differ) duplicates(path string, chunks []chunk, objs []*manifest.Object, findings []analysis.Finding) {
	var v2Lines, v3Lines []int
	for _, c := range chunks {
		for _, l := range duplicateLines(c) {
			if !mergedMapping(objs, l) {
				v2Lines = append(v2Lines, l)
			}
		}
		v3Lines = append(v3Lines, kustomizeDuplicateLines(c)...)
	}
	var keyLines, valueLines []int
	for _, fd := range findings {
		keyLines = append(keyLines, fd.Line)
		valueLines = append(valueLines, valueLine(objs, fd.Line, fd.Column))
		if strings.Contains(fd.Message, `without a "---" separator`) {
			// Two objects read as one: one finding for all the
			// top-level keys that repeat.
			top := topLevelLines(objs, fd.Line)
			keyLines = append(keyLines, top...)
			valueLines = append(valueLines, top...)
			for _, l := range top {
				valueLines = append(valueLines, valueLine(objs, l, 1))
			}
		}
		if !slices.Contains(v2Lines, valueLines[len(valueLines)-1]) && !slices.Contains(v3Lines, fd.Line) {
			d.problem("%s:%d: shipshape reports a duplicate key (%s) that neither go-yaml v2 nor yaml.v3 rejects", path, fd.Line, fd.Message)
		}
	}
	for _, l := range v2Lines {
		if !slices.Contains(valueLines, l) && lineInObject(l, objs) {
			d.problem("%s:%d: go-yaml v2 (kubectl) rejects a duplicate key, and shipshape has no duplicate-key finding", path, l)
		}
	}
	for _, l := range v3Lines {
		if !slices.Contains(keyLines, l) && lineInObject(l, objs) {
			d.problem("%s:%d: yaml.v3 (kustomize) rejects a duplicate key, and shipshape has no duplicate-key finding", path, l)
		}
	}
	d.st.byRule["duplicate-key"] += len(findings)
}

var v3Duplicate = regexp.MustCompile(`line (\d+): mapping key .* already defined at line`)

// kustomizeDuplicateLines are the lines of the second keys that yaml.v3,
// which kustomize reads with, rejects.
func kustomizeDuplicateLines(c chunk) []int {
	var v any
	err := yamlv3.Unmarshal(c.data, &v)
	if err == nil {
		return nil
	}
	var out []int
	for _, m := range v3Duplicate.FindAllStringSubmatch(err.Error(), -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, c.line+n-1)
	}
	return out
}

// mergedMapping: the value on line l belongs to a mapping with a merge key
// (<<). go-yaml v2's strict mode calls a key that overrides a merged one a
// duplicate; YAML says it overrides, and kustomize agrees.
func mergedMapping(objs []*manifest.Object, l int) bool {
	var find func(n *yamlv3.Node) bool
	find = func(n *yamlv3.Node) bool {
		if n.Kind == yamlv3.MappingNode {
			merged := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				merged = merged || n.Content[i].Tag == "!!merge"
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				if merged && n.Content[i+1].Line == l {
					return true
				}
			}
		}
		for _, c := range n.Content {
			if find(c) {
				return true
			}
		}
		return false
	}
	for _, o := range objs {
		if find(o.Node) {
			return true
		}
	}
	return false
}

// valueLine is the line of the value of the key at line:column.
func valueLine(objs []*manifest.Object, line, column int) int {
	var find func(n *yamlv3.Node) int
	find = func(n *yamlv3.Node) int {
		if n.Kind == yamlv3.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Line == line && k.Column == column {
					return n.Content[i+1].Line
				}
			}
		}
		for _, c := range n.Content {
			if l := find(c); l > 0 {
				return l
			}
		}
		return 0
	}
	for _, o := range objs {
		if l := find(o.Node); l > 0 {
			return l
		}
	}
	return line
}

// lineInObject: whether a line belongs to one of the built-in objects.
// topLevelLines are the lines of the top-level keys of the object whose
// root mapping has a key at line.
func topLevelLines(objs []*manifest.Object, line int) []int {
	for _, o := range objs {
		var lines []int
		found := false
		for i := 0; i+1 < len(o.Node.Content); i += 2 {
			k := o.Node.Content[i]
			lines = append(lines, k.Line)
			found = found || k.Line == line
		}
		if found {
			return lines
		}
	}
	return nil
}

func lineInObject(line int, objs []*manifest.Object) bool {
	for _, o := range objs {
		if line >= o.Node.Line && line <= lastLine(o.Node) {
			return true
		}
	}
	return false
}

func lastLine(n *yamlv3.Node) int {
	l := n.Line
	for _, c := range n.Content {
		l = max(l, lastLine(c))
	}
	return l
}

func yamlFiles(t testing.TB, root string) []string {
	var out []string
	err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// kustomize trees apply what they render: their patches are not
		// objects (the render goldens check the rendered ones).
		if de.IsDir() && de.Name() == "render" && filepath.Base(filepath.Dir(p)) == "testdata" {
			return filepath.SkipDir
		}
		if de.Type().IsRegular() && manifest.IsYAMLName(p) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func run(t *testing.T, roots ...string) stats {
	var paths []string
	for _, root := range roots {
		paths = append(paths, yamlFiles(t, root)...)
	}
	return runFiles(t, paths)
}

// runFiles compares the findings with the API machinery on every file of
// paths. A known disagreement must occur when its file is among them.
func runFiles(t *testing.T, paths []string) stats {
	d := &differ{t: t, eng: newEngine(t), kusts: &manifest.Kustomizations{}, st: stats{byRule: map[string]int{}}, hit: map[string]bool{}}
	read := map[string]bool{} // base names
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		read[filepath.Base(p)] = true
		d.file(p, data)
	}
	for _, p := range d.problems {
		t.Error(p)
	}
	for k := range knownDisagreements {
		if file, _, _ := strings.Cut(k, " "); !d.hit[k] && read[file] {
			t.Errorf("known disagreement %q no longer occurs: remove it from knownDisagreements", k)
		}
	}
	t.Logf("%d files, %d built-in objects (%d rejected by the API, %d not fully placed), %d files skipped; findings compared: %v",
		d.st.files, d.st.objects, d.st.rejected, d.st.incomplete, d.st.skipped, d.st.byRule)
	return d.st
}

// TestCorpus is the differential test over the corpus of real manifests
// (a sample of it under the race detector: corpus.Sample).
func TestCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	var paths []string
	for _, f := range corpus.Sample(t, corpus.Files(t), nil) {
		paths = append(paths, filepath.Join(dir, f.Path))
	}
	st := runFiles(t, paths)
	if min := 1000 / corpus.Stride(); st.objects < min || st.rejected == 0 {
		t.Errorf("compared %d objects, %d rejected: the corpus should have at least %d, and some rejected", st.objects, st.rejected, min)
	}
}

// TestRepositoryTestdata runs it over the repository's own manifests: the
// golden cases and the examples.
func TestRepositoryTestdata(t *testing.T) {
	run(t, filepath.Join("..", "..", "testdata"), filepath.Join("..", "..", "examples"), filepath.Join("..", "..", "rules", "testdata"))
}

// TestProbes runs it over testdata/: scalars of every YAML 1.1 shape and
// wrong structures in every kind of field, where the rules and the API
// must agree value by value.
func TestProbes(t *testing.T) {
	st := run(t, "testdata")
	if st.rejected < 4 {
		t.Errorf("the probes should be rejected: %+v", st)
	}
}
