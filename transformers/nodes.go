package transformers

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// ApplyNodes applies edits to the node tree (KRM function mode: kyaml
// re-serialises the tree). It makes the tree that parsing ApplyBytes' output
// would give: quoted scalars are double-quoted !!str, a mapping emptied by
// deletions is an empty flow mapping `{}`, and new scalars are !!str,
// double-quoted when plain text would not read back as the same string.
//
// Every edit is checked before any is applied; edits that conflict with
// each other (one deletes what another sets) can still fail half way.
func ApplyNodes(edits []Edit) error {
	edits = dedupe(edits)
	plain := map[*yaml.Node]bool{} // as parsed: a scalar another edit sets is not quoted then
	for _, e := range edits {
		if err := check(e); err != nil {
			return err
		}
		if e.Op == QuoteScalar && e.Node.Style == 0 {
			plain[e.Node] = true
		}
	}
	for _, e := range edits {
		switch e.Op {
		case QuoteScalar:
			if plain[e.Node] {
				e.Node.Style, e.Node.Tag = yaml.DoubleQuotedStyle, "!!str"
			}
		case DeleteEntry:
			i, err := keyIndex(e)
			if err != nil {
				return err
			}
			m := e.Parent
			m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
			if len(m.Content) == 0 {
				m.Style |= yaml.FlowStyle
			}
		case RenameKey:
			if e.Node.Value != e.Value {
				_, quoted := renamedKey(e)
				setString(e.Node, e.Value, quoted)
			}
		case SetEntry:
			if err := setNodes(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// setScalar gives n the string s, written as ApplyBytes writes it.
func setScalar(n *yaml.Node, s string, key bool) {
	_, quoted := format(s, key)
	setString(n, s, quoted)
}

// setString gives n the string s, plain or double-quoted.
func setString(n *yaml.Node, s string, quoted bool) {
	n.Kind, n.Value, n.Tag = yaml.ScalarNode, s, "!!str"
	n.Style &= yaml.TaggedStyle
	if quoted {
		n.Style |= yaml.DoubleQuotedStyle
	}
}

// renamedKey returns the text that replaces the key of RenameKey e, as both
// appliers write it: plain when that reads back as e.Value, else
// double-quoted. Where the key may sit in a flow collection (its mapping
// is a flow mapping, or unknown: Parent is nil) plain text must also be
// safe there, and replaces only a plain key: a quoted key may be followed
// right away by its `:` (`{"a":1}`, `['0':]`), which a plain key would
// swallow (`{a:1}` is the scalar "a:1").
func renamedKey(e Edit) (text string, quoted bool) {
	text, quoted = format(e.Value, true)
	if quoted || e.Parent != nil && e.Parent.Style&yaml.FlowStyle == 0 {
		return text, quoted
	}
	if e.Node.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 || !plainFlowOK(e.Value) {
		return doubleQuote(e.Value), true
	}
	return text, false
}

// plainFlowOK reports whether s, which plainOK accepts as a key, can also
// be written plain in a flow collection: flow indicators end it there,
// and a leading `?` or `:` is an indicator there even before a non-space.
func plainFlowOK(s string) bool {
	return !strings.ContainsAny(s, ",[]{}") && s[0] != '?' && s[0] != ':'
}

func setNodes(e Edit) error {
	keys := append(append([]string{}, e.Path...), e.Key)
	m := e.Parent
	for i, k := range keys {
		if len(m.Content) == 0 {
			m.Style &^= yaml.FlowStyle // `{}` becomes a block mapping
		}
		ki := findKey(m, k)
		if ki < 0 {
			key := &yaml.Node{}
			setScalar(key, k, true)
			m.Content = append(m.Content, key, chain(keys[i+1:], e.Value))
			return nil
		}
		v := m.Content[ki+1]
		switch {
		case i == len(keys)-1:
			if v.Kind != yaml.ScalarNode {
				return fail(e, v, "holds a collection, not a scalar; not overwriting it")
			}
			if v.Value != e.Value || v.ShortTag() != "!!str" {
				if v.Style&yaml.TaggedStyle != 0 {
					return fail(e, v, "value has the explicit tag %s", v.Tag)
				}
				setScalar(v, e.Value, false)
			}
		case v.Kind == yaml.MappingNode:
			m = v
		case isNull(v) && v.Anchor == "":
			m.Content[ki+1] = chain(keys[i+1:], e.Value)
			return nil
		default:
			return fail(e, v, "%s is not a mapping", strings.Join(keys[:i+1], "."))
		}
	}
	return nil
}

// chain returns value nested in new block mappings under keys.
func chain(keys []string, value string) *yaml.Node {
	n := &yaml.Node{}
	if len(keys) == 0 {
		setScalar(n, value, false)
		return n
	}
	k := &yaml.Node{}
	setScalar(k, keys[0], true)
	n.Kind, n.Tag = yaml.MappingNode, "!!map"
	n.Content = []*yaml.Node{k, chain(keys[1:], value)}
	return n
}
