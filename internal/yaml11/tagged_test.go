package yaml11

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	yaml2 "go.yaml.in/yaml/v2"
	yaml3 "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// oracleTagged asks the real decoders how kubectl reads `k: <tag> "<s>"`,
// the way oracle does for plain scalars. skip is true when yaml.v3 does not
// see exactly that tag and text (then the document says something else).
// wantErr is v2's error text when v2 cannot decode the scalar.
func oracleTagged(tag, s string) (v Value, ok, skip bool, wantErr string, err error) {
	doc := []byte("k: " + tag + " " + strconv.Quote(s))

	var root yaml3.Node
	if yaml3.Unmarshal(doc, &root) != nil || root.Kind != yaml3.DocumentNode || len(root.Content) != 1 {
		return Value{}, false, true, "", nil
	}
	m := root.Content[0]
	if m.Kind != yaml3.MappingNode || len(m.Content) != 2 || m.Content[0].Value != "k" {
		return Value{}, false, true, "", nil
	}
	n := m.Content[1]
	if n.Kind != yaml3.ScalarNode || n.Style&yaml3.TaggedStyle == 0 || n.ShortTag() != tag || n.Value != s {
		return Value{}, false, true, "", nil
	}

	var got map[string]interface{}
	if err := yaml2.Unmarshal(doc, &got); err != nil {
		msg, isYAML := strings.CutPrefix(err.Error(), "yaml: ")
		if !isYAML || !strings.HasPrefix(msg, "cannot decode ") && !strings.HasPrefix(msg, "!!binary ") {
			return Value{}, false, true, "", nil // a parse error: the parsers differ
		}
		return Value{}, false, false, msg, nil
	}
	val, present := got["k"]
	if len(got) != 1 || !present {
		return Value{}, false, true, "", nil
	}
	if str, isStr := val.(string); isStr {
		if str == s {
			return Value{}, false, false, "", nil
		}
		return Value{String, str}, true, false, "", nil // !!binary, decoded
	}

	js, jerr := sigsyaml.YAMLToJSON(doc)
	if jerr != nil {
		if f, isFloat := val.(float64); isFloat && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return Value{Float, strconv.FormatFloat(f, 'g', -1, 64)}, true, false, "", nil
		}
		return Value{}, false, false, "", fmt.Errorf("YAMLToJSON(%q): %v", doc, jerr)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(js, &obj); err != nil {
		return Value{}, false, false, "", err
	}
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
		return Value{}, false, false, "", fmt.Errorf("v2 decoded %s %q as %T", tag, s, val)
	}
	return Value{v.Kind, string(obj["k"])}, true, false, "", nil
}

var tags = []string{"!!str", "!!bool", "!!int", "!!float", "!!null", "!!timestamp", "!!binary", "!foo", "!!map"}

// TestResolveTagged pins the answers the rule's messages rely on.
// TestTaggedDifferential proves them against v2.
func TestResolveTagged(t *testing.T) {
	tests := []struct {
		tag, in string
		kind    Kind // String with text "": ok == false
		text    string
		err     string
	}{
		{"!!str", "3", String, "", ""},
		{"!!str", "yes", String, "", ""},
		{"!foo", "3", String, "", ""},
		{"!!int", "3", Int, "3", ""},
		{"!!int", "0755", Int, "493", ""},
		{"!!int", "0x1F", Int, "31", ""},
		{"!!int", "+1_0", Int, "10", ""},
		{"!!int", "abc", String, "", "cannot decode !!str `abc` as a !!int"},
		{"!!int", "3.5", String, "", "cannot decode !!float `3.5` as a !!int"},
		{"!!int", "1e3", String, "", "cannot decode !!float `1e3` as a !!int"},
		{"!!int", "", String, "", "cannot decode !!null `` as a !!int"},
		{"!!int", "2024-01-01", String, "", "cannot decode !!str `2024-01-01` as a !!int"},
		{"!!bool", "yes", Bool, "true", ""},
		{"!!bool", "Off", Bool, "false", ""},
		{"!!bool", "1", String, "", "cannot decode !!int `1` as a !!bool"},
		{"!!float", "3", Float, "3", ""},
		{"!!float", "1.10", Float, "1.1", ""},
		{"!!float", "0x10", Float, "16", ""},
		{"!!float", "18446744073709551615", String, "", "cannot decode !!int `18446744073709551615` as a !!float"},
		{"!!null", "", Null, "null", ""},
		{"!!null", "~", Null, "null", ""},
		{"!!null", "x", String, "", "cannot decode !!str `x` as a !!null"},
		{"!!timestamp", "2024-01-01", String, "", ""},
		{"!!timestamp", "3", String, "", "cannot decode !!int `3` as a !!timestamp"},
		{"!!binary", "YWJj", String, "abc", ""},
		{"!!binary", "***", String, "", "!!binary value contains invalid base64 data"},
	}
	for _, tt := range tests {
		v, ok, err := ResolveTagged(tt.tag, tt.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
			var te *TagError
			if !errors.As(err, &te) {
				t.Errorf("ResolveTagged(%s %q): error %T, want *TagError", tt.tag, tt.in, err)
			}
		}
		wantOK := tt.text != ""
		if ok != wantOK || v.Kind != tt.kind || v.Text != tt.text || gotErr != tt.err {
			t.Errorf("ResolveTagged(%s %q) = %v %q, %v, %q; want %v %q, %v, %q",
				tt.tag, tt.in, v.Kind, v.Text, ok, gotErr, tt.kind, tt.text, wantOK, tt.err)
		}
	}
}

// TestTaggedDifferential checks ResolveTagged against v2 on the plain-scalar
// inputs and on some texts only tags give meaning to: every third for the
// tags that make a bool, a number or null, every seventeenth for the others.
// (ResolveTagged adds a tag check to Resolve, which TestDifferential covers
// on every input.)
func TestTaggedDifferential(t *testing.T) {
	inputs := append(generated(t), "YWJj", "YWJ=", "aGVsbG8=", "", "a b", "2024-01-01T10:00:00Z",
		"2001-12-14 21:59:43.10", "2001-12-14t21:59:43.10-05:00", "2024-1-1", "20240-01-01")
	checked, tried := 0, 0
	for _, tag := range tags {
		stride := 17
		switch tag {
		case "!!bool", "!!int", "!!float", "!!null":
			stride = 3
		}
		for i := len(inputs) - 1; i >= 0; i -= stride {
			tried++
			if compareTagged(t, tag, inputs[i]) {
				checked++
			}
		}
	}
	// Guard against an oracle that quietly skips everything.
	if checked < tried*9/10 {
		t.Fatalf("only %d of %d tagged scalars were compared", checked, tried)
	}
	t.Logf("%d tagged scalars compared with v2", checked)
}

// compareTagged compares ResolveTagged with v2 on one input; false when
// the oracle skipped it.
func compareTagged(t *testing.T, tag, s string) bool {
	t.Helper()
	want, wantOK, skip, wantErr, err := oracleTagged(tag, s)
	if err != nil {
		t.Fatal(err)
	}
	if skip {
		return false
	}
	got, gotOK, gotErr := ResolveTagged(tag, s)
	errText := ""
	if gotErr != nil {
		errText = gotErr.Error()
	}
	if gotOK != wantOK || got != want || errText != wantErr {
		t.Errorf("ResolveTagged(%s %q) = %+v, %v, %q; v2 says %+v, %v, %q", tag, s, got, gotOK, errText, want, wantOK, wantErr)
	}
	return true
}

func FuzzResolveTagged(f *testing.F) {
	for _, s := range []string{"yes", "1.10", "0x1F", "abc", "", "2024-01-01", "YWJj", "18446744073709551615"} {
		f.Add(uint8(0), s)
	}
	f.Fuzz(func(t *testing.T, tagIndex uint8, s string) {
		tag := tags[int(tagIndex)%len(tags)]
		ResolveTagged(tag, s) // must not panic, whatever s is
		if !utf8.ValidString(s) {
			return
		}
		compareTagged(t, tag, s)
	})
}
