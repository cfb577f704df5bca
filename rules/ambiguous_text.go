package rules

import (
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/yaml11"
)

// How ambiguous-scalar names what it found: the message and the field
// path of a key.

// readAs is the finding's message: lead (which says what is read as what)
// v, not the string text, and what to do.
func readAs(lead string, v yaml11.Value, text string, isKey bool, remedy string) string {
	if isKey {
		return lead + v.Describe() + ", so the key becomes " + keyText(v) + ", not " + strconv.Quote(text) + ": " + remedy
	}
	return lead + v.Describe() + ", not the string " + strconv.Quote(text) + ": " + remedy
}

func shown(s string) string {
	if s == "" {
		return "(empty)"
	}
	return s
}

// taggedText shows a tagged scalar roughly as written: !!int "3", !!bool yes.
func taggedText(tag string, n *yaml.Node) string {
	switch {
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return tag + " " + strconv.Quote(n.Value)
	case n.Value == "":
		return tag
	}
	return tag + " " + n.Value
}

// keyName is the text of a map key for the field path: an alias key is
// named by the scalar it stands for.
func keyName(k *yaml.Node) string {
	if k.Kind == yaml.AliasNode && k.Alias != nil && k.Alias.Kind == yaml.ScalarNode {
		return k.Alias.Value
	}
	return k.Value
}

func keyText(v yaml11.Value) string {
	if v.Kind == yaml11.Null {
		return "invalid (a null key is rejected)"
	}
	return strconv.Quote(v.Text)
}
