// Package transformers holds fixes as data: a Fix is a short list of
// primitive edits on YAML nodes. Each primitive has two appliers, written
// once: on the node tree (KRM function mode) and on the source bytes (file
// mode), so that fixing a file changes only the bytes it must.
package transformers

import "go.yaml.in/yaml/v3"

// Op names a primitive edit.
type Op int

const (
	// QuoteScalar double-quotes the scalar Node, keeping the text the author
	// wrote: `active: yes` becomes `active: "yes"`. Works for keys and for
	// scalars inside flow collections.
	QuoteScalar Op = iota + 1
	// DeleteEntry removes the entry whose key node is Node from the block
	// mapping Parent, with the entry's trailing comment and the comment
	// lines directly above it.
	DeleteEntry
	// RenameKey replaces the key scalar Node's text with Value.
	RenameKey
	// SetEntry makes Parent (a mapping) hold Path[0]: Path[1]: ... : Key: Value,
	// creating the intermediate mappings that are missing. Value is a string
	// and is written double-quoted when it would not read back as that
	// string. An existing Key is overwritten.
	SetEntry
)

func (o Op) String() string {
	switch o {
	case QuoteScalar:
		return "quote"
	case DeleteEntry:
		return "delete"
	case RenameKey:
		return "rename"
	case SetEntry:
		return "set"
	}
	return "op?"
}

// Edit is one primitive edit. Node positions (Line, Column) must refer to
// the source the byte applier is given.
type Edit struct {
	Op     Op
	Parent *yaml.Node // DeleteEntry, SetEntry: the mapping
	Node   *yaml.Node // QuoteScalar: the scalar; DeleteEntry, RenameKey: the key
	Path   []string   // SetEntry: intermediate keys below Parent
	Key    string     // SetEntry: the final key
	Value  string     // RenameKey: the new key; SetEntry: the value
}

// Fix is what a finding offers: a description and the edits that make it.
type Fix struct {
	Message string
	Edits   []Edit
}

// Quote is a fix that double-quotes one scalar.
func Quote(n *yaml.Node) *Fix {
	return &Fix{Message: "quote the value", Edits: []Edit{{Op: QuoteScalar, Node: n}}}
}

// Delete is a fix that removes the entry keyed by key from mapping parent.
func Delete(parent, key *yaml.Node) *Fix {
	return &Fix{Message: "remove " + key.Value, Edits: []Edit{{Op: DeleteEntry, Parent: parent, Node: key}}}
}
