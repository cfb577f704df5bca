// Package fixer turns the fixes attached to a file's findings into new file
// bytes, proves the result (it re-parses, and re-linting shows the fixed
// findings gone and nothing new), and writes it atomically.
package fixer

import (
	"bytes"
	"fmt"

	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
	"github.com/shipshape-dev/shipshape/transformers"
)

// Outcome is what fixing one file produced. When Err is set nothing may
// be written for the file.
type Outcome struct {
	Path      string
	Orig, Out []byte // whole file bytes, BOM included
	Applied   []rules.Finding
	Remaining []rules.Finding
	Err       error
}

// Changed reports whether the file would be rewritten.
func (o *Outcome) Changed() bool { return o.Err == nil && !bytes.Equal(o.Orig, o.Out) }

// Fix applies the safe fixes of fr's findings to its source.
func Fix(eng *engine.Engine, fr *engine.FileResult) *Outcome {
	f := fr.File
	o := &Outcome{Path: f.Path, Orig: withBOM(f), Remaining: fr.Findings}
	o.Out = o.Orig
	var fixable, rest []rules.Finding
	for _, fd := range fr.Findings {
		if fd.Fix != nil && len(fd.Fix.Edits) > 0 {
			fixable = append(fixable, fd)
		} else {
			rest = append(rest, fd)
		}
	}
	if len(fixable) == 0 {
		return o
	}
	src, applied, skipped := applyAll(f.Src, fixable)
	if len(applied) == 0 {
		return o
	}
	if err := verify(eng, f, src, fr.Findings, applied); err != nil {
		o.Err = err
		return o
	}
	o.Out = src
	if f.BOM {
		o.Out = append([]byte("\xef\xbb\xbf"), src...)
	}
	o.Applied = applied
	o.Remaining = append(rest, skipped...)
	engine.SortFindings(o.Remaining)
	return o
}

func withBOM(f *manifest.File) []byte {
	if !f.BOM {
		return f.Src
	}
	return append([]byte("\xef\xbb\xbf"), f.Src...)
}

// applyAll applies every fix at once; when the byte applier refuses the
// set (overlapping edits, an unsafe delete), it keeps the fixes one by one
// that still apply, so one awkward spot does not block the rest.
func applyAll(src []byte, fixable []rules.Finding) (out []byte, applied, skipped []rules.Finding) {
	var edits []transformers.Edit
	for _, fd := range fixable {
		edits = append(edits, fd.Fix.Edits...)
	}
	if out, err := transformers.ApplyBytes(src, edits); err == nil {
		return out, fixable, nil
	}
	edits = edits[:0]
	out = src
	for _, fd := range fixable {
		try := append(append([]transformers.Edit(nil), edits...), fd.Fix.Edits...)
		next, err := transformers.ApplyBytes(src, try)
		if err != nil {
			fd.Message += " (not fixed: " + err.Error() + ")"
			fd.Fix = nil
			skipped = append(skipped, fd)
			continue
		}
		edits, out = try, next
		applied = append(applied, fd)
	}
	return out, applied, skipped
}

// verify re-parses the fixed bytes and re-lints them: the same number of
// documents, no new syntax error, and every finding left was there before
// and was not meant to be fixed.
func verify(eng *engine.Engine, f *manifest.File, out []byte, before, applied []rules.Finding) error {
	nf := manifest.Parse(f.Path, out, f.Context)
	if nf.Docs != f.Docs {
		return fmt.Errorf("fixed output has %d documents instead of %d; not written", nf.Docs, f.Docs)
	}
	if len(nf.Errors) > len(f.Errors) {
		return fmt.Errorf("fixed output does not parse (%v); not written", nf.Errors[0])
	}
	expect := map[string]int{}
	for _, fd := range before {
		expect[key(fd)]++
	}
	for _, fd := range applied {
		expect[key(fd)]--
	}
	for _, fd := range eng.Lint(nf) {
		k := key(fd)
		if expect[k] <= 0 {
			return fmt.Errorf("fixing would leave or introduce %s at %d:%d (%s); not written", fd.Rule, fd.Line, fd.Column, fd.Message)
		}
		expect[k]--
	}
	return nil
}

// key identifies a finding independently of its position, which fixes
// shift.
func key(fd rules.Finding) string {
	return fmt.Sprintf("%s\x00%d\x00%s\x00%s\x00%s", fd.Rule, fd.Doc, fd.Resource, fd.Field, fd.Message)
}
