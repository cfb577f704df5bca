package yaml11

import (
	"encoding/json"
	"math"
	"time"

	"go.yaml.in/yaml/v3"
)

// Kustomize tells what kustomize reads from a plain YAML scalar in a file
// that it, not kubectl, reads (a base or patch of a kustomization):
// kustomize decodes with yaml.v3 (kyaml), whose YAML 1.2 core schema keeps
// `yes`, `on`, `y` and `12:30` as strings (and quotes them on output) but
// still makes numbers of `1.10` (1.1), `0755` (493, octal) and `0x1F`, a
// boolean of `true`, null of `~` and a time of `2024-01-01`, which it
// writes back as "2024-01-01T00:00:00Z". It returns ok=false for a scalar that
// stays a string. integration/kustomize_test.go holds the claims to the
// kustomize binary.
func Kustomize(s string) (v Value, ok bool) {
	if s == "" {
		return null, true // `key:` with nothing after it
	}
	var x any
	// One flow sequence holding the scalar: yaml.v3 resolves it exactly
	// as kustomize's reader does, and a plain scalar cannot break out of
	// it into other syntax (that would not be a plain scalar).
	if err := yaml.Unmarshal([]byte("["+s+"]"), &x); err != nil {
		return Value{}, false
	}
	seq, isSeq := x.([]any)
	if !isSeq || len(seq) != 1 {
		return Value{}, false
	}
	switch t := seq[0].(type) {
	case string:
		return Value{}, false
	case nil:
		return Value{Kind: Null, Text: "null"}, true
	case bool:
		if t {
			return Value{Kind: Bool, Text: "true"}, true
		}
		return Value{Kind: Bool, Text: "false"}, true
	case int, int64, uint64:
		b, _ := json.Marshal(t)
		return Value{Kind: Int, Text: string(b)}, true
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return Value{Kind: Float, Text: jsonFloat(t)}, true
		}
		b, _ := json.Marshal(t)
		return Value{Kind: Float, Text: string(b)}, true
	case time.Time:
		// A timestamp (2024-01-01): kustomize writes the time back as
		// JSON does, 2024-01-01T00:00:00Z.
		if text := t.Format(time.RFC3339Nano); text != s {
			return Value{Kind: String, Text: text}, true
		}
	}
	return Value{}, false
}
