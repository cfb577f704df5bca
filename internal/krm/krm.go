// Package krm runs shipshape as a KRM function: a ResourceList in, the
// same items (fixed in fix mode) and results out, read and written by
// kyaml's kio as kyaml's fn/framework does (execute.go), so that the
// protocol is kustomize's and kpt's own code.
//
// The items are never dropped, reordered or added to (the functionConfig
// is not an item); in lint mode they come back unchanged. Findings become
// results:
//
//	message:     "RULE: MESSAGE"
//	severity:    error | warning | info
//	resourceRef: apiVersion, kind, name, namespace of the object
//	field.path:  dotted path of the offending node (spec.replicas)
//	file:        path and index from the config.kubernetes.io/path and
//	             config.kubernetes.io/index annotations, when present
//	tags:        rule; line and column within the resource (see
//	             resourceLine); fixable=true when a fix exists
//
// In fix mode the safe fixes are applied to the items first; each fix
// applied is reported as an info result tagged fixed=true, and the
// findings that are left are reported as above.
package krm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/fixer"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/transformers"
)

// LocalConfigAnnotation marks resources that configure tools and are never
// applied to a cluster (function configs, Kptfiles); they are not linted.
const LocalConfigAnnotation = "config.kubernetes.io/local-config"

// Outcome is what the function found, for the caller's exit code and
// messages.
type Outcome struct {
	Mode     string // lint or fix
	FailOn   string // the fail level as configured ("" = error)
	failOn   analysis.FailOn
	Findings []analysis.Finding // what is left, in item order
	Failing  []analysis.Finding // findings at or above the fail level
	Fixed    []analysis.Finding // fix mode: findings whose fix was applied
	src      []byte             // fast path: the ResourceList to write
	results  []*Result          // fast path: its results
}

// Run reads a ResourceList from r and writes the result to w. The
// ResourceList is written even when the functionConfig is bad; that error
// is returned as a *config.Error (and also becomes an error result).
//
// A ResourceList in the shape kustomize and kpt write takes the fast path
// (split.go); anything else, and anything the fast path is unsure of, goes
// through kyaml's reader and writer (runGeneral).
func Run(r io.Reader, w io.Writer, rs []*analysis.Rule) (*Outcome, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return &Outcome{Mode: "lint"}, fmt.Errorf("failed to read ResourceList input: %w", err)
	}
	return RunBytes(src, w, rs)
}

// RunBytes is Run on a ResourceList already read: src is not copied, and
// the caller must not change it.
func RunBytes(src []byte, w io.Writer, rs []*analysis.Rule) (*Outcome, error) {
	if out, ok := runSplit(src, rs); ok {
		return out, writeSplit(w, out.src, out.results)
	}
	return runGeneral(bytes.NewReader(src), w, rs)
}

// runGeneral is the general path: kyaml reads the ResourceList, the fixes
// are applied to the item nodes, and kyaml writes it back.
func runGeneral(r io.Reader, w io.Writer, rs []*analysis.Rule) (*Outcome, error) {
	out := &Outcome{Mode: "lint"}
	err := execute(r, w, func(rl *resourceList) error { return process(rl, out, rs) })
	return out, err
}

func process(rl *resourceList, out *Outcome, rs []*analysis.Rule) error {
	eng, err := out.setUp(rl.FunctionConfig, rs)
	if err != nil {
		rl.Results = append(rl.Results, &Result{Message: "shipshape: " + err.Error(), Severity: SeverityError})
		return err
	}
	findings := eng.LintObjects(objects(rl.Items, 0))
	before := places(rl.Items)
	var fixed []analysis.Finding
	if out.Mode == "fix" {
		// Each try applies its fixes to copies of the items.
		items, applied, left, err := fixer.Items(findings, func(set []analysis.Finding) ([]*yaml.RNode, error) {
			copies := make([]*yaml.RNode, len(rl.Items))
			for i, it := range rl.Items {
				copies[i] = it.Copy()
			}
			edits, err := resolveAll(ynodes(copies), set)
			if err != nil {
				return nil, err
			}
			return copies, transformers.ApplyNodes(edits)
		}, func(items []*yaml.RNode) ([]analysis.Finding, error) {
			return eng.LintObjects(objects(items, 0)), nil
		})
		if err != nil {
			rl.Results = append(rl.Results, &Result{Message: "shipshape: cannot fix: " + err.Error(), Severity: SeverityError})
		} else {
			if len(applied) > 0 {
				rl.Items = items
			}
			fixed, findings = applied, left
		}
	}
	after := before
	if len(fixed) > 0 {
		after = places(rl.Items)
	}
	rl.Results = append(rl.Results, out.record(fixed, before, findings, after)...)
	return nil
}

// resolveAll resolves the edits of every finding of set on items.
func resolveAll(items []*yaml.Node, set []analysis.Finding) ([]transformers.Edit, error) {
	var edits []transformers.Edit
	for _, fd := range set {
		e, err := fixer.ResolveItem(items, fd)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e...)
	}
	return edits, nil
}

func ynodes(items []*yaml.RNode) []*yaml.Node {
	out := make([]*yaml.Node, len(items))
	for i, it := range items {
		out[i] = it.YNode()
	}
	return out
}

// runSplit lints (and fixes) src if it is a ResourceList the fast path
// reads. Lint mode lints it batch by batch (batch.go). Fixes are made in
// the bytes, as `shipshape fix` makes them in files, and the result is
// parsed again for the findings left. It returns ok=false, having
// written nothing, for what kyaml's path does differently: a shape the
// fast path does not read, a bad functionConfig (reported there) and
// fixes that do not verify (reported there).
func runSplit(src []byte, rs []*analysis.Rule) (out *Outcome, ok bool) {
	b, ok := findItems(src)
	if !ok {
		return nil, false
	}
	fcNode, ok := parseSkeleton(src, b)
	if !ok {
		return nil, false
	}
	out = &Outcome{Mode: "lint", src: src}
	var fc *yaml.RNode
	if fcNode != nil {
		fc = yaml.NewRNode(fcNode)
	}
	eng, err := out.setUp(fc, rs)
	if err != nil {
		return nil, false
	}
	if out.Mode != "fix" {
		return out, lintBatches(out, eng, src, b)
	}
	nodes, err := parseEntries(src, b, 0, len(b.entries))
	if err != nil {
		return nil, false
	}
	items := rnodes(nodes)
	findings := eng.LintObjects(objects(items, 0))
	// The item nodes' positions are in src: every try applies its edits
	// to those bytes.
	var fixedItems []*yaml.RNode
	fixedSrc, applied, left, err := fixer.Items(findings, func(set []analysis.Finding) ([]byte, error) {
		edits, err := resolveAll(nodes, set)
		if err != nil {
			return nil, err
		}
		return transformers.ApplyBytes(src, edits)
	}, func(src []byte) ([]analysis.Finding, error) {
		after, ok := split(src)
		if !ok || len(after.items) != len(items) {
			return nil, errors.New("the fixed ResourceList does not read back")
		}
		fixedItems = rnodes(after.items)
		return eng.LintObjects(objects(fixedItems, 0)), nil
	})
	if err != nil {
		return nil, false
	}
	before := places(items)
	after := before
	if len(applied) > 0 {
		out.src, after = fixedSrc, places(fixedItems)
	}
	out.results = out.record(applied, before, left, after)
	return out, true
}

func rnodes(ns []*yaml.Node) []*yaml.RNode {
	out := make([]*yaml.RNode, len(ns))
	for i, n := range ns {
		out[i] = yaml.NewRNode(n)
	}
	return out
}

// writeSplit writes a ResourceList that took the fast path: its bytes, with
// the results appended as kyaml's writer would write them. Each result is
// encoded on its own (a one-item list encodes as that item of the whole
// list does): one encoder for them all kept every event of the list,
// about 60 kB a result, 3.6 GB for 100,000 items with a finding each.
func writeSplit(w io.Writer, src []byte, results []*Result) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(src)
	if len(results) > 0 {
		bw.WriteString("results:\n")
	}
	for _, r := range results {
		b, err := yaml.Marshal([]*Result{r})
		if err != nil {
			return err
		}
		bw.Write(b)
	}
	return bw.Flush()
}

// setUp reads the functionConfig into the engine and the outcome's mode.
func (out *Outcome) setUp(fc *yaml.RNode, rs []*analysis.Rule) (*engine.Engine, error) {
	cfg, err := functionConfig(fc)
	var eng *engine.Engine
	if err == nil {
		eng, err = engine.New(rs, cfg, nil, nil)
	}

	if err != nil {
		return nil, err
	}
	if cfg.Mode != "" {
		out.Mode = cfg.Mode
	}
	out.FailOn = cfg.FailOn
	out.failOn = eng.FailOn()
	return eng, nil
}

// record keeps the findings in the outcome and turns them into results:
// first the fixes applied (positions in the items before fixing), then the
// findings left (positions in the items after).
func (out *Outcome) record(fixed []analysis.Finding, before []itemPlace, findings []analysis.Finding, after []itemPlace) []*Result {
	out.Fixed = fixed
	engine.SortByItem(findings)
	out.Findings = findings
	var results []*Result
	for _, f := range fixed {
		r := result(f, before)
		r.Severity = SeverityInfo
		r.Message = "fixed " + r.Message
		r.Tags["fixed"] = "true"
		delete(r.Tags, "fixable")
		results = append(results, r)
	}
	for _, f := range findings {
		results = append(results, result(f, after))
	}
	out.Failing = out.failOn.Failing(findings)
	return results
}

// functionConfig accepts a ShipshapeConfig or a ConfigMap of flat keys
// (what `kpt fn eval -- key=value` and `kustomize fn run -- key=value`
// send). No functionConfig means the defaults.
func functionConfig(fc *yaml.RNode) (*config.Config, error) {
	if fc == nil || fc.IsNilOrEmpty() {
		return &config.Config{Source: "functionConfig"}, nil
	}
	// kyaml's accessors index mapping content without checking the kind:
	// a list or a scalar here would panic (found by FuzzResourceList).
	if fc.YNode().Kind != yaml.MappingNode {
		return nil, &config.Error{Source: "functionConfig", Msg: "not a mapping: want a " + config.Kind + " or a ConfigMap"}
	}
	switch fc.GetKind() {
	case "ConfigMap":
		return config.FromFlatKeys(fc.GetDataMap(), "functionConfig")
	case config.Kind:
		s, err := fc.String()
		if err != nil {
			return nil, &config.Error{Source: "functionConfig", Msg: err.Error()}
		}
		return config.Parse([]byte(s), "functionConfig")
	}
	return nil, &config.Error{Source: "functionConfig", Msg: fmt.Sprintf("kind %q: want %s (apiVersion %s) or ConfigMap", fc.GetKind(), config.Kind, config.APIVersion)}
}

// objects wraps the items for the rules; items[0] is item first of the
// ResourceList. The nodes are shared, so fixes applied to them change the
// items that are written out. Each object's File is its
// config.kubernetes.io/path annotation ("" when absent) and its Doc is
// the index of its item in the ResourceList, which result() maps back to
// the item's place.
func objects(items []*yaml.RNode, first int) []*manifest.Object {
	var objs []*manifest.Object
	for j, it := range items {
		i := first + j
		if isLocalConfig(it) {
			continue
		}
		n := it.YNode()
		path, _ := fileAnnotations(n)
		o := manifest.NewObject(n, path, i, false)
		if o == nil {
			continue
		}
		if items := manifest.MapGet(n, "items"); items != nil && items.Kind == yaml.SequenceNode && strings.HasSuffix(o.Kind, "List") {
			for j, sub := range items.Content {
				if so := manifest.NewObject(sub, path, i, false); so != nil {
					so.Item = j
					objs = append(objs, so)
				}
			}
			continue
		}
		objs = append(objs, o)
	}
	return objs
}

func isLocalConfig(it *yaml.RNode) bool {
	v := annotation(it.YNode(), LocalConfigAnnotation)
	return v != "" && v != "false"
}

// fileAnnotations is kioutil.GetFileAnnotations read off the nodes: kyaml
// decodes the whole metadata for it, once per item and finding.
func fileAnnotations(n *yaml.Node) (path, index string) {
	pick := func(key, legacy string) string {
		if v := manifest.Path(n, "metadata", "annotations", key); v != nil {
			return manifest.ScalarValue(v)
		}
		return annotation(n, legacy)
	}
	return pick(kioutil.PathAnnotation, kioutil.LegacyPathAnnotation), pick(kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation)
}

func annotation(n *yaml.Node, key string) string {
	return manifest.ScalarValue(manifest.Path(n, "metadata", "annotations", key))
}

// result is the result of f; items are the places of the ResourceList's
// items (f.Doc indexes them).
func result(f analysis.Finding, items []itemPlace) *Result {
	sev := SeverityError
	switch f.Severity {
	case analysis.Warning:
		sev = SeverityWarning
	case analysis.Info:
		sev = SeverityInfo
	}
	r := &Result{
		Message:  f.Rule + ": " + f.Message,
		Severity: sev,
		Tags:     map[string]string{"rule": f.Rule},
	}
	if f.Resource.Kind != "" {
		r.ResourceRef = &yaml.ResourceIdentifier{
			TypeMeta: yaml.TypeMeta{APIVersion: f.Resource.APIVersion, Kind: f.Resource.Kind},
			NameMeta: yaml.NameMeta{Name: f.Resource.Name, Namespace: f.Resource.Namespace},
		}
	}
	if f.Field != "" {
		r.Field = &Field{Path: f.Field}
	}
	if f.Doc >= 0 && f.Doc < len(items) {
		p := &items[f.Doc]
		if p.path != "" {
			r.File = &File{Path: p.path}
			if n, err := strconv.Atoi(p.index); err == nil {
				r.File.Index = n
			}
		}
		if f.Line > 0 {
			r.Tags["line"] = strconv.Itoa(p.resourceLine(f.Line))
			r.Tags["column"] = strconv.Itoa(p.resourceColumn(f.Column))
		}
	}
	if f.Fix != nil {
		r.Tags["fixable"] = "true"
	}
	return r
}
