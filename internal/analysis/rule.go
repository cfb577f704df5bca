package analysis

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/schemawalk"
)

// Rule is one check: metadata plus functions. Docs, `shipshape rules`,
// `shipshape explain` and SARIF rule metadata all come from these fields.
// A rule sets one or more of Check (or Visit), CheckFile and Cross.
type Rule struct {
	ID       string
	Severity Severity // default severity; config may override
	Summary  string   // one line, no trailing period
	Fixable  bool     // whether the rule attaches fixes (to some findings)

	// Docs gives the rule's documentation (see Documentation): a
	// function, so that a rule whose prose lives in files reads them at
	// first use (explain, docs, SARIF), not while the program starts;
	// nil for none. StaticDocs wraps documentation written in Go.
	Docs func() Documentation

	// Targets is what the rule judges: the kinds of input the engine
	// gives its Check (or Visit); see Targets.
	Targets Targets

	// Rendered is the visitor of a kustomize root's rendered objects for
	// a rule that targets RenderedValues (and SourceFiles): it judges the
	// values no source file shows as they are read (what a JSON patch or
	// a patch written inline in a kustomization sets). The engine keeps
	// its findings only where they are placed in such a patch; a value
	// from a file is judged in it.
	Rendered func(p *Pass) schemawalk.Visitor

	// Settings are the configuration keys the rule reads (through
	// Pass.Config), for explain and docs/rules.md; the keys themselves
	// are parsed and checked by internal/config.
	Settings []Setting

	// Check runs once per object.
	Check func(p *Pass)

	// Visit makes the rule a visitor of the walk the engine makes once
	// per object, along the object's Kubernetes types, for every rule that
	// sets it (see schemawalk.Visitor): the rule judges what the walk shows
	// it and has no walking loop of its own. Visit returns the zero
	// Visitor for an object the rule has nothing to look at in. Such a
	// rule sets Check to WalkAlone(Visit) as well, for whatever runs one
	// rule by itself (its tests, its benchmark); the engine calls Visit,
	// never that Check.
	Visit func(p *Pass) schemawalk.Visitor

	// CheckFile runs once per parsed file, for what is not an object
	// (documents that are a bare value or a list).
	CheckFile func(p *FilePass)

	// Cross makes a cross-resource rule (see Summaries), and Scope says
	// how far it looks.
	Cross Cross
	Scope Scope

	// Change makes a change rule (see ChangePass): it runs once per
	// application the change touches, under `lint --base` only.
	Change func(p *ChangePass)
}

// Documentation is what a rule's reader is shown beside its summary.
type Documentation struct {
	Doc  string // why it matters and what to do, Markdown paragraphs
	Bad  string // YAML example that fires the rule
	Good string // the same example, fixed
}

// Documentation returns r's documentation; the zero Documentation when
// r has none.
func (r *Rule) Documentation() Documentation {
	if r.Docs == nil {
		return Documentation{}
	}
	return r.Docs()
}

// StaticDocs is Docs for documentation written in Go: it gives d.
func StaticDocs(d Documentation) func() Documentation {
	return func() Documentation { return d }
}

// Scope is how far a cross-resource rule looks: inside one application
// (a rendered kustomize root, or a directory of plain manifests), or
// across the repository.
type Scope int

const (
	// PerApplication judges each application alone: rules that report a
	// conflict (two controllers over the same pods), which only matters
	// among objects applied together.
	PerApplication Scope = iota
	// Repository judges every application together: rules that report an
	// absence (no pods, no Endpoints), which look as widely as they can
	// before saying something is missing.
	Repository
)

// Pass is what a rule sees of one object.
type Pass struct {
	Rule   *Rule
	Object *manifest.Object
	// Config is the run's configuration; never nil.
	Config *config.Config
	report func(Finding)
	// jsonPatch finds the op value behind a rendered value (see
	// JSONPatchValue); nil for objects not rendered.
	jsonPatch func(path string) *yaml.Node
}

// NewPass is for drivers: it binds a rule and an object to a sink.
func NewPass(r *Rule, obj *manifest.Object, cfg *config.Config, report func(Finding)) *Pass {
	return &Pass{Rule: r, Object: obj, Config: cfg, report: report}
}

// WithJSONPatch is for drivers of rendered objects: find returns the value
// node, as written, of the JSON-patch op that set the value at a path.
func (p *Pass) WithJSONPatch(find func(path string) *yaml.Node) *Pass {
	p.jsonPatch = find
	return p
}

// JSONPatchValue returns, for an object kustomize rendered (Rule.Rendered),
// the value as written in the JSON-patch op that set the value at path, or
// nil when no op did. kustomize reads an op's value as YAML 1.1: the
// source says what the rendered value was written as.
func (p *Pass) JSONPatchValue(path string) *yaml.Node {
	if p.jsonPatch == nil {
		return nil
	}
	return p.jsonPatch(path)
}

// Report records a finding at node n. path is the dotted field path.
func (p *Pass) Report(n *yaml.Node, path string, fix *Fix, format string, args ...any) {
	p.report(p.Finding(n, path, fix, format, args...))
}

// ReportFinding records a finding built with Finding.
func (p *Pass) ReportFinding(f Finding) { p.report(f) }

// Finding builds, without recording, a finding at node n: cross-resource
// rules keep such findings in their summaries and report them from
// Finish; per-object rules may hold candidates until the walk ends.
func (p *Pass) Finding(n *yaml.Node, path string, fix *Fix, format string, args ...any) Finding {
	f := Finding{
		Rule:     p.Rule.ID,
		Severity: p.Rule.Severity,
		Message:  fmt.Sprintf(format, args...),
		Resource: p.Object.Resource,
		Field:    path,
		File:     p.Object.File,
		Fix:      fix,
		Doc:      p.Object.Doc,
		Item:     p.Object.Item,
		Rendered: p.Object.Root != "",
	}
	if n != nil {
		f.Line, f.Column = n.Line, n.Column
	}
	return f
}

// Memo returns what compute gives for key on this pass's object,
// computing it once for all the rules that ask: two rules that derive the
// same thing from an object (the pods a workload makes) share it. The
// value must not be changed by its users.
func (p *Pass) Memo(key string, compute func() any) any {
	return p.Object.Memo(key, compute)
}

// OptedOut reports whether the object's ignore annotation names the rule.
// The engine drops findings about such objects by itself; a rule needs
// this only when the opt-out changes a plan that concerns other objects
// (an LWS that opts out of ordering takes its dependencies out with it).
func (p *Pass) OptedOut() bool { return IgnoredRules(p.Object).Has(p.Rule.ID) }

// Quote is a fix that double-quotes the scalar n (a value or a key) of the
// pass's object; nil when n is not in the object's tree.
func (p *Pass) Quote(n *yaml.Node, message string) *Fix {
	path, isKey, ok := manifest.PathTo(p.Object.Node, n)
	if !ok {
		return nil
	}
	return &Fix{Message: message, Edits: []Edit{{Op: Quote, Path: path, OnKey: isKey}}}
}

// Delete is a fix that removes the entry whose key node is key; nil for
// an entry of a flow mapping (`{replicas: 2, ...}`), which the appliers
// leave to be edited by hand.
func (p *Pass) Delete(key *yaml.Node) *Fix {
	path, isKey, ok := manifest.PathTo(p.Object.Node, key)
	if !ok || !isKey {
		return nil
	}
	if parent, _, _, ok := manifest.Lookup(p.Object.Node, path); !ok || parent.Style&yaml.FlowStyle != 0 {
		return nil
	}
	return &Fix{Message: "remove " + key.Value, Edits: []Edit{{Op: Delete, Path: path}}}
}

// Rename is a fix that renames the entry whose key node is key to to.
func (p *Pass) Rename(key *yaml.Node, to, message string) *Fix {
	path, isKey, ok := manifest.PathTo(p.Object.Node, key)
	if !ok || !isKey {
		return nil
	}
	return &Fix{Message: message, Edits: []Edit{{Op: Rename, Path: path, Value: to}}}
}

// WalkAlone is the Check of a rule that sets Visit: the walk of one
// object with that rule's visitor alone.
func WalkAlone(visit func(p *Pass) schemawalk.Visitor) func(p *Pass) {
	return func(p *Pass) { schemawalk.Walk(p.Object, []schemawalk.Visitor{visit(p)}) }
}

// FilePass is what a file-level rule sees of one parsed file.
type FilePass struct {
	Rule   *Rule
	File   *manifest.File
	Config *config.Config
	report func(Finding)
}

// NewFilePass is for drivers.
func NewFilePass(r *Rule, f *manifest.File, cfg *config.Config, report func(Finding)) *FilePass {
	return &FilePass{Rule: r, File: f, Config: cfg, report: report}
}

// Report records a finding at a position of the file.
func (p *FilePass) Report(line, column, doc int, format string, args ...any) {
	p.report(Finding{Rule: p.Rule.ID, Severity: p.Rule.Severity, Message: fmt.Sprintf(format, args...),
		File: p.File.Path, Line: line, Column: column, Doc: doc, Item: -1})
}

// IgnoreAnnotation lists rule IDs (or "all") an object opts out of.
const IgnoreAnnotation = "shipshape.dev/ignore"

// RuleSet is the rule IDs an ignore annotation names ("all" among them
// covers every rule); nil for the usual object without one.
type RuleSet []string

// IgnoredRules reads an object's ignore annotation.
func IgnoredRules(obj *manifest.Object) RuleSet {
	v := manifest.ScalarValue(manifest.Path(obj.Node, "metadata", "annotations", IgnoreAnnotation))
	if v == "" {
		return nil
	}
	var ids RuleSet
	for _, id := range strings.Split(v, ",") {
		ids = append(ids, strings.TrimSpace(id))
	}
	return ids
}

// Has reports whether the set covers rule.
func (s RuleSet) Has(rule string) bool {
	for _, id := range s {
		if id == rule || id == "all" {
			return true
		}
	}
	return false
}
