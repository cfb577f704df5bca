package fixer

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/transformers"
)

// Items fixes ResourceList items, which stay in memory (`shipshape fn`).
// apply makes a set of fixes on the original items and returns the fixed
// list (bytes of the whole ResourceList, or copies of the item nodes);
// relint lints a fixed list. It returns the fixed list, the findings
// applied, and the findings left (in the fixed list), or an error when
// the result does not verify, and then the caller keeps the original.
func Items[T any](findings []analysis.Finding, apply func([]analysis.Finding) (T, error), relint func(T) ([]analysis.Finding, error)) (out T, applied, left []analysis.Finding, err error) {
	out, applied, skipped := applyGreedy(Fixable(findings), apply)
	if len(applied) == 0 {
		return out, nil, remaining(findings, nil, skipped), nil
	}
	after, err := relint(out)
	if err == nil {
		err = verify(findings, applied, after, false)
	}
	if err != nil {
		var zero T
		return zero, nil, findings, err
	}
	return out, applied, markSkipped(after, skipped), nil
}

// ResolveItem turns fd's edits into edits on the tree of the item it is
// about: items[fd.Doc], or entry fd.Item of that item's List items.
func ResolveItem(items []*yaml.Node, fd analysis.Finding) ([]transformers.Edit, error) {
	if fd.Doc < 0 || fd.Doc >= len(items) {
		return nil, fmt.Errorf("item %d is not in the ResourceList", fd.Doc)
	}
	root := transformers.ObjectRoot(items[fd.Doc], fd.Item)
	if root == nil {
		return nil, errors.New("the List item is gone")
	}
	var out []transformers.Edit
	for _, e := range fd.Fix.Edits {
		r, err := transformers.Resolve(root, e)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
