package rules

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/schema"
	"github.com/shipshape-dev/shipshape/internal/schemawalk"
	"github.com/shipshape-dev/shipshape/internal/yaml11"
)

var typeMismatch = Register(&analysis.Rule{
	ID:       "type-mismatch",
	Severity: analysis.Error,
	Summary:  "A field of a built-in kind holds a value of the wrong type",
	Targets:  analysis.Objects | analysis.Patches,
	Visit:    visitTypes,
	Check:    analysis.WalkAlone(visitTypes),
	// Documents that are a bare value, a list of objects or an object
	// without apiVersion: kubectl wants an object per document.
	CheckFile: func(p *analysis.FilePass) {
		for _, st := range p.File.Strays {
			if st.Kind == "" {
				p.Report(st.Line, st.Column, st.Doc, "%s", st.Message)
				continue
			}
			// Only a built-in kind: other tools' files say kind without
			// apiVersion (kops' Addons, operator-sdk's scorecard
			// Configuration, Workflows argo submit completes).
			if av := builtinAPIVersion(st.Kind); av != "" {
				p.Report(st.Line, st.Column, st.Doc, "the document has kind %s but no apiVersion: kubectl rejects it (apiVersion not set), kustomize passes it on as it is, and shipshape judges nothing else in it: add apiVersion: %s", st.Kind, av)
			}
		}
	},
})

// builtinAPIVersion is the apiVersion of a built-in kind, the one that
// serves it as stable; "" for another kind.
func builtinAPIVersion(kind string) string {
	for _, av := range []string{"v1", "apps/v1", "batch/v1", "networking.k8s.io/v1", "rbac.authorization.k8s.io/v1",
		"policy/v1", "autoscaling/v2", "storage.k8s.io/v1", "apiextensions.k8s.io/v1", "admissionregistration.k8s.io/v1",
		"scheduling.k8s.io/v1", "coordination.k8s.io/v1", "discovery.k8s.io/v1", "node.k8s.io/v1", "certificates.k8s.io/v1"} {
		if _, ok := schema.ForObject(av, kind); ok {
			return av
		}
	}
	return ""
}

// isTemplateVariable recognises a value that is a single envsubst or shell
// variable, ${NAME}, ${NAME:-default} or ${NAME:-${DEFAULT}} (Flux's
// postBuild substitution): the file is a template, rendered before kubectl
// reads it, and the variable is not a value to judge.
func isTemplateVariable(s string) bool {
	return len(s) > 3 && strings.HasPrefix(s, "${") && variableEnd(s) == len(s)
}

// substituted reports whether s is a placeholder a tool replaces before
// the object is applied: an envsubst variable (Flux), a template
// expression (Open Cluster Management), or an argocd-vault-plugin
// placeholder, <path:secret/data/db#password>
// anywhere, <password> in an object that names its vault path with an
// avp.kubernetes.io annotation.
func (w *typeChecker) substituted(s string) bool {
	if isTemplateVariable(s) || isTemplateExpression(s) {
		return true
	}
	if len(s) < 3 || s[0] != '<' || s[len(s)-1] != '>' || strings.ContainsAny(s[1:len(s)-1], "<>") {
		return false
	}
	if strings.HasPrefix(s, "<path:") {
		return true
	}
	ann := manifest.Path(w.p.Object.Node, "metadata", "annotations")
	for i := 0; ann != nil && ann.Kind == yaml.MappingNode && i < len(ann.Content); i += 2 {
		if strings.HasPrefix(ann.Content[i].Value, "avp.kubernetes.io/") {
			return true
		}
	}
	return false
}

// isTemplateExpression recognises a value that is one template
// expression, {{ fromSecret "ns" "s" "key" }}, {{hub … hub}} or
// {{ .Values.x }}: Open Cluster Management's policy templates, which its
// controllers fill in before the object reaches the API server. Words
// alone ({{BASE64 encoded id_rsa}}) are a placeholder left for a person
// to fill in, and are judged.
func isTemplateExpression(s string) bool {
	t := strings.TrimSpace(s)
	if len(t) < 4 || !strings.HasPrefix(t, "{{") || !strings.HasSuffix(t, "}}") {
		return false
	}
	inner := strings.TrimSpace(strings.Trim(t[2:len(t)-2], "-"))
	return !strings.Contains(inner, "}}") && (strings.ContainsAny(inner, `".|$(`) || strings.HasPrefix(inner, "hub ") && strings.HasSuffix(inner, " hub"))
}

// hasTemplateVariable recognises a value with such a variable in it
// ("${CAPACITY_GB}Gi"): what it will be is known once it is substituted.
func hasTemplateVariable(s string) bool {
	i := strings.Index(s, "${")
	return i >= 0 && variableEnd(s[i:]) > 0
}

// variableEnd is the length of the variable s starts with, its nested
// ones included; 0 when it is not closed.
func variableEnd(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '{':
			depth++
			i++
		case s[i] == '}' && depth > 0:
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}

// wholeNumber reports a float that JSON prints without a fraction or an
// exponent ("3" for 3.0, "1000" for 1e3): Go decodes it into an integer.
func wholeNumber(v yaml11.Value) bool {
	_, err := strconv.ParseInt(v.Text, 10, 64)
	return err == nil
}

// typeChecker checks the values of one built-in object against its type.
type typeChecker struct {
	p *analysis.Pass
}

// visitTypes judges only built-in kinds: a custom resource's schema is not
// known.
func visitTypes(p *analysis.Pass) schemawalk.Visitor {
	w := &typeChecker{p: p}
	return schemawalk.Visitor{Enter: w.enter, BuiltinOnly: true}
}

// enter judges one node against its type; the walk goes on below the
// mappings and lists of the right shape.
func (w *typeChecker) enter(c *schemawalk.Cursor) bool {
	if c.Key != nil && schemawalk.IsMergeKey(c.Key) {
		return false // <<: *anchor merges entries judged where they are defined
	}
	n, t := c.Node, c.Type
	kind := t.Kind()
	if kind == schema.Unknown {
		return false
	}
	jk, v := jsonValue(n)
	if jk == jsonUnknown || jk == jsonNull {
		return false
	}
	if !accepts(kind, jk, v) {
		if jk == jsonString && w.substituted(v.Text) {
			return false // ${VAR}, <path:…#key>: substituted before kubectl sees it
		}
		w.report(c, jk, v)
		return false
	}
	if n.Kind == yaml.AliasNode && !t.IsScalar() {
		return false // judged above; its contents are checked where the anchor is
	}
	switch kind {
	case schema.Bytes:
		if jk == jsonString && !w.substituted(v.Text) {
			w.base64(c)
		}
	case schema.Quantity:
		if !validQuantity(v.Text) && !(jk == jsonString && hasTemplateVariable(v.Text)) {
			path := c.Path.String()
			w.p.Report(n, path, nil, "%s takes %s, not %s; the API server rejects the object",
				fieldName(path), describeType(t), describeValue(jk, v))
		}
	case schema.Time:
		if !validTime(v.Text) && !hasTemplateVariable(v.Text) {
			path := c.Path.String()
			w.p.Report(n, path, nil, "%s takes a timestamp in RFC 3339 form (2006-01-02T15:04:05Z), not %s; the API server rejects the object",
				fieldName(path), describeValue(jk, v))
		}
	case schema.Struct, schema.List, schema.Map:
		return true
	}
	return false
}

// accepts reports whether the API server decodes a JSON value of kind jk
// (v for scalars) into a field of kind k. A string field given a number or
// a boolean is accepted here: that is ambiguous-scalar's finding.
func accepts(k schema.Kind, jk jsonKind, v yaml11.Value) bool {
	switch k {
	case schema.String, schema.Bytes, schema.Time:
		return jk != jsonArray && jk != jsonObject && (k != schema.Time || jk == jsonString)
	case schema.Bool:
		return jk == jsonBool
	case schema.Int:
		return jk == jsonInt || jk == jsonFloat && wholeNumber(v)
	case schema.Number:
		return jk == jsonInt || jk == jsonFloat
	case schema.IntOrString:
		return jk == jsonString || jk == jsonInt || jk == jsonFloat && wholeNumber(v)
	case schema.Quantity:
		return jk == jsonString || jk == jsonInt || jk == jsonFloat
	case schema.Struct, schema.Map:
		return jk == jsonObject
	case schema.List:
		return jk == jsonArray
	}
	return true
}

// bracketPlaceholder returns the text of a copied example's placeholder
// written in brackets ([YOUR_ROLE_ARN], [CHANGE ME]), a flow list of one
// plain upper-case word, or "".
func bracketPlaceholder(n *yaml.Node) string {
	if n.Kind != yaml.SequenceNode || n.Style&yaml.FlowStyle == 0 || len(n.Content) != 1 {
		return ""
	}
	item := n.Content[0]
	if item.Kind != yaml.ScalarNode || item.Style != 0 || item.Value == "" || strings.ToUpper(item.Value) != item.Value || !strings.ContainsAny(item.Value, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return ""
	}
	return item.Value
}

func (w *typeChecker) report(c *schemawalk.Cursor, jk jsonKind, v yaml11.Value) {
	n, t := c.Node, c.Type
	want := describeType(t)
	var got, hint string
	switch jk {
	case jsonString:
		got = "the string " + shortQuote(v.Text)
		quoted := n.Kind == yaml.ScalarNode && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
		switch rv, ok := yaml11.Resolve(v.Text); {
		case quoted && ok && accepts(t.Kind(), kindOf(rv), rv):
			hint = ": remove the quotes"
		case strings.HasPrefix(v.Text, "<") || strings.Contains(strings.ToUpper(v.Text), "TODO") || strings.Contains(v.Text, "REPLACE"):
			hint = ": replace the placeholder with a real value"
		}
	case jsonArray:
		got = "a list"
		if ph := bracketPlaceholder(n); ph != "" {
			got = "a list ([" + ph + "] is a placeholder in brackets, which YAML reads as a list)"
			hint = ": replace it with a real value"
		}
	case jsonObject:
		got = "a mapping"
		if ph := bracePlaceholder(n); ph != "" {
			// The cause first: the value was meant as text.
			got = "a mapping: the `{` of {" + ph + "} opened a YAML flow mapping"
			hint = ": quote it (\"{" + ph + "}\"), or replace the placeholder"
		}
	default:
		got = v.Describe()
	}
	if hint == "" {
		switch {
		case t.Kind() == schema.List && jk != jsonObject:
			hint = ": write it as a list ([" + shortValue(n) + "])"
		case t.Kind() == schema.Int && jk == jsonFloat:
			hint = ": use a whole number"
		}
	}
	path := c.Path.String()
	w.p.Report(n, path, nil, "%s takes %s, not %s; the API server rejects the object%s",
		fieldName(path), want, got, hint)
}

func describeValue(jk jsonKind, v yaml11.Value) string {
	if jk == jsonString {
		return "the string " + shortQuote(v.Text)
	}
	return v.Describe()
}

// validTime accepts what metav1.Time (RFC 3339) and metav1.MicroTime
// (RFC 3339 with microseconds) decode; the field table does not tell the
// two apart.
func validTime(s string) bool {
	if _, err := time.Parse(time.RFC3339, s); err == nil {
		return true
	}
	_, err := time.Parse("2006-01-02T15:04:05.000000Z07:00", s)
	return err == nil
}

// validQuantity mirrors resource.ParseQuantity (k8s.io/apimachinery), as
// Quantity.UnmarshalJSON calls it on the trimmed text of a string or a
// number; the tests hold it to the real function.
func validQuantity(str string) bool {
	str = strings.TrimSpace(str)
	switch str {
	case "":
		return false
	case "0":
		return true
	}
	digit := func(c byte) bool { return '0' <= c && c <= '9' }
	pos, end := 0, len(str)
	if str[0] == '-' || str[0] == '+' {
		pos++
	}
	for pos < end && str[pos] == '0' {
		pos++
	}
	if pos == end {
		return true // only zeros
	}
	numStart := pos
	for pos < end && digit(str[pos]) {
		pos++
	}
	if pos == end {
		return true
	}
	num, denom := str[numStart:pos], ""
	if str[pos] == '.' {
		pos++
		start := pos
		for pos < end && digit(str[pos]) {
			pos++
		}
		if pos == end {
			return true
		}
		denom = str[start:pos]
	}
	hasDigit := strings.ContainsAny(str[:pos], "0123456789")
	suffixStart := pos
	for pos < end && strings.IndexByte("eEinumkKMGTP", str[pos]) >= 0 {
		pos++
	}
	if pos < end {
		if str[pos] == '-' || str[pos] == '+' {
			pos++
		}
		for pos < end && digit(str[pos]) {
			pos++
		}
		if pos < end {
			return false
		}
	}
	suffix := str[suffixStart:]
	var exponent int64
	binary := false
	switch suffix {
	case "", "k", "M", "G", "T", "P", "E":
		exponent = int64(3 * strings.Index("kMGTPE", suffix)) // "" is 0
		if suffix != "" {
			exponent += 3
		}
	case "n":
		exponent = -9
	case "u":
		exponent = -6
	case "m":
		exponent = -3
	case "Ki", "Mi", "Gi", "Ti", "Pi", "Ei":
		binary, exponent = true, int64(10*(1+strings.Index("KMGTPE", suffix[:1])))
	default:
		if len(suffix) < 2 || suffix[0] != 'e' && suffix[0] != 'E' {
			return false
		}
		e, err := strconv.ParseInt(suffix[1:], 10, 64)
		if err != nil {
			return false
		}
		exponent = int64(int32(e))
	}
	if hasDigit {
		return true
	}
	// Without a digit the number is 0; it is only accepted on the fast
	// path that never parses the numeric text.
	if len(num) == 0 {
		num = "0"
	}
	if binary {
		return len(denom) == 0 && 15-int64(len(num))-int64(float32(exponent)*3/10)-1 >= 0
	}
	return exponent-int64(len(denom)) >= -9
}

func shortValue(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && len(n.Value) <= 40 && !strings.ContainsAny(n.Value, "\n,[]{}") {
		if n.Style == 0 {
			return n.Value
		}
		return strconv.Quote(n.Value)
	}
	return "..."
}

// base64 checks a []byte field given a string, as encoding/json does:
// standard base64 with padding; line breaks are ignored.
func (w *typeChecker) base64(c *schemawalk.Cursor) {
	n := c.Node
	_, v := jsonValue(n)
	s := v.Text
	_, err := base64.StdEncoding.DecodeString(s)
	if err == nil {
		return
	}
	path := c.Path.String()
	where := ""
	if ce, ok := err.(base64.CorruptInputError); ok {
		where = " (bad input at byte " + strconv.FormatInt(int64(ce), 10) + ")"
	}
	hint := "encode it (base64 -w0)"
	if w.p.Object.Kind == "Secret" && strings.HasPrefix(path, "data") {
		hint += ", or move the entry to stringData, which takes plain text"
	}
	w.p.Report(n, path, nil, "%s takes base64-encoded bytes, and %s is not valid base64%s; the API server rejects the object: %s",
		fieldName(path), shortQuote(s), where, hint)
}

func shortQuote(s string) string { return manifest.Excerpt(s) }

func fieldName(path string) string {
	if path == "" {
		return "the object"
	}
	return path
}

// describeType names a field type for messages.
func describeType(t schema.Type) string {
	switch t.Kind() {
	case schema.String:
		return "a string"
	case schema.Bytes:
		return "base64-encoded bytes (a string)"
	case schema.Bool:
		return "a boolean (true or false)"
	case schema.Int:
		return "an integer"
	case schema.Number:
		return "a number"
	case schema.IntOrString:
		return "an integer or a string"
	case schema.Quantity:
		return "a quantity (a number, or a string such as 500m or 1.5Gi)"
	case schema.Time:
		return "a timestamp (an RFC 3339 string)"
	case schema.Struct:
		name := t.Name()
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		return "a mapping (" + name + ")"
	case schema.List:
		return "a list"
	case schema.Map:
		return "a mapping"
	}
	return t.Kind().String()
}
