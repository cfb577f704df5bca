package rules

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/schema"
	"github.com/shipshape-dev/shipshape/internal/schemawalk"
	"github.com/shipshape-dev/shipshape/internal/yaml11"
)

var ambiguousScalar = Register(&analysis.Rule{
	ID:       "ambiguous-scalar",
	Severity: analysis.Error,
	Summary:  "An unquoted value in a string field is read by kubectl as a bool, number or null",
	Targets:  analysis.SourceFiles | analysis.Patches | analysis.RenderedValues,
	Fixable:  true,
	Visit:    visitAmbiguous,
	Check:    analysis.WalkAlone(visitAmbiguous),
	Rendered: visitRendered,
})

// visitRendered judges a rendered object's string fields for what a
// patch no source file shows made of them: a JSON patch (read as YAML
// 1.1: `yes` is true) or a patch written inline in a kustomization
// (`1.10` is 1.1) leaves a number or a boolean there, which kustomize
// prints bare and the API server rejects. The engine places the finding
// in that patch, and keeps it only there.
func visitRendered(p *analysis.Pass) schemawalk.Visitor {
	return schemawalk.Visitor{Enter: func(c *schemawalk.Cursor) bool {
		switch c.Type.Kind() {
		case schema.String:
			n := c.Node
			if n.Kind != yaml.ScalarNode {
				return false
			}
			if keepsText(c) {
				opValueAsText(p, c)
				return false
			}
			if n.Style != 0 || n.Tag != "!!bool" && n.Tag != "!!int" && n.Tag != "!!float" {
				return false
			}
			v, changed := yaml11.Kustomize(n.Value)
			if !changed {
				return false
			}
			path := c.Path.String()
			if p.Object.Substituted != "" {
				// No fix: quoting the placeholder does not help (Flux
				// writes the object out from JSON before it substitutes).
				p.Report(n, path, nil,
					"%s is the %s after Flux's post-build substitution, not a string: kustomize-controller substitutes the object's text and reads it back as YAML 1.1, and the API server rejects the object; quotes around the placeholder do not help (Flux writes the object out without them): write them into the variable's value where it is defined (VAR: '\"yes\"')", path, v.Describe())
				return false
			}
			p.Report(n, path, p.Quote(n, "quote the value"),
				"%s is rendered by kustomize as %s, not a string: the API server rejects the object; quote the value in the patch", path, v.Describe())
			return false
		case schema.Struct, schema.List, schema.Map, schema.Unknown:
			return true
		}
		return false
	}}
}

// opValueAsText judges an annotation of a rendered object that a JSON-patch
// op set: kustomize reads the op's value as YAML 1.1 (1.20 is the number
// 1.2, 0755 is 493, yes is true) and then writes the annotation back as
// the text of that (see keepsText): a string the API server takes, but not
// the one the patch shows.
func opValueAsText(p *analysis.Pass, c *schemawalk.Cursor) {
	// Only text YAML 1.1 prints for a boolean or a number can be one:
	// most annotations (URLs, JSON, names) are not worth the lookup.
	if v, ok := yaml11.Resolve(c.Node.Value); !ok || v.Kind == yaml11.String || v.Kind == yaml11.Null || v.Text != c.Node.Value {
		return
	}
	path := c.Path.String()
	src := p.JSONPatchValue(path)
	if src == nil || src.Kind != yaml.ScalarNode || src.Style != 0 {
		return
	}
	v, ok := yaml11.Resolve(src.Value)
	if !ok || v.Kind == yaml11.String || v.Kind == yaml11.Null || c.Node.Value == src.Value {
		return
	}
	p.Report(c.Node, path, p.Quote(c.Node, "quote the value"),
		"%s is rendered by kustomize as the string %q: it reads the JSON patch's %s as YAML 1.1, %s; quote the value in the patch",
		path, c.Node.Value, src.Value, v.Describe())
}

// scalarChecker judges the string positions of one object.
type scalarChecker struct {
	p *analysis.Pass
	// uses counts, for each anchored plain scalar, the string positions it
	// was met in, as itself or through an alias; pending holds the findings
	// whose fix quotes such a scalar until the walk has shown whether every
	// use of it wants a string.
	uses    map[*yaml.Node]int
	pending []pendingFinding
}

// pendingFinding is a finding at node whose fix quotes anchor: reported
// with fix and message when every use of anchor wants a string, else with
// no fix and unfixed.
type pendingFinding struct {
	anchor, node     *yaml.Node
	path             string
	fix              *analysis.Fix
	message, unfixed string
}

func visitAmbiguous(p *analysis.Pass) schemawalk.Visitor {
	w := &scalarChecker{p: p}
	return schemawalk.Visitor{Enter: w.enter, Done: w.finish}
}

// enter judges the values of string fields, and the keys and values of
// string maps (a map's keys are strings whatever its values are).
func (w *scalarChecker) enter(c *schemawalk.Cursor) bool {
	if w.p.Object.Assertion && c.Key != nil && isExpression(c.Key.Value) {
		// A chainsaw assertion: `(token != null): true` compares the
		// expression's result, a boolean, not a field's text.
		return false
	}
	if c.Parent != nil && c.Parent.Type.Kind() == schema.Map {
		w.scalar(c, c.Key, true, true)
	}
	switch c.Type.Kind() {
	case schema.String, schema.Bytes:
		w.scalar(c, c.Node, c.InCollection(), false)
	case schema.Struct, schema.List, schema.Map, schema.Unknown:
		return true
	}
	return false
}

// isLiteral reports whether c is an item of a kustomization generator's
// literals (configMapGenerator, secretGenerator: the only field of
// kustomize's types named so).
func isLiteral(c *schemawalk.Cursor) bool {
	return c.Key == nil && c.Parent != nil && c.Parent.Key != nil && c.Parent.Key.Value == "literals"
}

// isExpression reports whether a key of a test assertion is a JMESPath
// expression, as chainsaw writes them: (replicas >= `1`).
func isExpression(key string) bool {
	return len(key) > 2 && key[0] == '(' && key[len(key)-1] == ')'
}

// pathOf is the field path of a finding at c. A key of a map that is an
// alias is named by the scalar it stands for, the key kubectl reads.
func pathOf(c *schemawalk.Cursor) string {
	path, copied := c.Path, false
	for x := c; x.Parent != nil; x = x.Parent {
		if x.Key == nil || x.Key.Kind != yaml.AliasNode || x.Parent.Type.Kind() != schema.Map {
			continue
		}
		if name := keyName(x.Key); name != x.Key.Value {
			if !copied {
				path, copied = slices.Clone(path), true // the walk's, shared
			}
			path[len(x.Path)-1].Key = name
		}
	}
	return path.String()
}

// scalar judges a value or key n in a string position: what kubectl reads
// from it, and whether that is the string it looks like.
func (w *scalarChecker) scalar(c *schemawalk.Cursor, n *yaml.Node, inCollection, isKey bool) {
	switch {
	case n.Kind == yaml.ScalarNode && n.Style == 0:
		w.plain(c, n, inCollection, isKey)
	case n.Kind == yaml.ScalarNode && n.Style&yaml.TaggedStyle != 0:
		w.tagged(c, n, inCollection, isKey)
	case n.Kind == yaml.AliasNode && n.Alias != nil:
		w.alias(c, n, inCollection, isKey)
	}
	// Quoted and block scalars are strings; a mapping or a sequence in a
	// string position is type-mismatch's finding.
}

// plain: only plain text is re-read by YAML 1.1.
func (w *scalarChecker) plain(c *schemawalk.Cursor, n *yaml.Node, inCollection, isKey bool) {
	if n.Anchor != "" {
		w.use(n)
	}
	v, ok := yaml11.Resolve(n.Value)
	if !ok {
		w.timestamp(c, n, isKey)
		return
	}
	if !changes(n.Value, v, inCollection, isKey) {
		return
	}
	if v.Kind == yaml11.Null && (strings.EqualFold(n.Value, "null") || n.Value == "~" || w.p.Object.Partial) {
		// The word null and its short form ~ are written on purpose
		// (kubectl apply drops the entry, or blanks it), and in a
		// strategic-merge patch any null is the directive that deletes
		// the key: quoting would set the text ("~" is no valid label).
		return
	}
	what := "unquoted value " + shown(n.Value)
	if isKey {
		// Non-string keys are turned back into text on the way to JSON:
		// 404 stays "404", but on becomes "true" and 0x1F becomes "31".
		what = "unquoted key " + n.Value
	}
	lead := what + isReadAs
	remedy := "quote it (" + strconv.Quote(n.Value) + ")"
	quotable := true
	// An empty value is its own base64: quoted, it is the fix.
	if !isKey && c.Type.Kind() == schema.Bytes && n.Value != "" {
		remedy, quotable = base64Remedy(n.Value, w.p.Object.Kind), false
	}
	severity := w.p.Rule.Severity
	message := readAs(lead, v, n.Value, isKey, remedy)
	switch obj := w.p.Object; {
	case obj.IsKustomization():
		// kustomize reads its kustomization as kubectl reads manifests
		// (YAML 1.1, sigs.k8s.io/yaml), into Go strings (fields, lists,
		// maps) that refuse a boolean or a number; a null it reads as "",
		// as quoted.
		if v.Kind == yaml11.Null && !isKey {
			return
		}
		if !isKey {
			remedy, quotable = kustomizationRemedy(c, remedy, quotable)
		}
		message = readAs(what+" is read by kustomize (YAML 1.1) as ", v, n.Value, isKey, remedy)
	case obj.Kustomize != nil && obj.Patch:
		// A strategic-merge patch the roots render: what kustomize makes
		// of its value depends on the field it merges into (a quoted base
		// value keeps a plain `true` a string), so it is judged in the
		// rendered object (visitRendered), and placed here.
		return
	case obj.Kustomize != nil || obj.Unrendered:
		// Only kustomize reads this file (a base of a root it renders,
		// or would, were it not remote): say what kustomize does with it.
		if kv, changed := yaml11.Kustomize(n.Value); changed && !keepsText(c) {
			message = readAs(what+" is rendered by kustomize as ", kv, n.Value, isKey, remedy)
			if kv.Kind == yaml11.Float && (kv.Text == "+Inf" || kv.Text == "-Inf" || kv.Text == "NaN") {
				message = fmt.Sprintf("%s is read by kustomize as %s, which JSON cannot hold: kustomize build fails: %s", what, kv.Describe(), remedy)
			}
		} else {
			if obj.Partial {
				// What looks like a patch is never applied as written,
				// and what kustomize makes of it is right.
				return
			}
			// kustomize keeps the text (and quotes it on output): what
			// is applied is right, but not if the file is applied as is.
			severity = analysis.Warning
			message = fmt.Sprintf("%s: kustomize, which reads this file, keeps the string %q (and quotes it on output), but kubectl (YAML 1.1) reads it as %s when the file is applied as written: %s",
				what, n.Value, v.Describe(), remedy)
		}
	}
	path := pathOf(c)
	report := func(fix *analysis.Fix) {
		f := w.p.Finding(n, path, fix, "%s", message)
		f.Severity = severity
		w.p.ReportFinding(f)
	}
	switch {
	case n.Value == "":
		// QuoteScalar has nothing to quote in `key:`; whether "" or no
		// entry is meant is the author's call.
		report(nil)
		return
	case !quotable:
		report(nil)
		return
	case n.Anchor == "":
		report(w.p.Quote(n, "quote the value"))
		return
	}
	// Quoting an anchored scalar changes its aliases too: fixable only if
	// they all want a string.
	w.pending = append(w.pending, pendingFinding{
		anchor: n, node: n, path: path, fix: w.p.Quote(n, "quote the value"),
		message: readAs(lead, v, n.Value, isKey, remedy),
		unfixed: readAs(lead, v, n.Value, isKey,
			remedy+" (not fixed automatically: quoting &"+n.Anchor+" changes every *"+n.Anchor+" too)"),
	})
}

// base64Remedy is the remedy for an unquoted value in a field that holds
// base64 (Secret data, ConfigMap binaryData): quoted, 1234 is read as
// base64 and decodes to other bytes (d7 6d f8), which the API accepts, so
// the text must be encoded, or moved to the field that holds text.
func base64Remedy(value, kind string) string {
	move := "stringData"
	if kind == "ConfigMap" {
		move = "data"
	}
	return fmt.Sprintf("the field holds base64: base64-encode it (%s) or move it to %s (quoted, it is still read as base64)",
		base64.StdEncoding.EncodeToString([]byte(value)), move)
}

// kustomizationRemedy is the remedy for an unquoted value of a
// kustomization, which kustomize refuses: quote it, except in a
// generator's literal, which is KEY=VALUE: no text that YAML 1.1 reads as
// a boolean or a number has an "=", so quoted it is still refused.
func kustomizationRemedy(c *schemawalk.Cursor, quote string, quotable bool) (remedy string, stillQuotable bool) {
	if isLiteral(c) {
		return "kustomize rejects the kustomization, and a literal is KEY=VALUE: write it so", false
	}
	return "kustomize rejects the kustomization: " + quote, quotable
}

// timestamp reports a date kubectl keeps as text but kustomize, which
// reads this file, rewrites (2024-01-01 becomes "2024-01-01T00:00:00Z": a
// label value the API rejects, a changed setting).
func (w *scalarChecker) timestamp(c *schemawalk.Cursor, n *yaml.Node, isKey bool) {
	obj := w.p.Object
	if isKey || obj.Partial || obj.IsKustomization() || obj.Kustomize == nil && !obj.Unrendered || keepsText(c) {
		return
	}
	kv, changed := yaml11.Kustomize(n.Value)
	if !changed || kv.Kind != yaml11.String {
		return
	}
	w.p.Report(n, pathOf(c), w.p.Quote(n, "quote the value"),
		"unquoted value %s is rendered by kustomize as the timestamp %s, not the string %s: quote it (%s)",
		n.Value, strconv.Quote(kv.Text), strconv.Quote(n.Value), strconv.Quote(n.Value))
}

// keepsText reports whether c is an annotation of the object itself (its
// key or value), which kustomize writes back as the text it read: it
// rewrites the whole map, as strings, when it drops its own build
// annotations (Resource.RemoveBuildAnnotations), so `1.10` there is
// rendered "1.10" and an empty value "". A pod template's annotations are
// not rewritten.
func keepsText(c *schemawalk.Cursor) bool {
	p := c.Path
	return len(p) == 3 && p[0].Key == "metadata" && p[1].Key == "annotations" && p[0].Index < 0 && p[1].Index < 0
}

// tagged: an explicit tag decides the type whatever the quoting, so
// !!int "3" is a number for kubectl; !!str and tags v2 does not resolve
// (!foo) leave the text a string. No fix: quoting does not remove a tag.
func (w *scalarChecker) tagged(c *schemawalk.Cursor, n *yaml.Node, inCollection, isKey bool) {
	tag := n.ShortTag()
	if tag == "!!str" || tag == "!!binary" {
		return // a string (!!binary: the one its base64 text decodes to)
	}
	v, ok, err := yaml11.ResolveTagged(tag, n.Value)
	what := "value"
	if isKey {
		what = "key"
	}
	subject := "tagged " + what + " " + taggedText(tag, n)
	remedy := "remove the tag (write " + strconv.Quote(n.Value) + ")"
	switch {
	case err != nil:
		w.p.Report(n, pathOf(c), nil,
			"%s is not a string, and kubectl (YAML 1.1) cannot read the document (%v): %s", subject, err, remedy)
	case ok && v.Kind != yaml11.String && changes(n.Value, v, inCollection, isKey):
		w.p.Report(n, pathOf(c), nil, "%s", readAs(subject+isReadAs, v, n.Value, isKey, remedy))
	}
}

// alias: kubectl replaces *a by the node &a names, so the alias is what
// that node is, wherever the anchor stands.
func (w *scalarChecker) alias(c *schemawalk.Cursor, n *yaml.Node, inCollection, isKey bool) {
	target := n.Alias
	if target.Kind != yaml.ScalarNode {
		return
	}
	var v yaml11.Value
	var ok bool
	switch {
	case target.Style == 0:
		w.use(target)
		v, ok = yaml11.Resolve(target.Value)
	case target.Style&yaml.TaggedStyle != 0:
		v, ok, _ = yaml11.ResolveTagged(target.ShortTag(), target.Value)
		// An error is reported at the anchor, where kubectl fails.
	}
	if !ok || v.Kind == yaml11.String || !changes(target.Value, v, inCollection, isKey) {
		return
	}
	text := target.Value
	switch {
	case target.Style != 0:
		text = taggedText(target.ShortTag(), target)
	case text == "":
		text = "an empty value"
	}
	what := "alias"
	if isKey {
		what = "alias key"
	}
	// No line number for the anchor: in KRM function mode lines are
	// renumbered per resource, in findings but not in messages.
	lead := what + " *" + n.Value + " stands for " + text + ", which kubectl (YAML 1.1) reads as "
	quoted := strconv.Quote(target.Value)
	remedy := "write " + quoted + " instead of the alias"
	path := pathOf(c)
	if target.Style != 0 || target.Value == "" {
		w.p.Report(n, path, nil, "%s", readAs(lead, v, target.Value, isKey, remedy))
		return
	}
	w.pending = append(w.pending, pendingFinding{
		anchor: target, node: n, path: path,
		fix:     w.p.Quote(target, "quote the anchored value &"+target.Anchor),
		message: readAs(lead, v, target.Value, isKey, "quote the anchored value (&"+target.Anchor+" "+quoted+")"),
		unfixed: readAs(lead, v, target.Value, isKey,
			remedy+", or quote the anchored value if every use of &"+target.Anchor+" wants a string"),
	})
}

// use records that the anchored plain scalar n is used in a string position.
func (w *scalarChecker) use(n *yaml.Node) {
	if w.uses == nil {
		w.uses = map[*yaml.Node]int{}
	}
	w.uses[n]++
}

// finish reports the findings held back: quoting an anchored scalar is a
// fix only when every use of it is a string position the walk met. Its
// uses are the anchor, each alias to it, and each alias to a mapping or
// sequence holding it (which copies it elsewhere, a merge key too); those
// copies are never walked, so any of them makes it unfixable. The uses are
// counted in the whole document, which the object is, unless it is an
// item of a List: then nothing anchored is fixed.
func (w *scalarChecker) finish() {
	if len(w.pending) == 0 {
		return
	}
	var refs map[*yaml.Node]int
	if root := w.p.Object.Node; w.p.Object.Item < 0 {
		refs = map[*yaml.Node]int{}
		countRefs(root, refs)
		countCopies(root, refs, false)
	}
	for _, pf := range w.pending {
		if refs != nil && refs[pf.anchor] == w.uses[pf.anchor] {
			w.p.Report(pf.node, pf.path, pf.fix, "%s", pf.message)
		} else {
			w.p.Report(pf.node, pf.path, nil, "%s", pf.unfixed)
		}
	}
}

// countRefs counts, for each anchored node under n, the anchor itself and
// every alias to it. Aliases are not followed: nothing is expanded.
func countRefs(n *yaml.Node, refs map[*yaml.Node]int) {
	if n.Anchor != "" {
		refs[n]++
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		refs[n.Alias]++
	}
	for _, c := range n.Content {
		countRefs(c, refs)
	}
}

// countCopies adds a use to every anchored node inside an aliased mapping
// or sequence (one with more references than its anchor).
func countCopies(n *yaml.Node, refs map[*yaml.Node]int, inside bool) {
	if inside && n.Anchor != "" {
		refs[n]++
	}
	inside = inside || n.Anchor != "" && n.Kind != yaml.ScalarNode && refs[n] > 1
	for _, c := range n.Content {
		countCopies(c, refs, inside)
	}
}

// changes reports whether kubectl's reading v of text (in a string
// position) is not the string text. A null only matters in a list or map,
// where it deletes or blanks the entry (for a field it means unset); a key
// only when its text changes, since keys are turned back into text on the
// way to JSON.
func changes(text string, v yaml11.Value, inCollection, isKey bool) bool {
	switch {
	case v.Kind == yaml11.Null:
		return inCollection
	case isKey:
		return v.Text != text
	}
	return true
}

const isReadAs = " is read by kubectl (YAML 1.1) as "
