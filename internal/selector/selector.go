// Package selector reads Kubernetes label selectors from yaml.v3 nodes and
// evaluates them exactly as k8s.io/apimachinery's LabelSelectorAsSelector
// does, keeping the node of every requirement so rules can point at it.
//
// Nodes are read the way kubectl reads them (see read.go): `on` as a label
// value is a boolean there, `1.10` a number, merge keys apply, and field
// names are case-sensitive. What the API server would reject comes back as
// a Problem; the selector is still returned when its shape allows, built
// from the text as written.
package selector

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/labelsyntax"
)

// Op is a matchExpressions operator. The API server compares them
// case-sensitively: "in" is rejected.
type Op string

const (
	In           Op = "In"
	NotIn        Op = "NotIn"
	Exists       Op = "Exists"
	DoesNotExist Op = "DoesNotExist"
)

// Requirement is one condition of a selector. A matchLabels entry is In with
// one value. A requirement whose Op is none of the four (a Problem was
// reported) matches nothing.
type Requirement struct {
	Key    string
	Op     Op
	Values []string
	// Node is where to report: the matchLabels value node, or the
	// matchExpressions item.
	Node *yaml.Node
	// Path is dotted and relative to the selector node: "matchLabels.app",
	// "matchExpressions[0]"; for FromMap just the key.
	Path string

	Equality bool // from matchLabels or a map: prints as key=value
}

// Selector is a parsed label selector. A nil *Selector is a nil selector
// and selects nothing.
type Selector struct {
	// Requirements holds matchLabels first (in document order), then
	// matchExpressions.
	Requirements []Requirement
	// Empty is true for a selector with no matchLabels and no
	// matchExpressions (`{}`, or both empty): it selects everything.
	Empty bool
}

// Problem is something the API server would reject.
type Problem struct {
	Node    *yaml.Node
	Path    string
	Message string
}

// FromLabelSelector parses a metav1.LabelSelector node (matchLabels,
// matchExpressions). A nil node or YAML null gives a nil selector, which
// callers treat specially (a workload's nil selector selects nothing).
func FromLabelSelector(n *yaml.Node) (*Selector, []Problem) {
	if isNull(n) {
		return nil, nil
	}
	p := &parser{}
	if deref(n).Kind != yaml.MappingNode {
		p.report(n, "", "selector must be a mapping, not %s", kindName(deref(n)))
		return nil, p.problems
	}
	fields, ok := p.entries(n, "")
	s := &Selector{}
	var labels, exprs *yaml.Node
	for _, f := range fields {
		switch f.key {
		case "matchLabels":
			labels = f.value
		case "matchExpressions":
			exprs = f.value
		default:
			msg := fmt.Sprintf("unknown field %q", f.key)
			if strings.EqualFold(f.key, "matchLabels") || strings.EqualFold(f.key, "matchExpressions") {
				msg += " (field names are case-sensitive)"
			}
			p.report(f.keyNode, f.key, "%s", msg)
		}
	}
	// apimachinery counts entries, not valid requirements: a selector whose
	// only expression is broken is not empty.
	count := 0
	if !ok {
		count++ // a broken merge key: not decodable, so not empty either
	}
	if !isNull(labels) {
		count += p.equalities(s, labels, "matchLabels")
	}
	if !isNull(exprs) {
		count += p.expressions(s, exprs)
	}
	s.Empty = count == 0
	return s, p.problems
}

// FromMap parses a plain map selector (Service and ReplicationController
// spec.selector): Equality only. `{}` is Empty, as labels.SelectorFromSet
// makes it; callers judging Services should know that the field is
// omitempty, so after a round trip through the API server `selector: {}`
// is no selector at all and the Service selects no pods.
func FromMap(n *yaml.Node) (*Selector, []Problem) {
	if isNull(n) {
		return nil, nil
	}
	p := &parser{}
	s := &Selector{}
	if deref(n).Kind != yaml.MappingNode {
		p.report(n, "", "selector must be a mapping, not %s", kindName(deref(n)))
		return nil, p.problems
	}
	s.Empty = p.equalities(s, n, "") == 0
	return s, p.problems
}

// equalities adds one requirement per key of mapping n and returns how many
// entries kubectl sees.
func (p *parser) equalities(s *Selector, n *yaml.Node, path string) int {
	entries, ok := p.entries(n, path)
	for _, e := range entries {
		at := join(path, e.key)
		p.checkKey(e.keyNode, at, e.key)
		value, ok := p.str(e.value, at)
		if ok {
			p.checkValue(e.value, at, value)
		}
		s.Requirements = append(s.Requirements, Requirement{
			Key: e.key, Op: In, Values: []string{value},
			Node: e.value, Path: at, Equality: true,
		})
	}
	if !ok {
		return len(entries) + 1 // not decodable: never empty
	}
	return len(entries)
}

// expressions adds one requirement per item of the matchExpressions
// sequence n and returns how many items there are.
func (p *parser) expressions(s *Selector, n *yaml.Node) int {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		p.report(n, "matchExpressions", "must be a sequence, not %s", kindName(n))
		return 1
	}
	for i, item := range n.Content {
		path := fmt.Sprintf("matchExpressions[%d]", i)
		s.Requirements = append(s.Requirements, p.expression(item, path))
	}
	return len(n.Content)
}

func (p *parser) expression(item *yaml.Node, path string) Requirement {
	r := Requirement{Node: item, Path: path}
	if isNull(item) {
		// JSON null decodes to a zero requirement: empty key and operator.
		p.report(item, path, "null item: key and operator are required")
		return r
	}
	if deref(item).Kind != yaml.MappingNode {
		p.report(item, path, "must be a mapping, not %s", kindName(deref(item)))
		return r
	}
	fields, _ := p.entries(item, path)
	var keyNode, opNode, valuesNode *yaml.Node
	for _, f := range fields {
		switch f.key {
		case "key":
			keyNode = f.value
		case "operator":
			opNode = f.value
		case "values":
			valuesNode = f.value
		default:
			p.report(f.keyNode, join(path, f.key), "unknown field %q", f.key)
		}
	}

	keyPath := join(path, "key")
	if keyNode == nil {
		p.report(item, keyPath, "key is required")
	} else if key, ok := p.str(keyNode, keyPath); ok {
		r.Key = key
		p.checkKey(keyNode, keyPath, key)
	} else {
		r.Key = key
	}

	opPath := join(path, "operator")
	var op string
	if opNode == nil {
		p.report(item, opPath, "operator is required")
	} else {
		op, _ = p.str(opNode, opPath)
		r.Op = Op(op)
		switch r.Op {
		case In, NotIn, Exists, DoesNotExist:
		default:
			msg := fmt.Sprintf("%q is not a valid label selector operator: want In, NotIn, Exists or DoesNotExist", op)
			for _, valid := range []Op{In, NotIn, Exists, DoesNotExist} {
				if strings.EqualFold(op, string(valid)) {
					msg += fmt.Sprintf(" (operators are case-sensitive: %s)", valid)
				}
			}
			p.report(opNode, opPath, "%s", msg)
		}
	}

	valuesPath := join(path, "values")
	if !isNull(valuesNode) {
		vs := deref(valuesNode)
		if vs.Kind != yaml.SequenceNode {
			p.report(vs, valuesPath, "must be a sequence, not %s", kindName(vs))
		} else {
			for i, v := range vs.Content {
				at := fmt.Sprintf("%s[%d]", valuesPath, i)
				value, ok := p.str(v, at)
				if ok {
					p.checkValue(v, at, value)
				}
				r.Values = append(r.Values, value)
			}
		}
	}
	switch {
	case (r.Op == In || r.Op == NotIn) && len(r.Values) == 0:
		p.report(nodeOr(valuesNode, item), valuesPath, "operator %s needs at least one value", r.Op)
	case (r.Op == Exists || r.Op == DoesNotExist) && len(r.Values) != 0:
		p.report(valuesNode, valuesPath, "operator %s takes no values", r.Op)
	}
	return r
}

func nodeOr(n, fallback *yaml.Node) *yaml.Node {
	if n == nil {
		return fallback
	}
	return n
}

// checkKey and checkValue apply the API server's own label syntax rules.
func (p *parser) checkKey(n *yaml.Node, path, key string) {
	if errs := labelsyntax.IsLabelKey(key); len(errs) != 0 {
		p.report(n, path, "invalid label key %q: %s", key, strings.Join(errs, "; "))
	}
}

func (p *parser) checkValue(n *yaml.Node, path, value string) {
	if errs := labelsyntax.IsLabelValue(value); len(errs) != 0 {
		p.report(n, path, "invalid label value %q: %s", value, strings.Join(errs, "; "))
	}
}

// Matches evaluates s against labels; on false it returns the first
// requirement (in Requirements order) that fails. A nil selector matches
// nothing and returns no requirement.
func (s *Selector) Matches(labels map[string]string) (ok bool, failed *Requirement) {
	if s == nil {
		return false, nil
	}
	for i := range s.Requirements {
		if r := &s.Requirements[i]; !r.matches(labels) {
			return false, r
		}
	}
	return true, nil
}

func (r *Requirement) matches(labels map[string]string) bool {
	v, has := labels[r.Key]
	return r.matchesValue(v, has)
}

// matchesValue reports whether r matches labels that have value v under
// its key (has), or lack the key.
func (r *Requirement) matchesValue(v string, has bool) bool {
	switch r.Op {
	case In:
		return has && slices.Contains(r.Values, v)
	case NotIn:
		return !has || !slices.Contains(r.Values, v)
	case Exists:
		return has
	case DoesNotExist:
		return !has
	}
	return false
}

// String renders r in kubectl's selector syntax: "app=web",
// "tier in (a,b)", "tier notin (a)", "tier", "!tier". Values are sorted,
// as apimachinery prints them.
func (r Requirement) String() string {
	switch {
	case r.Equality && r.Op == In && len(r.Values) == 1:
		return r.Key + "=" + r.Values[0]
	case r.Op == Exists:
		return r.Key
	case r.Op == DoesNotExist:
		return "!" + r.Key
	}
	// An invalid operator keeps its spelling behind a '?': "tier ?in (a)".
	op := "?" + string(r.Op)
	switch r.Op {
	case In:
		op = "in"
	case NotIn:
		op = "notin"
	}
	values := slices.Clone(r.Values)
	slices.Sort(values)
	return r.Key + " " + op + " (" + strings.Join(values, ",") + ")"
}

// String joins the requirements with commas, like labels.Selector.String,
// but in document order; "" for an Empty selector and "<nil>" for nil.
func (s *Selector) String() string {
	if s == nil {
		return "<nil>"
	}
	parts := make([]string, len(s.Requirements))
	for i, r := range s.Requirements {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// Labels reads a labels mapping node into a map the way kubectl reads it:
// keys and string values as kubectl's JSON has them, null as "", and a
// value kubectl would reject (a number, a boolean) as written. Non-scalar
// values are skipped; a nil or non-mapping node gives nil.
func Labels(n *yaml.Node) map[string]string {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	p := &parser{}
	entries, _ := p.entries(n, "")
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		if v := deref(e.value); v.Kind == yaml.ScalarNode {
			out[e.key], _ = p.str(v, "")
		}
	}
	return out
}
