package transformers

import (
	"bytes"
	"fmt"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/corpus"
)

// FuzzApplyBytes picks edits from the parsed input and applies them. Whatever
// ApplyBytes accepts must re-parse into as many documents, and into the tree
// ApplyNodes makes from the same edits on a fresh parse: quoted scalars read
// as the same strings, deleted entries are gone, set values read back.
// The seed corpus is in testdata/fuzz/FuzzApplyBytes.
func FuzzApplyBytes(f *testing.F) {
	f.Add([]byte("a: yes\nb:\n  c: [on, 'x']\n"), uint16(0))
	f.Fuzz(func(t *testing.T, src []byte, pick uint16) {
		if len(src) > 4096 {
			return
		}
		if err := exercise(src, pick, 48); err != nil {
			t.Fatal(err)
		}
	})
}

// exercise applies the edits fuzzEdits picks, at most max of them (0: all),
// and checks the result. It keeps each edit that applies along with those
// kept so far, so that one edit ApplyBytes refuses does not hide the others.
func exercise(src []byte, pick uint16, max int) error {
	docs, err := parseDocs(src)
	if err != nil {
		return nil
	}
	if out, err := ApplyBytes(src, nil); err != nil || !bytes.Equal(out, src) {
		return fmt.Errorf("no edits changed the source: %q, %v", out, err)
	}
	all := fuzzEdits(docs, pick)
	if max > 0 && len(all) > max {
		all = all[:max]
	}
	var keep []int
	var out []byte
	for i := range all {
		if o, err := ApplyBytes(src, pickIndexes(all, append(keep, i))); err == nil {
			keep, out = append(keep, i), o
		} else if _, ok := err.(*EditError); !ok {
			return fmt.Errorf("error is not an *EditError: %v", err)
		}
	}
	if keep == nil {
		return nil
	}
	err = checkAgreement(src, out, func(docs []*yaml.Node) ([]Edit, error) {
		es := fuzzEdits(docs, pick)
		if max > 0 && len(es) > max {
			es = es[:max]
		}
		return pickIndexes(es, keep), nil
	})
	if err != nil {
		return fmt.Errorf("%v\nin:\n%s\nout:\n%s\nedits: %v", err, src, out, describe(pickIndexes(all, keep)))
	}
	return nil
}

// TestCorpus exercises the appliers on real manifests from other projects.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for i, f := range corpus.Sample(t, corpus.Files(t), nil) {
		if err := exercise(bytes.TrimPrefix(f.Data, []byte("\ufeff")), uint16(i), 24); err != nil {
			t.Errorf("%s: %v", f.Path, err)
		}
	}
}

func pickIndexes(edits []Edit, idx []int) []Edit {
	out := make([]Edit, len(idx))
	for i, j := range idx {
		out[i] = edits[j]
	}
	return out
}

func describe(edits []Edit) []string {
	var out []string
	for _, e := range edits {
		n := e.Node
		if n == nil {
			n = e.Parent
		}
		out = append(out, fail(e, n, "%s", e.Value).Error())
	}
	return out
}

// fuzzEdits derives edits from the trees and pick alone, so that a fresh
// parse of the same source yields the same edits on its own nodes.
func fuzzEdits(docs []*yaml.Node, pick uint16) []Edit {
	var maps []*yaml.Node
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			maps = append(maps, n)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	for _, d := range docs {
		walk(d)
	}
	var edits []Edit
	values := []string{"v", "3", "yes", "a: b", "", "two\nlines", "tab\there", "é", " x", "#", "- x", "{}", `"q"`}
	keys := []string{"k", "on", "new key", "metadata", "a", "é"}
	n := int(pick)
	for i, m := range maps {
		for j := 0; j+1 < len(m.Content); j += 2 {
			k, v := m.Content[j], m.Content[j+1]
			if v.Kind == yaml.ScalarNode && (pick&1 == 0 || j%4 == 0) {
				edits = append(edits, Edit{Op: QuoteScalar, Node: v})
			}
			if pick&2 != 0 {
				edits = append(edits, Edit{Op: QuoteScalar, Node: k})
			}
			if (i+j/2+n)%5 == 0 {
				edits = append(edits, Edit{Op: DeleteEntry, Parent: m, Node: k})
			}
			if (i+j/2+n)%7 == 1 {
				e := Edit{Op: RenameKey, Parent: m, Node: k, Value: keys[(n+j)%len(keys)]}
				if pick&4 != 0 { // as rules/daemonset.go does: the mapping is not named
					e.Parent = nil
				}
				edits = append(edits, e)
			}
			if (i+j/2+n)%3 == 2 {
				edits = append(edits, Edit{Op: SetEntry, Parent: m, Path: []string{k.Value}, Key: keys[(n+i)%len(keys)], Value: values[(n+j)%len(values)]})
			}
		}
		if i == 0 || (n+i)%4 == 0 {
			edits = append(edits,
				Edit{Op: SetEntry, Parent: m, Path: []string{"metadata", "annotations"}, Key: keys[(n+i)%len(keys)], Value: values[(n/3+i)%len(values)]},
				Edit{Op: SetEntry, Parent: m, Key: keys[(n/5+i)%len(keys)], Value: values[(n/7+i)%len(values)]})
		}
	}
	return edits
}
