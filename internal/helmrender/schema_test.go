package helmrender

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	sigsyaml "sigs.k8s.io/yaml"
)

// helmVerdict is Helm's validator's answer (chartutil.ValidateAgainstSingleSchema
// compiles the schema the same way, without loaders here: nothing external).
func helmVerdict(t *testing.T, schema string, values map[string]interface{}) (bool, error) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(schema)))
	if err != nil {
		return false, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("file:///values.schema.json", doc); err != nil {
		return false, err
	}
	sch, err := c.Compile("file:///values.schema.json")
	if err != nil {
		return false, err
	}
	return sch.Validate(values) != nil, nil
}

// schemaCases: each schema is judged by both validators over the same
// generated values. full: every keyword it uses is implemented, so the
// verdicts must be equal, not merely never stricter.
var schemaCases = []struct {
	schema string
	full   bool
}{
	{`{"type":"object","properties":{"replicas":{"type":"integer","minimum":1,"maximum":5}}}`, true},
	{`{"properties":{"tag":{"type":"string","minLength":2,"maxLength":4,"pattern":"^v?[0-9]"}}}`, true},
	{`{"properties":{"tag":{"type":["string","null"]}},"required":["tag"]}`, true},
	{`{"properties":{"mode":{"enum":["a","b",1,true,null]}}}`, true},
	{`{"properties":{"mode":{"const":"a"}}}`, true},
	{`{"additionalProperties":false,"properties":{"tag":{},"replicas":{},"mode":{}}}`, true},
	{`{"additionalProperties":{"type":"string"},"patternProperties":{"^re":{"type":"number"}}}`, true},
	{`{"properties":{"list":{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":3,"uniqueItems":true}}}`, true},
	{`{"properties":{"list":{"prefixItems":[{"type":"string"}],"items":{"type":"boolean"}}}}`, true},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"list":{"items":[{"type":"string"}],"additionalItems":false}}}`, true},
	{`{"properties":{"replicas":{"exclusiveMinimum":0,"exclusiveMaximum":3}}}`, true},
	{`{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"replicas":{"minimum":0,"exclusiveMinimum":true}}}`, true},
	{`{"properties":{"replicas":{"multipleOf":2}}}`, true},
	{`{"properties":{"mode":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`, true},
	{`{"properties":{"mode":{"oneOf":[{"type":"string"},{"enum":["a"]}]}}}`, true},
	{`{"properties":{"mode":{"not":{"type":"boolean"}}}}`, true},
	{`{"properties":{"mode":{"allOf":[{"type":"string"},{"minLength":1}]}}}`, true},
	{`{"properties":{"tag":{"if":{"type":"string"},"then":{"minLength":3},"else":{"type":"null"}}}}`, true},
	{`{"definitions":{"n":{"type":"integer"}},"properties":{"replicas":{"$ref":"#/definitions/n"}}}`, true},
	{`{"$defs":{"n":{"type":"integer","maximum":2}},"properties":{"replicas":{"$ref":"#/$defs/n","minimum":1}}}`, true},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":"integer"}},"properties":{"replicas":{"$ref":"#/definitions/n","minimum":100}}}`, true},
	{`{"properties":{"nested":{"type":"object","required":["a"],"minProperties":1,"maxProperties":2,"properties":{"a":{"type":"boolean"}}}}}`, true},
	{`{"properties":{"tag":false}}`, true},
	{`{"properties":{"list":{"contains":{"type":"string"}}}}`, false},
	{`{"properties":{"mode":{"not":{"contains":{"type":"string"}}}}}`, false},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"tag":{"format":"ipv4"}}}`, false},
	{`{"properties":{"tag":{"format":"ipv4","type":"string"}}}`, true},
	{`{"propertyNames":{"maxLength":3}}`, false},
}

// randomValues are values files as Helm reads them, from a seeded generator.
func randomValues(r *rand.Rand) map[string]interface{} {
	scalars := []string{`"a"`, `"b"`, `"v1"`, `"1.2"`, `""`, `"abcdef"`, `0`, `1`, `2`, `3`, `1.5`, `-1`, `true`, `false`, `null`, `yes`}
	pick := func() string { return scalars[r.Intn(len(scalars))] }
	var b strings.Builder
	for _, key := range []string{"replicas", "tag", "mode", "list", "nested", "extra", "re1"} {
		if r.Intn(3) == 0 {
			continue
		}
		switch r.Intn(5) {
		case 0:
			fmt.Fprintf(&b, "%s: [%s, %s]\n", key, pick(), pick())
		case 1:
			fmt.Fprintf(&b, "%s: {a: %s}\n", key, pick())
		case 2:
			fmt.Fprintf(&b, "%s: []\n", key)
		default:
			fmt.Fprintf(&b, "%s: %s\n", key, pick())
		}
	}
	vals := map[string]interface{}{}
	if err := sigsyaml.Unmarshal([]byte(b.String()), &vals); err != nil {
		panic(err)
	}
	return vals
}

// TestSchemaAgreesWithHelmValidator: whatever this validator calls a
// violation, Helm's does too, and on schemas it implements fully the two
// agree on every instance.
func TestSchemaAgreesWithHelmValidator(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i, tc := range schemaCases {
		var agreed, refused int
		for n := 0; n < 300; n++ {
			vals := randomValues(r)
			helmInvalid, err := helmVerdict(t, tc.schema, vals)
			if err != nil {
				t.Fatalf("case %d: Helm's validator refuses the schema: %v", i, err)
			}
			v := checkSchema([]byte(tc.schema), vals)
			if v != nil && !helmInvalid {
				t.Errorf("case %d %s: %v reported (%s at %v), Helm's validator accepts it", i, tc.schema, vals, v.message, v.path)
			}
			if tc.full && (v != nil) != helmInvalid {
				t.Errorf("case %d %s: %v: invalid=%v here, %v for Helm", i, tc.schema, vals, v != nil, helmInvalid)
			}
			if helmInvalid {
				refused++
			}
			if (v != nil) == helmInvalid {
				agreed++
			}
		}
		if refused == 0 || refused == 300 {
			t.Errorf("case %d %s: the generated values do not exercise it (%d of 300 refused)", i, tc.schema, refused)
		}
		t.Logf("case %d: agreed on %d of 300, Helm refused %d", i, agreed, refused)
	}
}

func TestSchemaViolationPath(t *testing.T) {
	schema := `{"properties":{"image":{"properties":{"tag":{"type":"string"}}},"list":{"items":{"required":["name"]}}}}`
	for _, tc := range []struct {
		values, path, message string
	}{
		{"image: {tag: 1.10}", "image tag", "got number, want string"},
		{"list: [{name: a}, {other: b}]", "list [1]", `missing property "name"`},
	} {
		vals := map[string]interface{}{}
		if err := sigsyaml.Unmarshal([]byte(tc.values), &vals); err != nil {
			t.Fatal(err)
		}
		v := checkSchema([]byte(schema), vals)
		if v == nil || strings.Join(v.path, " ") != tc.path || v.message != tc.message {
			t.Errorf("%s: got %+v, want %s: %s", tc.values, v, tc.path, tc.message)
		}
	}
}
