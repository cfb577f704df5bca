package rules

import (
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/labelsyntax"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/schema"
	"github.com/shipshape-dev/shipshape/internal/schemawalk"
)

var unknownField = Register(&analysis.Rule{
	ID:       "unknown-field",
	Severity: analysis.Error,
	Summary:  "A built-in kind has no field of this name",
	Targets:  analysis.Objects | analysis.Patches,
	Visit:    visitFields,
	Check:    analysis.WalkAlone(visitFields),
})

// removedFields are fields older Kubernetes versions had: an old manifest
// may still carry them, and the message says why they are unknown now.
var removedFields = map[string]string{
	"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta.clusterName":  "removed in Kubernetes 1.25",
	"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta.initializers": "removed in Kubernetes 1.14",
	"io.k8s.api.core.v1.ServiceSpec.topologyKeys":                  "removed in Kubernetes 1.22",
}

// specificRuleFields are reported by a more specific rule: the DaemonSet
// rules name the DaemonSet equivalent and fix them.
var specificRuleFields = map[string]bool{
	"replicas": true, "strategy": true, "paused": true, "progressDeadlineSeconds": true,
}

// fieldChecker reports the keys of one built-in object that name no field.
type fieldChecker struct {
	p *analysis.Pass
}

// visitFields judges only built-in kinds: a custom resource's schema is not
// known.
func visitFields(p *analysis.Pass) schemawalk.Visitor {
	w := &fieldChecker{p: p}
	return schemawalk.Visitor{Enter: w.enter, UnknownField: w.unknown, BuiltinOnly: true}
}

// enter goes on below the nodes that can hold fields: mappings of a struct
// type, and lists and maps that lead to some.
func (w *fieldChecker) enter(c *schemawalk.Cursor) bool {
	if c.Key != nil && schemawalk.IsMergeKey(c.Key) {
		return false
	}
	switch n, t := c.Node, c.Type; t.Kind() {
	case schema.Struct:
		return n.Kind == yaml.MappingNode
	case schema.List:
		return n.Kind == yaml.SequenceNode
	case schema.Map:
		elem := t.Elem().Kind()
		return n.Kind == yaml.MappingNode && (elem == schema.Struct || elem == schema.List || elem == schema.Map)
	}
	return false
}

// unknown reports key k of the struct at c.
func (w *fieldChecker) unknown(c *schemawalk.Cursor, k *yaml.Node) {
	obj, t, name := w.p.Object, c.Type, schemawalk.KeyText(k)
	if strings.HasPrefix(name, "$") && obj.Partial {
		return // a strategic-merge directive ($patch, $setElementOrder/...)
	}
	if len(c.Path) == 1 && c.Path[0].Key == "spec" && isDaemonSet(obj) && specificRuleFields[name] {
		return // daemonset-replicas and daemonset-deployment-field report it
	}
	where := c.Path.String()
	full := c.Path.Key(name).String()
	if where == "" {
		where = obj.Kind
	} else {
		where = obj.Kind + " " + where
	}
	why := "kubectl's strict validation rejects it"
	removed, isRemoved := removedFields[t.Name()+"."+name]
	if isRemoved {
		why = removed + "; " + why
	}
	msg := "unknown field " + strconv.Quote(name)
	if name != k.Value {
		msg += " (the key " + k.Value + ", as kubectl reads it: YAML 1.1)"
	}
	msg += " in " + where + " (" + why + ")"
	fields := t.FieldNames()
	s, ok := closestField(name, fields, !schema.IsFieldName(name))
	switch {
	case isRemoved:
		msg += ": remove it"
	case metaLabel(fields, c.Node, k) && (strings.Contains(name, "/") || !ok):
		msg += ": a label written one level too high? indent it under labels: (or annotations:)"
	case ok:
		msg += ": did you mean " + strconv.Quote(s) + "?"
	case len(fields) <= 16:
		msg += ": the fields are " + strings.Join(fields, ", ")
	case !belowMap(c):
		msg += ": see kubectl explain " + explainPath(obj.Kind, c.Path)
	}
	w.p.Report(k, full, nil, "%s", msg)
}

// metaLabel reports whether k, a key of the object metadata m, looks like
// a label (a valid label key with a string value) whose labels: line is
// missing.
func metaLabel(fields []string, m, k *yaml.Node) bool {
	if !slices.Contains(fields, "labels") || !slices.Contains(fields, "annotations") || len(labelsyntax.IsLabelKey(k.Value)) > 0 {
		return false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i] == k {
			return m.Content[i+1].Kind == yaml.ScalarNode
		}
	}
	return false
}

// belowMap reports whether c is inside a free-form map, where kubectl
// explain has no path.
func belowMap(c *schemawalk.Cursor) bool {
	for p := c.Parent; p != nil; p = p.Parent {
		if p.Type.Kind() == schema.Map {
			return true
		}
	}
	return false
}

// explainPath is the kubectl explain argument for the struct at path.
func explainPath(kind string, path manifest.FieldPath) string {
	b := strings.ToLower(kind)
	for _, s := range path {
		if s.Index < 0 {
			b += "." + s.Key
		}
	}
	return b
}

// closestField returns the valid field nearest to name: one that differs
// only in case, or within a small edit distance (a transposition counts
// as one edit), the nearest first, ties broken by case-sensitive distance.
func closestField(name string, fields []string, cutShort bool) (string, bool) {
	lname := strings.ToLower(name)
	limit := 1 + len(name)/5
	if limit > 3 {
		limit = 3
	}
	best, bestD, bestCase := "", limit+1, 0
	// A name cut short (initialDelay for initialDelaySeconds) is closest to
	// the shortest field it begins; a name that is a whole field of other
	// types (image, written under spec) is not cut short.
	if cutShort && len(name) >= 4 {
		for _, f := range fields {
			if len(f) > len(name) && strings.HasPrefix(strings.ToLower(f), lname) && (best == "" || len(f) < len(best)) {
				best = f
			}
		}
		if best != "" {
			for _, f := range fields {
				if strings.EqualFold(f, name) {
					return f, true
				}
			}
			return best, true
		}
	}
	for _, f := range fields {
		d := editDistance(lname, strings.ToLower(f))
		if d > limit || d > bestD {
			continue
		}
		c := editDistance(name, f)
		if d < bestD || c < bestCase {
			best, bestD, bestCase = f, d, c
		}
	}
	return best, best != ""
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent bytes.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return 1 << 20 // not worth comparing
	}
	var rows [3][65]int
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= len(b); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
