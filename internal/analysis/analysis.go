// Package analysis is shipshape's vocabulary, in the manner of
// golang.org/x/tools/go/analysis: a Rule is metadata plus small functions,
// a Pass is what a rule sees of one object (or, for a cross-resource rule,
// of one application), a Finding is data, and a Fix is a short list of
// Edits addressed by object and field path.
//
// Drivers (the engine, the fix driver, the printers) import this package;
// none of them imports the rules. Rules import it and never print, write,
// suppress or sort: the engine does that once for every rule.
package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Severity orders findings; the zero value is Info so that "at or above"
// comparisons read naturally.
type Severity int

const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity accepts the names String returns.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(s) {
	case "info":
		return Info, nil
	case "warning":
		return Warning, nil
	case "error":
		return Error, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

// FailOn is the level from which findings fail a run (--fail-on, failOn).
type FailOn struct {
	Threshold Severity
	Never     bool // "none": nothing fails the run
}

// ParseFailOn reads a fail level: error (also ""), warning, info or none.
// Every way in (lint, fix, fn, the legacy plugin) parses it here.
func ParseFailOn(s string) (FailOn, error) {
	switch strings.ToLower(s) {
	case "", "error":
		return FailOn{Threshold: Error}, nil
	case "none":
		return FailOn{Threshold: Error, Never: true}, nil
	}
	sev, err := ParseSeverity(s)
	if err != nil {
		return FailOn{Threshold: Error}, fmt.Errorf("%q is not error, warning, info or none", s)
	}
	return FailOn{Threshold: sev}, nil
}

// Failing returns the findings at or above the level.
func (f FailOn) Failing(fs []Finding) []Finding {
	if f.Never {
		return nil
	}
	var out []Finding
	for _, fd := range fs {
		if fd.Severity >= f.Threshold {
			out = append(out, fd)
		}
	}
	return out
}

// Finding is one problem at one position. File, Line and Column point at the
// offending node; Line and Column are 1-based, Column counts characters.
type Finding struct {
	Rule     string
	Severity Severity
	Message  string
	// Detail is what backs the message up, too long for a line of text
	// output (kustomize's whole error chain, the consequences of a
	// mistake): the json and sarif formats carry it, text shows it with -v.
	Detail   string
	Resource manifest.Resource
	Field    string // dotted path of the offending node, e.g. spec.template.metadata.labels.active
	File     string
	Line     int
	Column   int
	// Fix is nil when the finding has no safe automatic fix. Its edits
	// address the finding's object: File, Doc and Item.
	Fix *Fix
	// Doc is the document index within File (0-based); -1 when unknown.
	// For ResourceList items it is the item's index.
	Doc int
	// Item is the index within a `kind: List` document, or -1.
	Item int
	// Roots names the kustomize roots (directories) whose rendered
	// objects the finding is about; nil for a file judged as written.
	Roots []string
	// Related are the field paths of other nodes of the object that the
	// finding is about (a selector's finding: the template label it
	// misses). When kustomize renders the object, the finding is placed
	// at whichever of them an overlay changed, the cause.
	Related []string
	// Rendered marks a finding about an object kustomize rendered that
	// the engine has not placed at its source yet: File is then the
	// kustomization file of the object's root (see manifest.Object.Root).
	// Placing it (engine.place) names the source file and clears it.
	Rendered bool
	// Unrendered is set on a finding that reports an application (a
	// kustomize root, a Helm release) whose objects no rule judged.
	Unrendered Unrendered
}

// Fixable reports whether the finding carries a safe fix.
func (f Finding) Fixable() bool { return f.Fix != nil }

// Less is the one order of findings in a file: by position, then rule,
// then message, so that no output depends on the order rules ran in.
func Less(a, b Finding) bool {
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Column != b.Column {
		return a.Column < b.Column
	}
	if a.Rule != b.Rule {
		return a.Rule < b.Rule
	}
	return a.Message < b.Message
}

// Sort orders findings of one file (or one ResourceList item) by Less.
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		switch {
		case Less(a, b):
			return -1
		case Less(b, a):
			return 1
		}
		return 0
	})
}

// FindingKey identifies a finding independently of its position, which
// fixes shift: verifying a fix compares findings by key.
type FindingKey struct {
	Rule      string
	Doc, Item int
	Resource  manifest.Resource
	Field     string
	Message   string
}

// Key is f's FindingKey.
func (f Finding) Key() FindingKey {
	return FindingKey{Rule: f.Rule, Doc: f.Doc, Item: f.Item, Resource: f.Resource, Field: f.Field, Message: f.Message}
}
