package transformers

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	yaml2 "go.yaml.in/yaml/v2"
	"go.yaml.in/yaml/v3"
)

// EditError says why an edit cannot be applied, at the position of the node
// concerned, for the caller to print as "file:line:col: cannot fix: ...".
type EditError struct {
	Line, Column int // 0 when there is no node to point at
	Op           Op
	Name         string // the scalar, key or key path concerned
	Reason       string
}

func (e *EditError) Error() string {
	s := fmt.Sprintf("%d:%d: %s %q", e.Line, e.Column, e.Op, e.Name)
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// fail builds the EditError for e at node n (nil: e's own node).
func fail(e Edit, n *yaml.Node, format string, args ...any) error {
	name := e.Value
	switch e.Op {
	case SetEntry:
		name = strings.Join(append(append([]string{}, e.Path...), e.Key), ".")
	case QuoteScalar, DeleteEntry, RenameKey:
		if e.Node != nil {
			name = e.Node.Value
		}
	}
	if n == nil {
		n = e.Node
	}
	if n == nil {
		n = e.Parent
	}
	err := &EditError{Op: e.Op, Name: name, Reason: fmt.Sprintf(format, args...)}
	if n != nil {
		err.Line, err.Column = n.Line, n.Column
	}
	return err
}

// check validates what both appliers need of an edit's nodes.
func check(e Edit) error {
	switch e.Op {
	case QuoteScalar:
		if e.Node == nil || e.Node.Kind != yaml.ScalarNode {
			return fail(e, nil, "not a scalar")
		}
		if e.Node.Style&yaml.TaggedStyle != 0 && e.Node.ShortTag() != "!!str" {
			return fail(e, nil, "has the explicit tag %s; quoting would contradict it", e.Node.Tag)
		}
		if e.Node.Style == 0 && e.Node.Value == "" {
			return fail(e, nil, "empty value; quoting would turn null into a string")
		}
	case DeleteEntry:
		i, err := keyIndex(e)
		if err != nil {
			return err
		}
		if a := anchorIn(e.Parent.Content[i], e.Parent.Content[i+1]); a != "" {
			return fail(e, nil, "defines anchor &%s, which aliases may use", a)
		}
	case RenameKey:
		if e.Node == nil || e.Node.Kind != yaml.ScalarNode {
			return fail(e, nil, "not a scalar key")
		}
		if !utf8.ValidString(e.Value) {
			return fail(e, nil, "new key is not UTF-8")
		}
		if e.Node.Style&yaml.TaggedStyle != 0 && e.Node.ShortTag() != "!!str" {
			return fail(e, nil, "key has the explicit tag %s", e.Node.Tag)
		}
		if e.Parent != nil {
			if _, err := keyIndex(e); err != nil {
				return err
			}
			if e.Value != e.Node.Value && findKey(e.Parent, e.Value) >= 0 {
				return fail(e, nil, "the mapping already has a key %q", e.Value)
			}
		}
	case SetEntry:
		if e.Parent == nil || e.Parent.Kind != yaml.MappingNode {
			return fail(e, nil, "parent is not a mapping")
		}
		for _, k := range append([]string{e.Key, e.Value}, e.Path...) {
			if !utf8.ValidString(k) {
				return fail(e, nil, "%q is not UTF-8", k)
			}
		}
	default:
		return fail(e, nil, "unknown edit")
	}
	return nil
}

// keyIndex returns the index of key e.Node in mapping e.Parent's Content.
func keyIndex(e Edit) (int, error) {
	if e.Parent == nil || e.Parent.Kind != yaml.MappingNode {
		return 0, fail(e, nil, "parent is not a mapping")
	}
	for i := 0; i+1 < len(e.Parent.Content); i += 2 {
		if e.Parent.Content[i] == e.Node {
			return i, nil
		}
	}
	return 0, fail(e, nil, "not a key of the given mapping")
}

// findKey returns the index of key in mapping m, or -1; of a key written
// twice, the last, which kubectl applies (and rules judge).
func findKey(m *yaml.Node, key string) int {
	for i := len(m.Content)&^1 - 2; i >= 0; i -= 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return i
		}
	}
	return -1
}

// anchorIn returns the first anchor defined in the given subtrees.
func anchorIn(ns ...*yaml.Node) string {
	for _, n := range ns {
		if n.Anchor != "" {
			return n.Anchor
		}
		if a := anchorIn(n.Content...); a != "" {
			return a
		}
	}
	return ""
}

// dedupe drops repeated edits: two rules may offer the same fix. Only the
// fields an Op uses tell edits apart.
func dedupe(edits []Edit) []Edit {
	type id struct {
		op           Op
		parent, node *yaml.Node
		path, value  string
	}
	seen := make(map[id]bool, len(edits))
	out := make([]Edit, 0, len(edits))
	for _, e := range edits {
		k := id{op: e.Op}
		switch e.Op {
		case QuoteScalar:
			k.node = e.Node
		case DeleteEntry:
			k.parent, k.node = e.Parent, e.Node
		case RenameKey:
			k.node, k.value = e.Node, e.Value
		default:
			k.parent, k.path, k.value = e.Parent, strings.Join(e.Path, "\x00")+"\x00\x00"+e.Key, e.Value
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// isNull reports whether n is a null scalar: as an intermediate of a
// SetEntry path it is "missing", so it is replaced by a mapping.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" && n.Style&yaml.TaggedStyle == 0
}

// plainOK reports whether s, written plain as a mapping value (or key), reads
// back as the string s both in YAML 1.2 (yaml.v3, what shipshape reads) and
// in YAML 1.1 (yaml.v2, what Kubernetes decodes): `yes`, `3`, `1.10`, `~`
// and `a: b` all need quotes. Asking the real decoders is the only way to
// be sure.
func plainOK(s string, key bool) bool {
	if s == "" || strings.ContainsAny(s, "\r\n") {
		return false
	}
	doc := "k: " + s
	if key {
		doc = s + ": v"
	}
	plainMemo.Lock()
	ok, known := plainMemo.m[doc]
	plainMemo.Unlock()
	if known {
		return ok
	}
	var m3 map[string]any
	var m2 map[any]any
	ok = yaml.Unmarshal([]byte(doc), &m3) == nil && holds(m3, s, key) &&
		yaml2.Unmarshal([]byte(doc), &m2) == nil && holds(m2, s, key)
	plainMemo.Lock()
	if len(plainMemo.m) < 4096 {
		plainMemo.m[doc] = ok
	}
	plainMemo.Unlock()
	return ok
}

// plainMemo remembers plainOK's answers: fixes write the same few keys and
// values again and again, and asking two decoders costs microseconds.
var plainMemo = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

func holds[K comparable](m map[K]any, s string, key bool) bool {
	if len(m) != 1 {
		return false
	}
	for k, v := range m {
		if key {
			ks, ok := any(k).(string)
			return ok && ks == s
		}
		vs, ok := v.(string)
		return ok && any(k) == any("k") && vs == s
	}
	return false
}

// format returns s as YAML text: plain when that reads back as s, else
// double-quoted.
func format(s string, key bool) (text string, quoted bool) {
	if plainOK(s, key) {
		return s, false
	}
	return doubleQuote(s), true
}

// doubleQuote returns s as a double-quoted YAML scalar. Printable text,
// tabs included, stays as written; only what YAML cannot hold literally is
// escaped.
func doubleQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t' || printable(r):
			b.WriteRune(r)
		case r <= 0xFF:
			fmt.Fprintf(&b, `\x%02X`, r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			fmt.Fprintf(&b, `\U%08X`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// printable is YAML's c-printable minus the characters yaml.v3 treats as
// line breaks (NEL, LS, PS) and the byte order mark.
func printable(r rune) bool {
	switch {
	case r >= 0x20 && r <= 0x7E:
		return true
	case r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xFEFF:
		return false
	}
	return r >= 0xA0 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}
