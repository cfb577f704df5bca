package helmrender

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"

	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
)

// Which rendered scalars came from which values leaf.
//
// Helm's engine does not say. So the chart is rendered again with every
// values leaf replaced by a unique marker string, and a rendered scalar that
// holds a marker was built by inserting that leaf. A use is claimed only when
// it is exact for the real rendering too:
//   - the document pairs with the real one (same template, same index) and
//     has the same shape: the same field paths in the same order, so no branch
//     or loop went another way because of the markers;
//   - putting each leaf's real value (as text/template prints it) in place of
//     its marker gives back the real rendered scalar, character for character.
// A template that transforms a value (upper, trunc, b64enc, arithmetic) fails
// the second test, and nothing is claimed for it.
//
// Markers are strings: a number or bool replaced by one can make a template
// fail (`add`, `gt`) or take another branch (`if not .Values.x`). So the first
// pass marks non-empty strings, numbers and true bools (a marker is truthy,
// like true); documents that pass 1 could not vouch for get a second pass
// that marks non-empty strings only. A value a template compares (`eq
// .Values.type "NodePort"`) still changes the shape of its document in both;
// so a third pass marks only the leaves whose markers did show up in the
// documents still unvouched: those were printed, and the compared ones, which
// took the branch away, stay as they are. False, empty and null leaves are
// never marked: a marker would flip their truthiness.

var markerPattern = lazyregexp.New(`shpmk(\d+)x`)

func marker(i int) string { return "shpmk" + strconv.Itoa(i) + "x" }

type valuesLeaf struct {
	path  []string
	value interface{}
}

// markFilter says whether a leaf gets a marker in a pass.
type markFilter func(path []string, v interface{}) bool

func markScalars(_ []string, v interface{}) bool {
	switch x := v.(type) {
	case string:
		return x != ""
	case bool:
		return x
	case float64, int, int64:
		return true
	}
	return false
}

func markStrings(_ []string, v interface{}) bool {
	s, ok := v.(string)
	return ok && s != ""
}

// markPrinted marks the strings among the leaves seen printed.
func markPrinted(seen map[valuesPath]bool) markFilter {
	return func(path []string, v interface{}) bool {
		return seen[valuesPathKey(path)] && markScalars(path, v)
	}
}

func traceValues(l *chartLayout, root *chart.Chart, top map[string]interface{}, objs []Object, ix *originIndex) {
	pending := make([]bool, len(objs))
	for i := range pending {
		pending[i] = true
	}
	seen := map[valuesPath]bool{}
	for _, filter := range []markFilter{markScalars, markStrings, nil} {
		if filter == nil {
			if len(seen) == 0 {
				return
			}
			filter = markPrinted(seen)
		}
		printed, ok := tracePass(l, root, top, objs, pending, filter, ix)
		if ok {
			seen = printed
		}
		done := true
		for _, p := range pending {
			done = done && !p
		}
		if done {
			return
		}
	}
}

// tracePass renders once with markers and fills Values of the pending objects
// whose marked document has the real one's shape, clearing their pending
// flag. It returns the leaves whose markers appear in the documents still
// pending, and whether the marked rendering worked at all.
func tracePass(l *chartLayout, root *chart.Chart, top map[string]interface{}, objs []Object, pending []bool, filter markFilter, ix *originIndex) (map[valuesPath]bool, bool) {
	values, _ := top["Values"].(Values)
	var leaves []valuesLeaf
	marked := markValues(map[string]interface{}(values), nil, filter, &leaves)
	if len(leaves) == 0 {
		return nil, false
	}
	markedTop := map[string]interface{}{}
	for k, v := range top {
		markedTop[k] = v
	}
	markedTop["Values"] = Values(marked.(map[string]interface{}))
	files, err := renderCharts(root, markedTop)
	if err != nil {
		return nil, false // a template could not take a marker; the next pass marks less
	}
	markedObjs, err := l.objects(root, files)
	if err != nil {
		return nil, false
	}
	byDoc := map[templateDoc]Object{}
	for _, o := range markedObjs {
		byDoc[docKey(o)] = o
	}
	printed := map[valuesPath]bool{}
	for i := range objs {
		if !pending[i] {
			continue
		}
		m, ok := byDoc[docKey(objs[i])]
		if !ok {
			continue
		}
		real, mark := scalarsOf(objs[i].Node), scalarsOf(m.Node)
		if !sameShape(real, mark) {
			for _, sc := range mark {
				for _, loc := range markerPattern.FindAllStringSubmatch(sc.value, -1) {
					if li, err := strconv.Atoi(loc[1]); err == nil && li < len(leaves) {
						printed[valuesPathKey(leaves[li].path)] = true
					}
				}
			}
			continue
		}
		pending[i] = false
		for j := range real {
			objs[i].Values = append(objs[i].Values, matchScalar(real[j], mark[j], leaves, ix)...)
		}
	}
	return printed, true
}

// templateDoc is one document of a rendered template: what pairs the
// marked render's objects with the plain render's.
type templateDoc struct {
	template string
	index    int
}

func docKey(o Object) templateDoc { return templateDoc{o.Template, o.Index} }

// markValues copies the values with each leaf the filter takes replaced by
// its marker, recording the leaves in marker order.
func markValues(v interface{}, path []string, filter markFilter, leaves *[]valuesLeaf) interface{} {
	switch x := v.(type) {
	case Values:
		return markValues(map[string]interface{}(x), path, filter, leaves)
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, item := range x {
			out[k] = markValues(item, appendPath(path, k), filter, leaves)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, item := range x {
			out[i] = markValues(item, appendPath(path, "["+strconv.Itoa(i)+"]"), filter, leaves)
		}
		return out
	}
	if !filter(path, v) {
		return v
	}
	*leaves = append(*leaves, valuesLeaf{path: path, value: v})
	return marker(len(*leaves) - 1)
}

type renderedScalar struct {
	field []string
	value string
}

func scalarsOf(n *yaml.Node) []renderedScalar {
	var out []renderedScalar
	var walk func(n *yaml.Node, field []string)
	walk = func(n *yaml.Node, field []string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, field)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], appendPath(field, n.Content[i].Value))
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, appendPath(field, strconv.Itoa(i)))
			}
		case yaml.AliasNode:
			if n.Alias != nil {
				walk(n.Alias, field)
			}
		case yaml.ScalarNode:
			out = append(out, renderedScalar{field: field, value: n.Value})
		}
	}
	walk(n, nil)
	return out
}

func sameShape(a, b []renderedScalar) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i].field) != len(b[i].field) {
			return false
		}
		for j := range a[i].field {
			if a[i].field[j] != b[i].field[j] {
				return false
			}
		}
	}
	return true
}

// matchScalar claims the leaves whose markers are in the marked scalar when
// their real values rebuild the real scalar exactly.
func matchScalar(real, mark renderedScalar, leaves []valuesLeaf, ix *originIndex) []ValueUse {
	locs := markerPattern.FindAllStringSubmatchIndex(mark.value, -1)
	if len(locs) == 0 {
		return nil
	}
	var rebuilt []byte
	var used []valuesLeaf
	last := 0
	for _, loc := range locs {
		i, err := strconv.Atoi(mark.value[loc[2]:loc[3]])
		if err != nil || i >= len(leaves) {
			return nil
		}
		rebuilt = append(rebuilt, mark.value[last:loc[0]]...)
		rebuilt = fmt.Append(rebuilt, leaves[i].value) // as text/template prints it
		last = loc[1]
		used = append(used, leaves[i])
	}
	rebuilt = append(rebuilt, mark.value[last:]...)
	if string(rebuilt) != real.value {
		return nil
	}
	whole := len(locs) == 1 && locs[0][0] == 0 && locs[0][1] == len(mark.value)
	out := make([]ValueUse, 0, len(used))
	for _, leaf := range used {
		use := ValueUse{Field: real.field, ValuesPath: leaf.path, Whole: whole, Value: leaf.value}
		use.Origin, _ = ix.origin(leaf.path, leaf.value)
		out = append(out, use)
	}
	return out
}
