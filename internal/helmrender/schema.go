package helmrender

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"helm.sh/helm/v3/pkg/chart"
)

// values.schema.json, checked as `helm template` checks it before
// rendering (chartutil.ValidateAgainstSchema: the chart's schema over its
// coalesced values, then each subchart's over the values under its name).
//
// Helm's validator (santhosh-tekuri/jsonschema/v6) compiles its
// metaschemas at package init, 5.4 ms of every run of every command, so
// this is a validator of its own for the keywords charts use, held to
// Helm's by TestSchemaAgreesWithHelmValidator. It is three-valued: a
// keyword it does not implement (multipleOf on fractions, contains,
// dependentSchemas, unevaluated*, a $ref outside the schema, draft-07's
// asserted formats …) makes the verdict unknown, never a violation, so
// what it reports Helm reports too; it only misses some of what Helm
// would refuse. It never loads anything: Helm follows http(s) and file
// references; here those are unknown.

// SchemaError is values that break a chart's values.schema.json: `helm
// template` refuses to render them.
type SchemaError struct {
	Chart    string   // the chart whose schema is broken, e.g. "shop" or "shop/db"
	Path     []string // the values path, in the root chart's values
	Pos      Position // where the breaking value was written; zero when not known
	Message  string   // what is wrong, e.g. "got string, want integer"
	Location string   // the value's JSON pointer in the chart's own values
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("the values break the values.schema.json of chart %s at %s: %s", e.Chart, e.Location, e.Message)
}

// verdict is a subschema's result.
type verdict int

const (
	valid verdict = iota
	unknown
	invalid
)

// violation is the first thing found wrong, at a path in the instance.
type violation struct {
	path    []string
	message string
}

type schemaCheck struct {
	root    interface{}
	draft   int // 4, 6, 7, 2019, 2020
	depth   int
	problem *violation
}

// checkSchema validates values against the schema text; it returns the
// first violation, or nil when the values are valid or the verdict is
// unknown.
func checkSchema(schemaJSON []byte, values map[string]interface{}) *violation {
	dec := json.NewDecoder(strings.NewReader(string(schemaJSON)))
	dec.UseNumber()
	var root interface{}
	if dec.Decode(&root) != nil {
		return nil // Helm refuses the schema itself; not judged here
	}
	c := &schemaCheck{root: root, draft: draftOf(root)}
	if c.check(root, values, nil) == invalid {
		return c.problem
	}
	return nil
}

func draftOf(root interface{}) int {
	m, _ := root.(map[string]interface{})
	s, _ := m["$schema"].(string)
	for _, d := range []struct {
		id    string
		draft int
	}{{"draft-04", 4}, {"draft-06", 6}, {"draft-07", 7}, {"2019-09", 2019}, {"2020-12", 2020}} {
		if strings.Contains(s, d.id) {
			return d.draft
		}
	}
	return 2020 // the validator's default for a schema that names none
}

// asserted are the keywords Helm's validator asserts that check does not
// implement: their presence makes a subschema's verdict unknown.
var asserted = []string{"contains", "minContains", "maxContains", "propertyNames",
	"dependencies", "dependentRequired", "dependentSchemas", "unevaluatedProperties",
	"unevaluatedItems", "$dynamicRef", "$recursiveRef"}

func (c *schemaCheck) fail(path []string, format string, args ...interface{}) verdict {
	if c.problem == nil {
		c.problem = &violation{path: append([]string(nil), path...), message: fmt.Sprintf(format, args...)}
	}
	return invalid
}

// check is v's verdict under schema s, at path in the instance.
func (c *schemaCheck) check(s, v interface{}, path []string) verdict {
	switch s := s.(type) {
	case bool:
		if s {
			return valid
		}
		return c.fail(path, "no value is allowed here (schema false)")
	case map[string]interface{}:
		if c.depth > 64 {
			return unknown
		}
		c.depth++
		defer func() { c.depth-- }()
		return c.checkObject(s, v, path)
	}
	return unknown
}

func (c *schemaCheck) checkObject(s map[string]interface{}, v interface{}, path []string) verdict {
	out := valid
	for _, k := range asserted {
		if _, ok := s[k]; ok {
			out = unknown
		}
	}
	if _, ok := s["format"]; ok && c.draft <= 7 {
		out = unknown // asserted by draft-07's validator; not checked here
	}
	if ref, ok := s["$ref"]; ok {
		r := c.checkRef(ref, v, path)
		if r == invalid || c.draft <= 7 { // before 2019-09, $ref's siblings are ignored
			return r
		}
		out = max(out, r)
	}
	for _, part := range []func(map[string]interface{}, interface{}, []string) verdict{
		c.checkType, c.checkEnum, c.checkNumber, c.checkString, c.checkArray, c.checkMap, c.checkApplicators,
	} {
		r := part(s, v, path)
		if r == invalid {
			return invalid
		}
		out = max(out, r)
	}
	return out
}

// checkRef follows a reference inside the schema ("#", "#/definitions/x").
func (c *schemaCheck) checkRef(ref, v interface{}, path []string) verdict {
	text, ok := ref.(string)
	if !ok || !strings.HasPrefix(text, "#") {
		return unknown
	}
	target, ok := c.pointer(text[1:])
	if !ok {
		return unknown
	}
	return c.check(target, v, path)
}

// pointer resolves a JSON pointer (URI fragment encoded) in the root.
func (c *schemaCheck) pointer(frag string) (interface{}, bool) {
	frag, err := url.PathUnescape(frag)
	if err != nil || (frag != "" && !strings.HasPrefix(frag, "/")) {
		return nil, false // an anchor ("#foo") is not resolved here
	}
	cur := c.root
	if frag == "" {
		return cur, true
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n := cur.(type) {
		case map[string]interface{}:
			next, ok := n[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []interface{}:
			var i int
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(n) {
				return nil, false
			}
			cur = n[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// jsonType is v's JSON type name.
func jsonType(v interface{}) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]interface{}:
		return "object"
	case []interface{}:
		return "array"
	case json.Number, float64, float32, int, int64, int32, uint64:
		return "number"
	}
	return ""
}

// ratOf is a number as the validator reads it (from its printed form).
func ratOf(v interface{}) (*big.Rat, bool) {
	if jsonType(v) != "number" {
		return nil, false
	}
	return new(big.Rat).SetString(fmt.Sprint(v))
}

func (c *schemaCheck) checkType(s map[string]interface{}, v interface{}, path []string) verdict {
	raw, ok := s["type"]
	if !ok {
		return valid
	}
	var want []string
	switch t := raw.(type) {
	case string:
		want = []string{t}
	case []interface{}:
		for _, x := range t {
			name, ok := x.(string)
			if !ok {
				return unknown
			}
			want = append(want, name)
		}
	default:
		return unknown
	}
	got := jsonType(v)
	for _, w := range want {
		if w == got {
			return valid
		}
		if r, ok := ratOf(v); w == "integer" && ok && r.IsInt() {
			return valid
		}
	}
	return c.fail(path, "got %s, want %s", got, strings.Join(want, " or "))
}

func (c *schemaCheck) checkEnum(s map[string]interface{}, v interface{}, path []string) verdict {
	if want, ok := s["const"]; ok && !jsonEqual(v, want) {
		return c.fail(path, "value must be %s", jsonText(want))
	}
	raw, ok := s["enum"]
	if !ok {
		return valid
	}
	items, ok := raw.([]interface{})
	if !ok {
		return unknown
	}
	for _, item := range items {
		if jsonEqual(v, item) {
			return valid
		}
	}
	return c.fail(path, "value must be one of %s", jsonText(items))
}

func jsonText(v interface{}) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// jsonEqual is JSON equality: numbers by value, objects and arrays deep.
func jsonEqual(a, b interface{}) bool {
	if ra, ok := ratOf(a); ok {
		rb, ok := ratOf(b)
		return ok && ra.Cmp(rb) == 0
	}
	switch a := a.(type) {
	case map[string]interface{}:
		b, ok := b.(map[string]interface{})
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !jsonEqual(av, bv) {
				return false
			}
		}
		return true
	case []interface{}:
		b, ok := b.([]interface{})
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return jsonType(a) != "" && jsonType(a) == jsonType(b) && a == b
}

// intKeyword is a non-negative whole number keyword (minLength …).
func intKeyword(s map[string]interface{}, key string) (int, bool, bool) {
	raw, ok := s[key]
	if !ok {
		return 0, false, true
	}
	r, ok := ratOf(raw)
	if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
		return 0, true, false
	}
	return int(r.Num().Int64()), true, true
}

func (c *schemaCheck) checkString(s map[string]interface{}, v interface{}, path []string) verdict {
	str, ok := v.(string)
	if !ok {
		return valid
	}
	out := valid
	n := utf8.RuneCountInString(str)
	if min, set, ok := intKeyword(s, "minLength"); !ok {
		out = unknown
	} else if set && n < min {
		return c.fail(path, "length must be >= %d, but got %d", min, n)
	}
	if lim, set, ok := intKeyword(s, "maxLength"); !ok {
		out = unknown
	} else if set && n > lim {
		return c.fail(path, "length must be <= %d, but got %d", lim, n)
	}
	if raw, ok := s["pattern"]; ok {
		p, isString := raw.(string)
		re, err := regexp.Compile(p)
		if !isString || err != nil {
			return unknown
		}
		if !re.MatchString(str) {
			return c.fail(path, "%q does not match pattern %q", str, p)
		}
	}
	return out
}

// validateSchemas checks c's schema over vals, then each subchart's over
// the values under its name, as chartutil.ValidateAgainstSchema does; the
// first violation is returned, placed where index says the value was
// written. prefix is c's values path in the root chart's values, and
// parent the names of the charts above it ("shop/").
func validateSchemas(c *chart.Chart, vals map[string]interface{}, prefix []string, parent string, index *originIndex) error {
	name := parent + c.Name()
	if c.Schema != nil && !hasForeignScope(c.Schema) {
		if v := checkSchema(c.Schema, vals); v != nil {
			path := append(append([]string{}, prefix...), v.path...)
			return &SchemaError{Chart: name, Path: path, Pos: index.writtenAt(path), Message: v.message, Location: jsonPointer(v.path)}
		}
	}
	for _, sub := range c.Dependencies() {
		raw, ok := vals[sub.Name()]
		if !ok || raw == nil {
			continue
		}
		subVals, ok := raw.(map[string]interface{})
		if !ok {
			path := appendPath(prefix, sub.Name())
			return &SchemaError{Chart: name + "/" + sub.Name(), Path: path, Pos: index.writtenAt(path),
				Message: fmt.Sprintf("invalid type for values: expected object (map), got %s", jsonType(raw)), Location: "/"}
		}
		if err := validateSchemas(sub, subVals, appendPath(prefix, sub.Name()), name+"/", index); err != nil {
			return err
		}
	}
	return nil
}

func jsonPointer(path []string) string {
	if len(path) == 0 {
		return "/"
	}
	return "/" + strings.Join(path, "/")
}

// hasForeignScope reports a schema this validator does not judge: one
// naming a metaschema it does not know, or declaring identifiers ($id,
// $anchor) that change what a reference means.
func hasForeignScope(schemaJSON []byte) bool {
	var root interface{}
	if json.Unmarshal(schemaJSON, &root) != nil {
		return true
	}
	m, _ := root.(map[string]interface{})
	if s, ok := m["$schema"]; ok {
		text, _ := s.(string)
		if draftOf(root) == 2020 && !strings.Contains(text, "2020-12") {
			return true
		}
	}
	return declaresScope(root, true)
}

func declaresScope(n interface{}, top bool) bool {
	switch n := n.(type) {
	case map[string]interface{}:
		for k, v := range n {
			if (k == "$id" || k == "id" || k == "$anchor" || k == "$dynamicAnchor") && !top {
				if _, isString := v.(string); isString {
					return true
				}
			}
			if declaresScope(v, false) {
				return true
			}
		}
	case []interface{}:
		for _, v := range n {
			if declaresScope(v, false) {
				return true
			}
		}
	}
	return false
}
