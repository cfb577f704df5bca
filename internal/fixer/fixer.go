// Package fixer is the one fix driver behind every way in: `shipshape fix`
// (files and stdin), the legacy kustomize plugin (a stream) and `shipshape
// fn` (ResourceList items). It plans (the fixable findings of a lint run,
// per-object and cross-resource alike), applies (all fixes at once, else
// one by one, skipping those that do not apply), verifies (the result is
// parsed and linted again: the fixed findings are gone and nothing is
// new) and hands back the result; callers only print and write.
//
// Every edit is addressed by object (file and document, or ResourceList
// item) and field path; transformers.Resolve turns it into an edit on the
// one parse it is applied to.
package fixer

import (
	"fmt"
	"slices"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

// Fixable returns the findings that carry a fix with edits.
func Fixable(fs []analysis.Finding) []analysis.Finding {
	var out []analysis.Finding
	for _, f := range fs {
		if f.Fix != nil && len(f.Fix.Edits) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// applyGreedy applies every fix at once with apply, which makes a set of
// fixes on the original and returns the result; when that fails (edits
// that overlap, an unsafe delete), it keeps, one by one, the fixes that
// still apply, so one awkward spot does not block the rest.
func applyGreedy[T any](fixes []analysis.Finding, apply func([]analysis.Finding) (T, error)) (out T, applied []analysis.Finding, skipped []skip) {
	if len(fixes) == 0 {
		return out, nil, nil
	}
	if all, err := apply(fixes); err == nil {
		return all, fixes, nil
	}
	for _, fd := range fixes {
		try := append(slices.Clip(applied), fd)
		next, err := apply(try)
		if err != nil {
			skipped = append(skipped, skip{fd, err})
			continue
		}
		out, applied = next, try
	}
	return out, applied, skipped
}

// skip is a fix that was not applied, and why.
type skip struct {
	finding analysis.Finding
	err     error
}

// notFixed is fd without its fix, saying why.
func notFixed(fd analysis.Finding, err error) analysis.Finding {
	fd.Message += " (not fixed: " + err.Error() + ")"
	fd.Fix = nil
	return fd
}

// verify checks a fixed result's findings against the findings before:
// each applied one is gone, and every one left was there before, unless
// uncovered: the file belongs to a kustomize root that failed to render
// before the fixes and renders after, so what it gets now was hidden
// before, not made by the fixes.
func verify(before, applied, after []analysis.Finding, uncovered bool) error {
	expect := map[analysis.FindingKey]int{}
	for _, fd := range before {
		expect[fd.Key()]++
	}
	fixed := map[analysis.FindingKey]bool{}
	for _, fd := range applied {
		expect[fd.Key()]--
		fixed[fd.Key()] = true
	}
	for _, fd := range after {
		k := fd.Key()
		if expect[k] <= 0 && (!uncovered || fixed[k]) {
			return fmt.Errorf("fixing would leave or introduce %s at %d:%d (%s); not written", fd.Rule, fd.Line, fd.Column, fd.Message)
		}
		expect[k]--
	}
	return nil
}

// remaining is before without the applied findings, the skipped ones in
// their place with the reason.
func remaining(before, applied []analysis.Finding, skipped []skip) []analysis.Finding {
	gone := map[analysis.FindingKey]int{}
	for _, fd := range applied {
		gone[fd.Key()]++
	}
	why := map[analysis.FindingKey]error{}
	for _, s := range skipped {
		why[s.finding.Key()] = s.err
	}
	var out []analysis.Finding
	for _, fd := range before {
		k := fd.Key()
		if gone[k] > 0 {
			gone[k]--
			continue
		}
		if err, ok := why[k]; ok && fd.Fixable() {
			fd = notFixed(fd, err)
		}
		out = append(out, fd)
	}
	return out
}
