package controlplane

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// The rules whose error findings claim that the API server (or kubectl on
// its way there) refuses the object: each such finding must be a refusal
// at that field.
var refusingRules = map[string]bool{
	"ambiguous-scalar":           true,
	"daemonset-replicas":         true,
	"daemonset-deployment-field": true,
	"daemonset-max-surge":        true,
	"selector-template-mismatch": true,
	"type-mismatch":              true,
	"unknown-field":              true,
	"duplicate-key":              true,
}

// finding is one finding of `shipshape lint --format json`.
type finding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Field    string `json:"field"`
	Resource struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Namespace  string `json:"namespace"`
		Name       string `json:"name"`
	} `json:"resource"`
	// Roots are the kustomize roots whose rendering the finding is about.
	Roots []string `json:"roots"`
}

func (f finding) id() string {
	return fmt.Sprintf("%s:%d:%d %s %s", f.File, f.Line, f.Column, f.Rule, f.Field)
}

// sentObject is one document sent to the server, as kubectl reads it from its
// file: the document's bytes unchanged.
type sentObject struct {
	Source    string // file:first-last line, or kustomize root ! kind/name
	Raw       []byte
	Kind      string
	Namespace string
	Claims    []finding // error findings of the refusing rules, as-written warnings (see add)
	Others    []finding // every other finding on it
	Rendered  bool      // sent as kubectl kustomize renders it, not as written
	// outcome
	Refused bool
	Client  bool   // refused by kubectl before sending
	Output  string // kubectl's output
}

// lint runs shipshape over paths (relative to dir) and returns its findings.
func lint(t *testing.T, dir string, paths ...string) []finding {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, shipshape, append([]string{"lint", "--format", "json"}, paths...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
		t.Fatalf("shipshape lint %v: %v\n%s", paths, err, stderr.String())
	}
	var r struct {
		Findings []finding `json:"findings"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("shipshape lint %v: %v", paths, err)
	}
	return r.Findings
}

var docSep = regexp.MustCompile(`^---(\s.*)?$`)

// splitDocs splits a YAML stream into documents by their "---" lines,
// keeping each document's bytes and first and last line (1-based).
func splitDocs(b []byte) (docs [][]byte, first, last []int) {
	lines := strings.SplitAfter(string(b), "\n")
	start := 0
	flush := func(end int) {
		doc := strings.Join(lines[start:end], "")
		if strings.TrimSpace(stripComments(doc)) != "" {
			docs = append(docs, []byte(doc))
			first, last = append(first, start+1), append(last, end)
		}
	}
	for i, l := range lines {
		if docSep.MatchString(strings.TrimRight(strings.TrimPrefix(l, "\ufeff"), "\r\n")) {
			flush(i)
			start = i + 1
		}
	}
	flush(len(lines))
	return docs, first, last
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if t := strings.TrimSpace(strings.TrimPrefix(l, "\ufeff")); t != "" && !strings.HasPrefix(t, "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// header reads kind and namespace leniently (the document may be invalid).
var (
	kindRe = regexp.MustCompile(`(?m)^kind:\s*["']?([A-Za-z0-9]+)`)
	nsRe   = regexp.MustCompile(`(?m)^  namespace:\s*["']?([a-z0-9.-]+)`)
	apiRe  = regexp.MustCompile(`(?m)^apiVersion:\s*`)
)

// collect reads the objects of every YAML file under root (paths relative to
// base) and attaches findings to them by file and line. Files inside a
// kustomize tree (a directory with a kustomization file, and below it) are
// sent as `kubectl apply -k` sends them: rendered, with findings attached by
// resource identity.
func collect(t *testing.T, base string, files []string, findings []finding, render bool) []*sentObject {
	t.Helper()
	byFile := map[string][]finding{}
	for _, f := range findings {
		byFile[f.File] = append(byFile[f.File], f)
	}
	var objs []*sentObject
	kustRoots := map[string]bool{}
	rendered := map[string][]byte{}
	for _, file := range files {
		if root := kustomizeRoot(base, file); render && root != "" {
			if _, tried := kustRoots[root]; !tried {
				out, err := kubectlIn(t, base, "kustomize", root)
				kustRoots[root] = err == nil
				if err != nil {
					t.Logf("kustomize root %s does not render (%s): its files are sent as plain files", root, lastLine(out))
				} else {
					rendered[root] = out
				}
			}
			if kustRoots[root] {
				continue
			}
		}
		b, err := os.ReadFile(filepath.Join(base, file))
		if err != nil {
			t.Fatal(err)
		}
		docs, first, last := splitDocs(b)
		for i, doc := range docs {
			o := newObject(fmt.Sprintf("%s:%d-%d", file, first[i], last[i]), doc)
			if o == nil {
				continue
			}
			for _, f := range byFile[file] {
				if f.Line >= first[i] && f.Line <= last[i] {
					o.add(f)
				}
			}
			objs = append(objs, o)
		}
	}
	roots := make([]string, 0, len(rendered))
	rootFindings := map[string][]finding{}
	for r := range rendered {
		roots = append(roots, r)
		rootFindings[r] = lint(t, base, r)
	}
	sort.Strings(roots)
	for _, root := range roots {
		if notRendered(rootFindings[root]) {
			// shipshape renders it not, by design (a Helm chart's source
			// with template markers, a Fleet overlay of a chart): it
			// claims nothing about what kubectl makes of it.
			t.Logf("kustomize root %s is not rendered by shipshape: not sent", root)
			continue
		}
		docs, _, _ := splitDocs(rendered[root])
		for _, doc := range docs {
			var m struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal(doc, &m); err != nil {
				t.Fatalf("%s: rendered object: %v", root, err)
			}
			o := newObject(fmt.Sprintf("%s (kustomize) %s/%s", root, m.Kind, m.Metadata.Name), doc)
			if o == nil {
				continue
			}
			o.Rendered = true
			// What shipshape says of this directory built alone, as
			// kubectl kustomize builds it: findings on its rendered objects
			// (their resource is the rendered one) and on the sources it
			// reads (their resource is the source document's: no namespace
			// or prefix added yet, so only kind and name are compared).
			for _, f := range rootFindings[root] {
				if f.Resource.Kind == m.Kind && (f.Resource.Name == m.Metadata.Name && f.Resource.Namespace == m.Metadata.Namespace ||
					len(f.Roots) == 0 && strings.HasSuffix(m.Metadata.Name, f.Resource.Name)) {
					o.add(f)
				}
			}
			objs = append(objs, o)
		}
	}
	return objs
}

// notRendered reports whether shipshape skipped rendering the root whose
// findings these are.
func notRendered(findings []finding) bool {
	for _, f := range findings {
		if (f.Rule == "template-skipped" || f.Rule == "render-skipped") && len(f.Roots) > 0 {
			return true
		}
	}
	return false
}

// toolKinds are documents read by tools, never sent to a cluster: kustomize's
// kustomization files, KRM function input, shipshape's own config.
var toolKinds = map[string]bool{"Kustomization": true, "Component": true, "ResourceList": true, "ShipshapeConfig": true}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

func newObject(source string, doc []byte) *sentObject {
	if !apiRe.Match(doc) {
		return nil // not a Kubernetes object (a values file, a ResourceList item list, ...)
	}
	o := &sentObject{Source: source, Raw: doc}
	if m := kindRe.FindSubmatch(doc); m != nil {
		o.Kind = string(m[1])
	}
	if toolKinds[o.Kind] {
		return nil
	}
	if m := nsRe.FindSubmatch(doc); m != nil {
		o.Namespace = string(m[1])
	}
	return o
}

func (o *sentObject) add(f finding) {
	// A file kustomize reads in a root that does not render is sent as
	// written: ambiguous-scalar's warning that kubectl reads a value
	// kustomize keeps as another type claims what the server does then;
	// of an object sent rendered, it claims nothing.
	asWritten := !o.Rendered && f.Rule == "ambiguous-scalar" && strings.Contains(f.Message, "when the file is applied as written")
	if f.Severity == "error" && refusingRules[f.Rule] || asWritten {
		o.Claims = append(o.Claims, f)
	} else {
		o.Others = append(o.Others, f)
	}
}

func kustomizeRoot(base, file string) string {
	for d := filepath.Dir(file); d != "." && d != "/"; d = filepath.Dir(d) {
		for _, k := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
			if _, err := os.Stat(filepath.Join(base, d, k)); err == nil {
				return d
			}
		}
	}
	return ""
}

func yamlFiles(t *testing.T, base, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join(base, dir), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// A Helm chart (testdata/helm) is not applied as written:
			// Helm renders it, and its Chart.yaml is no object.
			if _, err := os.Stat(filepath.Join(p, "Chart.yaml")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml") {
			rel, _ := filepath.Rel(base, p)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// send applies every object with `kubectl apply --dry-run=server
// --validate=strict`, each from a file of its own holding the document's
// bytes, several objects to one kubectl: kubectl names the file in every
// error, and a file it names no error for was accepted.
func send(t *testing.T, objs []*sentObject) {
	t.Helper()
	dir := t.TempDir()
	const batch = 40
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for start := 0; start < len(objs); start += batch {
		end := min(start+batch, len(objs))
		wg.Add(1)
		sem <- struct{}{}
		go func(part []*sentObject, n int) {
			defer wg.Done()
			defer func() { <-sem }()
			sendBatch(t, filepath.Join(dir, strconv.Itoa(n)), part)
		}(objs[start:end], start)
	}
	wg.Wait()
}

func sendBatch(t *testing.T, dir string, objs []*sentObject) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Error(err)
		return
	}
	names := make([]string, len(objs))
	for i, o := range objs {
		names[i] = filepath.Join(dir, fmt.Sprintf("%03d.yaml", i))
		if err := os.WriteFile(names[i], o.Raw, 0o644); err != nil {
			t.Error(err)
			return
		}
	}
	out, err := kubectl(t, "apply", "--dry-run=server", "--validate=strict", "-o", "name", "-f", dir)
	text := string(out)
	accepted := 0
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		if l := sc.Text(); !strings.Contains(l, " ") && strings.Contains(l, "/") {
			accepted++
		}
	}
	// Attribute each error to the file it names. kubectl gathers the
	// errors it finds before sending into one "[a, b, ...]" line: the
	// objects named there are sent again one by one.
	named := 0
	var again []int
	for i, o := range objs {
		msgs := linesNaming(text, names[i])
		if len(msgs) == 0 {
			continue
		}
		named++
		if mentionsOther(strings.Join(msgs, "\n"), names, i) {
			again = append(again, i)
			continue
		}
		o.Refused, o.Output = true, strings.Join(msgs, "\n")
		o.Client = !strings.Contains(o.Output, "Error from server")
	}
	if named+accepted != len(objs) || (err != nil && named == 0) {
		// kubectl stopped early or said something it did not attribute.
		again = again[:0]
		for i := range objs {
			again = append(again, i)
		}
	}
	for _, i := range again {
		o := objs[i]
		out, err := kubectl(t, "apply", "--dry-run=server", "--validate=strict", "-o", "name", "-f", names[i])
		o.Output = strings.TrimSpace(strings.ReplaceAll(string(out), dir+"/", ""))
		o.Refused = err != nil
		o.Client = o.Refused && !strings.Contains(o.Output, "Error from server")
	}
}

func mentionsOther(msg string, names []string, self int) bool {
	for j, n := range names {
		if j != self && strings.Contains(msg, `"`+filepath.Base(n)+`"`) || j != self && strings.Contains(msg, " "+filepath.Base(n)+":") {
			return true
		}
	}
	return false
}

// linesNaming returns kubectl's error text about file: the lines naming it
// and the lines that continue such a message.
func linesNaming(text, file string) []string {
	var out []string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.Contains(lines[i], file) {
			continue
		}
		msg := lines[i]
		// Multi-line messages (apply's "error when retrieving current
		// configuration of: Resource ... from server for: FILE: ...") end at
		// the next line that starts a new message.
		for j := i + 1; j < len(lines) && !startsMessage(lines[j]); j++ {
			msg += "\n" + lines[j]
			i = j
		}
		out = append(out, strings.ReplaceAll(msg, filepath.Dir(file)+"/", ""))
	}
	return out
}

func startsMessage(l string) bool {
	return l == "" || strings.HasPrefix(l, "Error") || strings.HasPrefix(l, "error") || strings.HasPrefix(l, "Warning") ||
		(!strings.Contains(l, " ") && strings.Contains(l, "/"))
}

// atField says whether a refusal is at the field of a finding, and how it
// was seen there (the table counts each way):
//   - path: the message names the field's path (Go's JSON decoder names it
//     without list indexes: "Go struct field Container.spec.template.spec.containers.args");
//   - map value: it names the map holding the value ("ObjectMeta.metadata.labels
//     of type string" for a label's value: the decoder names the struct field,
//     not the key);
//   - ancestor: a validation error ("path: Invalid value") at an enclosing field;
//   - template labels: selector-template-mismatch is reported by the API at the
//     pod template's labels beside the selector ("`selector` does not match
//     template `labels`");
//   - value: the message quotes the value shipshape quotes (decoders that name
//     no field: quantities, base64, timestamps).
func atField(msg string, f finding) string {
	field := f.Field
	if field == "" {
		return ""
	}
	plain := stripIndexes(field)
	segs := strings.Split(plain, ".")
	switch {
	case strings.HasSuffix(field, `"]`) && strings.Contains(msg, "."+plain+" of type"):
		return "map value"
	case strings.Contains(msg, field+":") || strings.Contains(msg, `"`+field+`"`) || strings.Contains(msg, field+" "):
		return "path"
	case strings.Contains(msg, "."+plain+" of type"):
		return "path"
	case len(segs) >= 2 && strings.Contains(msg, "."+strings.Join(segs[:len(segs)-1], ".")+" of type"):
		return "map value"
	}
	if f.Rule == "selector-template-mismatch" {
		if i := strings.LastIndex(field, "selector"); i >= 0 {
			prefix := field[:i]
			if strings.Contains(msg, prefix+"template.metadata.labels: Invalid value") && strings.Contains(msg, "`selector` does not match template `labels`") {
				return "template labels"
			}
		}
	}
	for k := len(field); k > 0; k = strings.LastIndexAny(field[:k], ".[") {
		anc := field[:k]
		if strings.Count(anc, ".") >= 1 && (strings.Contains(msg, anc+": Invalid value") || strings.Contains(msg, anc+": Unsupported value") || strings.Contains(msg, anc+": Required value") || strings.Contains(msg, anc+": Forbidden")) {
			return "ancestor"
		}
	}
	for _, v := range quotedValues(f.Message) {
		if strings.Contains(msg, v) {
			return "value"
		}
	}
	switch {
	case strings.Contains(f.Message, "takes a quantity") && strings.Contains(msg, "quantities must match the regular expression"):
		return "value"
	case strings.Contains(f.Message, "base64") && strings.Contains(msg, "illegal base64 data"):
		return "value"
	case strings.Contains(f.Message, "which JSON cannot hold") && strings.Contains(msg, "json: unsupported value"):
		return "value" // kubectl, like kustomize, cannot write .inf as JSON
	}
	return ""
}

var indexRe = regexp.MustCompile(`\[[0-9]+\]|\["[^"]*"\]`)

func stripIndexes(p string) string { return indexRe.ReplaceAllString(p, "") }

// quotedValues are the values a finding's message quotes as the offending
// one: `not the string "X"`, `not number X`.
var valueRe = regexp.MustCompile(`not (?:the string "([^"]+)"|number ([0-9.eE+-]+))`)

func quotedValues(msg string) []string {
	var out []string
	for _, m := range valueRe.FindAllStringSubmatch(msg, -1) {
		if m[1] != "" {
			out = append(out, `"`+m[1]+`"`)
		}
		if m[2] != "" {
			out = append(out, "number "+m[2])
		}
	}
	return out
}

// reason is a cause of refusal that shipshape does not claim to check,
// with the explanation the table prints.
type reason struct {
	name    string
	re      *regexp.Regexp
	explain string
}

var reasons = []reason{
	{"suppressed in the input", regexp.MustCompile(`^$`),
		"the document carries a shipshape:ignore comment or a shipshape.dev/ignore annotation: shipshape was asked not to report it (testdata/lint/suppression)"},
	{"strategic-merge patch sent alone", regexp.MustCompile(`unknown field "[^"]*\$(patch|setElementOrder|retainKeys|deleteFromPrimitiveList)`),
		"a kustomize patch of a root that kustomize cannot render is sent as a plain file: its $patch directive is not an API field"},
	{"kind not served (CRD not installed, or API version removed)", regexp.MustCompile(`no matches for kind|resource mapping not found|ensure CRDs are installed first`),
		"kubectl finds no resource for the kind and version: a custom resource whose CustomResourceDefinition is not installed on the test cluster, or a built-in kind at a removed version (extensions/v1beta1, policy/v1beta1, autoscaling/v2beta1); the server has nothing to judge it by"},
	{"service account missing", regexp.MustCompile(`serviceaccount "[^"]+" not found|error looking up service account`),
		"a bare Pod names a ServiceAccount that does not exist: the ServiceAccount admission plugin refuses it; a cluster state, not a manifest error"},
	{"referenced object missing", regexp.MustCompile(`(?i)not found`),
		"an admission plugin looks up another object (a PriorityClass, a RuntimeClass, a Namespace's quota...) that this cluster does not have"},
	{"unrendered envsubst placeholder", regexp.MustCompile(`cannot unmarshal string into Go struct field|quantities must match|Invalid value: "\$\{`),
		"the document is a template for envsubst (${VAR} placeholders where numbers or quantities go): it is rendered before it is applied, and shipshape does not judge placeholders"},
	{"generateName with apply", regexp.MustCompile(`cannot use generate name with apply`),
		"kubectl apply refuses metadata.generateName (the manifest is meant for kubectl create): a client rule, not the API's"},
	{"value validation", regexp.MustCompile(`Invalid value|Required value|Unsupported value|Forbidden|Duplicate value|Too long|Too many`),
		"the API's validation of values (required fields, formats, ranges, immutable combinations): shipshape does not claim to check these"},
	{"YAML shipshape reports as yaml-syntax", regexp.MustCompile(`error converting YAML to JSON|error parsing|yaml: line|did not find expected|mapping values are not allowed|unable to decode`),
		"the document is not YAML kubectl can read; shipshape reports it as yaml-syntax (not one of the refusing rules)"},
}

var envsubstRe = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}`)

var suppressedRe = regexp.MustCompile(`shipshape:ignore|shipshape\.dev/ignore`)

func classify(o *sentObject) *reason {
	if suppressedRe.Match(o.Raw) {
		return &reasons[0]
	}
	for i := 1; i < len(reasons); i++ {
		if reasons[i].name == "unrendered envsubst placeholder" && !envsubstRe.Match(o.Raw) {
			continue
		}
		if reasons[i].re.MatchString(o.Output) {
			return &reasons[i]
		}
	}
	return nil
}

// knownDisagreement is a finding the server does not confirm, recorded with
// its explanation in testdata/known-disagreements.txt.
func loadKnown(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("testdata/known-disagreements.txt")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]string{}
	var key string
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "":
		case strings.HasPrefix(l, "  "):
			known[key] += strings.TrimSpace(l) + " "
		default:
			key = strings.TrimSpace(l)
			known[key] = ""
		}
	}
	return known
}

// verdicts compares the server's answers with shipshape's findings and
// returns the disagreements, each as a stable key (file:line:col rule field,
// or "accepted/refused SOURCE") and a description.
func verdicts(objs []*sentObject) (disagree map[string]string, table map[string]int, why map[string][]string) {
	disagree, table, why = map[string]string{}, map[string]int{}, map[string][]string{}
	for _, o := range objs {
		table["sent"]++
		if o.Refused {
			table["refused"]++
			if o.Client {
				table["refused by kubectl before sending"]++
			}
		} else {
			table["accepted"]++
		}
		if len(o.Claims) > 0 {
			table["with a refusing-rule error"]++
			confirmed := 0
			for _, f := range o.Claims {
				if o.Refused && atField(o.Output, f) != "" {
					confirmed++
				}
			}
			for _, f := range o.Claims {
				table["claims (error findings of the refusing rules, as-written warnings)"]++
				if !o.Refused {
					disagree[f.id()] = fmt.Sprintf("%s: shipshape says %q; the server ACCEPTED the %s", o.Source, f.Message, o.Kind)
					continue
				}
				if how := atField(o.Output, f); how != "" {
					table["claims confirmed at the field ("+how+")"]++
					continue
				}
				if o.Client && reasons[2].re.MatchString(o.Output) {
					// No CRD: the server has no schema to judge by.
					table["claims on kinds not served here (no CRD, removed version): not verifiable"]++
					continue
				}
				if confirmed > 0 {
					// The decoder and the validator stop at the first error
					// of an object: one refusal names one field.
					table["claims masked by another confirmed claim of the same object"]++
					continue
				}
				disagree[f.id()] = fmt.Sprintf("%s: shipshape says %q at %s; refused, but not at that field: %s", o.Source, f.Message, f.Field, o.Output)
			}
			continue
		}
		if !o.Refused {
			continue
		}
		if r := classify(o); r != nil {
			table["refused for a reason shipshape does not claim: "+r.name]++
			why[r.name] = append(why[r.name], o.Source+": "+firstLine(o.Output))
			continue
		}
		disagree["refused "+o.Source] = fmt.Sprintf("%s: no refusing-rule finding, but refused: %s", o.Source, o.Output)
	}
	return disagree, table, why
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	if len(l) > 200 {
		l = l[:200] + "..."
	}
	return l
}

// ensureNamespaces creates the namespaces the objects name, so that the
// server judges the objects themselves rather than a missing namespace.
func ensureNamespaces(t *testing.T, objs []*sentObject) {
	t.Helper()
	seen := map[string]bool{"default": true}
	ctx := context.Background()
	for _, o := range objs {
		if o.Namespace == "" || seen[o.Namespace] {
			continue
		}
		seen[o.Namespace] = true
		if err := cluster.EnsureNamespace(ctx, o.Namespace); err != nil {
			t.Fatalf("namespace %s: %v", o.Namespace, err)
		}
	}
}

// sample keeps every object that carries a claim and one in every n of the
// others, chosen by a hash of its source so the sample does not depend on
// the order of files.
func sample(objs []*sentObject, n uint32) []*sentObject {
	var out []*sentObject
	for _, o := range objs {
		h := fnv.New32a()
		h.Write([]byte(o.Source))
		if len(o.Claims) > 0 || h.Sum32()%n == 0 {
			out = append(out, o)
		}
	}
	return out
}

func report(t *testing.T, title string, objs []*sentObject, table map[string]int, disagree map[string]string, known map[string]string, why map[string][]string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "\n== server truth: %s\n", title)
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-70s %5d\n", k, table[k])
	}
	for _, r := range reasons {
		if len(why[r.name]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  refused, not claimed by shipshape: %s (%d): %s\n", r.name, len(why[r.name]), r.explain)
		for _, w := range why[r.name] {
			fmt.Fprintf(&b, "      %s\n", w)
		}
	}
	ids := make([]string, 0, len(disagree))
	for k := range disagree {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	fmt.Fprintf(&b, "  disagreements: %d\n", len(ids))
	for _, id := range ids {
		status := "NEW"
		if expl, ok := known[id]; ok {
			status = "known: " + strings.TrimSpace(expl)
		}
		fmt.Fprintf(&b, "  - %s\n      %s\n      [%s]\n", id, strings.ReplaceAll(disagree[id], "\n", "\n        "), status)
	}
	t.Log(b.String())
	for _, id := range ids {
		if _, ok := known[id]; !ok {
			t.Errorf("new disagreement between shipshape and the API server: %s\n  %s", id, disagree[id])
		}
	}
}

func checkKnownStillDisagree(t *testing.T, prefix string, disagree map[string]string, known map[string]string) {
	t.Helper()
	for id := range known {
		if !strings.HasPrefix(id, prefix) && !strings.HasPrefix(id, "refused "+prefix) {
			continue
		}
		if _, ok := disagree[id]; !ok {
			t.Errorf("known disagreement no longer seen (shipshape and the server now agree, or the input moved): %s: remove it from testdata/known-disagreements.txt", id)
		}
	}
}

// TestServerTruthTestdata sends every object of shipshape's testdata/,
// and of the rules' kustomize trees (rules/testdata/<rule-id>/render/),
// which were testdata/render's until they moved beside their rules.
func TestServerTruthTestdata(t *testing.T) {
	if shipshape == "" {
		t.Fatal("SHIPSHAPE_BIN is not set")
	}
	stopLWS := startLatestLWS(t)
	defer stopLWS()
	repo, _ := filepath.Abs("..")
	renders, err := filepath.Glob(filepath.Join(repo, "rules", "testdata", "*", "render"))
	if err != nil || len(renders) == 0 {
		t.Fatalf("no rules/testdata/*/render: %v", err)
	}
	dirs := []string{"testdata"}
	for _, r := range renders {
		rel, _ := filepath.Rel(repo, r)
		dirs = append(dirs, rel)
	}
	findings := lint(t, repo, dirs...)
	var files []string
	for _, d := range dirs {
		files = append(files, yamlFiles(t, repo, d)...)
	}
	objs := collect(t, repo, files, findings, true)
	ensureNamespaces(t, objs)
	send(t, objs)
	disagree, table, why := verdicts(objs)
	known := loadKnown(t)
	report(t, "testdata/ and rules/testdata/*/render/ (every object)", objs, table, disagree, known, why)
	checkKnownStillDisagree(t, "testdata/", disagree, known)
	checkKnownStillDisagree(t, "rules/testdata/", disagree, known)
	if table["claims (error findings of the refusing rules, as-written warnings)"] == 0 {
		t.Error("no claim was checked: the testdata has error findings of the refusing rules")
	}
}

// TestServerTruthCorpus sends a deterministic sample of ../shared/corpus:
// every object with a claim and one in eight of the others.
func TestServerTruthCorpus(t *testing.T) {
	corpus := os.Getenv("SHIPSHAPE_CORPUS")
	if corpus == "" {
		t.Skip("SHIPSHAPE_CORPUS is not set: the corpus sample is not checked")
	}
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("SHIPSHAPE_CORPUS=%s is absent (%v): the corpus sample is not checked", corpus, err)
	}
	stopLWS := startLatestLWS(t)
	defer stopLWS()
	base := filepath.Dir(corpus)
	name := filepath.Base(corpus)
	findings := lint(t, base, name)
	// The corpus keeps only YAML files with apiVersion and kind, so its
	// kustomizations mostly miss files they name: its files are sent as
	// plain files, as shipshape judges them.
	objs := sample(collect(t, base, yamlFiles(t, base, name), findings, false), 8)
	ensureNamespaces(t, objs)
	send(t, objs)
	disagree, table, why := verdicts(objs)
	known := loadKnown(t)
	report(t, "corpus sample ("+name+")", objs, table, disagree, known, why)
	checkKnownStillDisagree(t, name+"/", disagree, known)
}
