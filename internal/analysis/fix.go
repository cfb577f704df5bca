package analysis

import (
	"slices"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Op names a primitive edit.
type Op int

const (
	// Quote double-quotes the scalar at Path (its key when OnKey), keeping
	// the text the author wrote: `active: yes` becomes `active: "yes"`.
	Quote Op = iota + 1
	// Delete removes the mapping entry Path names, with its trailing
	// comment and the comment lines directly above it.
	Delete
	// Rename gives the entry Path names the key Value.
	Rename
	// Set makes the entry Path names hold the string Value, creating the
	// mappings on the way that are missing; an existing value is
	// overwritten. Value is written double-quoted when it would not read
	// back as that string.
	Set
)

func (o Op) String() string {
	switch o {
	case Quote:
		return "quote"
	case Delete:
		return "delete"
	case Rename:
		return "rename"
	case Set:
		return "set"
	}
	return "op?"
}

// Edit is one primitive edit of the finding's object. It names its target
// by field path from the object's root, never by a parser's node: the fix
// driver resolves it against whichever parse it applies to (the file read
// again, a ResourceList item).
type Edit struct {
	Op    Op
	Path  manifest.FieldPath
	OnKey bool   // Quote: the entry's key rather than its value
	Value string // Rename: the new key; Set: the value
}

// Fix is what a finding offers: a description and the edits that make it.
type Fix struct {
	Message string
	Edits   []Edit
}

// SetEntry is an edit that sets path to value.
func SetEntry(path manifest.FieldPath, value string) Edit {
	return Edit{Op: Set, Path: slices.Clone(path), Value: value}
}
