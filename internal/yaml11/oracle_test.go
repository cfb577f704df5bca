package yaml11

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	yaml2 "go.yaml.in/yaml/v2"
	yaml3 "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// oracle asks the real decoders how kubectl reads `k: <s>`. skip is true
// when s is not, by itself, the text of one untagged plain scalar (a
// comment, a flow indicator, trailing blanks, a line break...): then the
// document says something other than s and comparing would prove nothing.
//
// Soundness: yaml.v3 must see a plain, untagged, unanchored scalar whose
// value is exactly s, and where v2 yields a string it must be s too (so both
// parsers read the same text). The JSON text then comes from YAMLToJSON
// itself, the function kubectl calls.
func oracle(s string) (v Value, ok, skip bool, err error) {
	doc := []byte("k: " + s)

	var root yaml3.Node
	if yaml3.Unmarshal(doc, &root) != nil || root.Kind != yaml3.DocumentNode || len(root.Content) != 1 {
		return Value{}, false, true, nil
	}
	m := root.Content[0]
	if m.Kind != yaml3.MappingNode || len(m.Content) != 2 || m.Content[0].Value != "k" {
		return Value{}, false, true, nil
	}
	n := m.Content[1]
	if n.Kind != yaml3.ScalarNode || n.Style != 0 || n.Anchor != "" || n.Value != s {
		return Value{}, false, true, nil
	}

	var got map[string]interface{}
	if err := yaml2.Unmarshal(doc, &got); err != nil || len(got) != 1 {
		// yaml.v3 accepted it as a plain scalar but v2 does not: the
		// parsers differ, so there is no single answer to compare with.
		return Value{}, false, true, nil
	}
	val, present := got["k"]
	if !present {
		return Value{}, false, true, nil
	}
	if str, isStr := val.(string); isStr {
		if str != s {
			return Value{}, false, true, nil
		}
		return Value{}, false, false, nil
	}

	js, jerr := sigsyaml.YAMLToJSON(doc)
	if jerr != nil {
		// JSON has no NaN or infinities; YAMLToJSON fails on them.
		if f, isFloat := val.(float64); isFloat && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return Value{Float, strconv.FormatFloat(f, 'g', -1, 64)}, true, false, nil
		}
		return Value{}, false, false, fmt.Errorf("YAMLToJSON(%q): %v", doc, jerr)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(js, &obj); err != nil {
		return Value{}, false, false, err
	}
	text := string(obj["k"])
	switch val.(type) {
	case nil:
		v.Kind = Null
	case bool:
		v.Kind = Bool
	case int, int64, uint64:
		v.Kind = Int
	case float64:
		v.Kind = Float
	default:
		return Value{}, false, false, fmt.Errorf("v2 decoded %q as %T", s, val)
	}
	return Value{v.Kind, text}, true, false, nil
}
