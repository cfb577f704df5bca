// Package rules holds shipshape's checks. Like golang.org/x/tools/go/analysis,
// a rule is metadata plus a small function; it returns findings as data and
// never prints or writes. The engine decides what to filter, print and fix.
package rules

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/transformers"
)

// Severity orders findings; the zero value is Info so that "at or above"
// comparisons read naturally.
type Severity int

const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity accepts the names String returns.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(s) {
	case "info":
		return Info, nil
	case "warning":
		return Warning, nil
	case "error":
		return Error, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

// Finding is one problem at one position. File, Line and Column point at the
// offending node; Line and Column are 1-based, Column counts characters.
type Finding struct {
	Rule     string
	Severity Severity
	Message  string
	Resource manifest.Resource
	Field    string // dotted path of the offending node, e.g. spec.template.metadata.labels.active
	File     string
	Line     int
	Column   int
	// Fix is nil when the finding has no safe automatic fix.
	Fix *transformers.Fix
	// Doc is the document index within File (0-based); -1 when unknown.
	Doc int
}

// Fixable reports whether the finding carries a safe fix.
func (f Finding) Fixable() bool { return f.Fix != nil }

// Rule is one check: metadata plus a function. Docs, `shipshape rules`,
// `shipshape explain` and SARIF rule metadata all come from these fields.
type Rule struct {
	ID       string
	Severity Severity // default severity; config may override
	Summary  string   // one line, no trailing period
	Doc      string   // why it matters and what to do, Markdown paragraphs
	Bad      string   // YAML example that fires the rule
	Good     string   // the same example, fixed
	Fixable  bool     // whether the rule attaches fixes (to some findings)

	// ValueLevel rules also run on partial objects (kustomize patches),
	// because they judge single values rather than whole objects.
	ValueLevel bool

	// Check runs once per object. Nil for rules that only aggregate.
	Check func(p *Pass)

	// NewAggregate, when set, makes a cross-resource rule: the engine feeds
	// every object of the run to Observe and calls Finish once at the end.
	NewAggregate func() Aggregate
}

// Aggregate keeps the small summary a cross-resource rule needs.
// Observe is called from a single goroutine.
type Aggregate interface {
	Observe(p *Pass)
	Finish(report func(Finding))
}

// Pass is what a rule sees of one object.
type Pass struct {
	Rule       *Rule
	Object     *manifest.Object
	report     func(Finding)
	suppressed bool
}

// WithSuppressed marks that the object opts out of the rule (annotation);
// aggregates still observe it but must not report it.
func (p *Pass) WithSuppressed(s bool) *Pass {
	p.suppressed = s
	return p
}

// Suppressed reports whether findings about this object are unwanted.
func (p *Pass) Suppressed() bool { return p.suppressed }

// NewPass is for the engine: it binds a rule and an object to a sink.
func NewPass(r *Rule, obj *manifest.Object, report func(Finding)) *Pass {
	return &Pass{Rule: r, Object: obj, report: report}
}

// Report records a finding at node n. path is the dotted field path.
func (p *Pass) Report(n *yaml.Node, path string, fix *transformers.Fix, format string, args ...any) {
	p.report(p.Finding(n, path, fix, format, args...))
}

// Finding builds, without recording, a finding at node n; aggregates use it
// to hold candidates until Finish.
func (p *Pass) Finding(n *yaml.Node, path string, fix *transformers.Fix, format string, args ...any) Finding {
	f := Finding{
		Rule:     p.Rule.ID,
		Severity: p.Rule.Severity,
		Message:  fmt.Sprintf(format, args...),
		Resource: p.Object.Resource,
		Field:    path,
		File:     p.Object.File,
		Fix:      fix,
		Doc:      p.Object.Doc,
	}
	if n != nil {
		f.Line, f.Column = n.Line, n.Column
	}
	return f
}

var registry = map[string]*Rule{}

// Register adds a rule; rules register themselves from init in their own file.
func Register(r *Rule) *Rule {
	if _, dup := registry[r.ID]; dup {
		panic("rules: duplicate rule " + r.ID)
	}
	registry[r.ID] = r
	return r
}

// All returns every registered rule sorted by ID.
func All() []*Rule {
	out := make([]*Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Get returns the rule with the given ID, or nil.
func Get(id string) *Rule { return registry[id] }
