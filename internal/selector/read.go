package selector

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/yaml11"
)

// This file reads yaml.v3 nodes the way kubectl does: sigs.k8s.io/yaml
// decodes with go-yaml v2 (YAML 1.1 scalars, merge keys applied in order,
// later keys overwriting earlier ones) and prints JSON, which the API server
// decodes case-sensitively into typed fields.

// maxVisits bounds the mapping entries one parse may visit: nested merge
// keys over aliases multiply, and v2 refuses such documents too.
const maxVisits = 10000

type parser struct {
	problems []Problem
	visits   int
	active   map[*yaml.Node]bool // mappings being merged, to stop cycles
	broken   bool                // a merge failed: v2 rejects the document
}

func (p *parser) report(n *yaml.Node, path, format string, args ...any) {
	p.problems = append(p.problems, Problem{Node: n, Path: path, Message: fmt.Sprintf(format, args...)})
}

// deref follows aliases, and steps into a document so callers may pass one.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil {
		switch {
		case n.Kind == yaml.AliasNode && n.Alias != nil:
			n = n.Alias
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		default:
			return n
		}
	}
	return n
}

const quoted = yaml.SingleQuotedStyle | yaml.DoubleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle

// plain reports an untagged plain scalar, the only kind YAML 1.1 resolves.
func plain(n *yaml.Node) bool { return n.Style&(yaml.TaggedStyle|quoted) == 0 }

// read returns what kubectl reads from scalar n. ok is false (and a problem
// is reported) when kubectl would not get a string or null from it.
func (p *parser) read(n *yaml.Node, path string) (v yaml11.Value, ok bool) {
	switch {
	case n.Kind != yaml.ScalarNode:
		p.report(n, path, "must be a string, not %s", kindName(n))
		return yaml11.Value{}, false
	case n.Style&yaml.TaggedStyle != 0:
		switch {
		case n.Tag == "!!null":
			if v, _ := yaml11.Resolve(n.Value); v.Kind == yaml11.Null {
				return v, true
			}
		case n.Tag == "!!str" || !strings.HasPrefix(n.Tag, "!!"):
			// v2 ignores local tags such as !foo.
			return yaml11.Value{Kind: yaml11.String, Text: n.Value}, true
		}
		// !!int, !!bool, !!binary...: rarely meant, so rather than mirror
		// each, say it is not a plain string.
		p.report(n, path, "explicit tag %s: kubectl does not read it as a string", n.Tag)
		return yaml11.Value{}, false
	case n.Style&quoted != 0:
		return yaml11.Value{Kind: yaml11.String, Text: n.Value}, true
	}
	if v, ok := yaml11.Resolve(n.Value); ok {
		if v.Kind == yaml11.Null {
			return v, true
		}
		p.report(n, path, "unquoted %s is read by kubectl as %s, not a string; quote it", n.Value, v.Describe())
		return v, false
	}
	return yaml11.Value{Kind: yaml11.String, Text: n.Value}, true
}

// str reads a string field: null is "", the way JSON null decodes into a Go
// string. Where kubectl rejects the scalar, the text as written is returned
// so that matching still follows what the author meant.
func (p *parser) str(n *yaml.Node, path string) (string, bool) {
	n = deref(n)
	v, ok := p.read(n, path)
	switch {
	case !ok:
		return n.Value, false
	case v.Kind == yaml11.Null:
		return "", true
	}
	return v.Text, true
}

// key is the JSON object key YAMLToJSON makes of mapping key n: `on` turns
// into "true", `1.10` into "1.1" (floats are printed in 32-bit precision).
//
// v2 keeps keys of different types apart (int 1 and string "1") even when
// they meet in one JSON key; the returned Value tells them apart.
func (p *parser) key(n *yaml.Node, path string) (key string, v yaml11.Value, ok bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode {
		p.report(n, path, "mapping key must be a scalar, not %s", kindName(n))
		return "", v, false
	}
	if v, ok = p.readKey(n, path); !ok {
		return "", v, false
	}
	switch v.Kind {
	case yaml11.Null:
		p.report(n, path, "null mapping key: kubectl cannot convert it to JSON")
		return "", v, false
	case yaml11.Int:
		// v2 makes a uint64 of what exceeds int64, a key type YAMLToJSON rejects.
		if _, err := strconv.ParseInt(v.Text, 10, 64); err != nil {
			p.report(n, path, "mapping key %s: kubectl cannot convert it to JSON", n.Value)
			return "", v, false
		}
		key = v.Text
	case yaml11.Float:
		// As sigs.k8s.io/yaml does: 1e300 overflows float32 and becomes ".inf".
		f, _ := strconv.ParseFloat(v.Text, 64)
		key = strconv.FormatFloat(f, 'g', -1, 32)
		switch key {
		case "+Inf":
			key = ".inf"
		case "-Inf":
			key = "-.inf"
		case "NaN":
			key = ".nan"
		}
	default:
		key = v.Text
	}
	return key, v, true
}

// readKey is read without the string-only complaint: a number or boolean
// key is legal, YAMLToJSON prints it.
func (p *parser) readKey(n *yaml.Node, path string) (yaml11.Value, bool) {
	if plain(n) {
		if v, ok := yaml11.Resolve(n.Value); ok {
			return v, true
		}
		return yaml11.Value{Kind: yaml11.String, Text: n.Value}, true
	}
	return p.read(n, path)
}

type entry struct {
	key      string
	identity yaml11.Value // the key as v2 has it
	keyNode  *yaml.Node
	value    *yaml.Node
}

// entries flattens mapping n as v2 decodes it into a map: merge keys are
// applied where they stand and any later key overwrites an earlier one, so
// in `{a: 1, <<: {a: 2}}` a is 2. Entries keep the order of their last
// assignment. ok is false when kubectl cannot decode n: it is not a
// mapping, or a merge key is broken.
func (p *parser) entries(n *yaml.Node, path string) (out []entry, ok bool) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.report(n, path, "must be a mapping, not %s", kindName(n))
		return nil, false
	}
	at := map[string]int{}
	set := func(e entry) {
		i, seen := at[e.key]
		if !seen {
			at[e.key] = len(out)
			out = append(out, e)
			return
		}
		if out[i].identity != e.identity {
			p.report(e.keyNode, join(path, e.key), "keys %s and %s both become %q in kubectl's JSON, and which one wins is random",
				describeKey(out[i].identity), describeKey(e.identity), e.key)
		}
		out = append(append(out[:i], out[i+1:]...), e)
		for j := i; j < len(out); j++ {
			at[out[j].key] = j
		}
	}
	p.active = map[*yaml.Node]bool{}
	p.broken = false
	p.collect(n, path, set)
	return out, !p.broken
}

func describeKey(v yaml11.Value) string {
	if v.Kind == yaml11.String {
		return "string " + strconv.Quote(v.Text)
	}
	return v.Describe()
}

func (p *parser) collect(m *yaml.Node, path string, set func(entry)) {
	if p.active[m] {
		p.report(m, path, "merge key: anchor %q contains itself", m.Anchor)
		p.broken = true
		return
	}
	p.active[m] = true
	defer delete(p.active, m)
	for i := 0; i+1 < len(m.Content); i += 2 {
		if p.visits++; p.visits > maxVisits {
			if p.visits == maxVisits+1 {
				p.report(m, path, "too many merged entries (aliases multiply them)")
			}
			p.broken = true
			return
		}
		k, v := m.Content[i], m.Content[i+1]
		if isMerge(k) {
			p.merge(v, path, set)
			continue
		}
		if key, id, ok := p.key(k, path); ok {
			set(entry{key, id, k, v})
		}
	}
}

// merge follows v2: a mapping, an alias of one, or a sequence of those in
// which earlier mappings take precedence.
func (p *parser) merge(v *yaml.Node, path string, set func(entry)) {
	v = deref(v)
	switch v.Kind {
	case yaml.MappingNode:
		p.collect(v, path, set)
		return
	case yaml.SequenceNode:
		for i := len(v.Content) - 1; i >= 0; i-- {
			m := deref(v.Content[i])
			if m.Kind != yaml.MappingNode {
				p.report(m, path, "merge key: sequence items must be mappings, not %s", kindName(m))
				p.broken = true
				return
			}
			p.collect(m, path, set)
		}
		return
	}
	p.report(v, path, "merge key: value must be a mapping, not %s", kindName(v))
	p.broken = true
}

func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Tag == "!!merge"
}

// isNull reports whether n is absent or a YAML null, which JSON decodes as
// "not set".
func isNull(n *yaml.Node) bool {
	n = deref(n)
	if n == nil || n.Kind == 0 {
		return true
	}
	if n.Kind == yaml.DocumentNode {
		return len(n.Content) == 0
	}
	if n.Kind != yaml.ScalarNode {
		return false
	}
	var p parser
	v, ok := p.read(n, "")
	return ok && v.Kind == yaml11.Null
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.ScalarNode:
		if v, ok := yaml11.Resolve(n.Value); ok && plain(n) {
			return v.Describe()
		}
		return "a string"
	case yaml.DocumentNode:
		return "a document"
	}
	return "an alias"
}

func join(path, key string) string {
	step := manifest.Keys(key).String() // ["app.kubernetes.io/name"]
	if path == "" || strings.HasPrefix(step, "[") {
		return path + step
	}
	return path + "." + step
}
