package report

// The lines that tell what a run did rather than list its findings: a
// KRM function's and the kustomize exec plugin's stderr (Describe,
// FailingSummary), and fix's account of the fixes it made (FixedLine,
// FixTotals).

import (
	"fmt"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/english"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Describe is the one-line, human message for a finding, as printed on
// stderr by `shipshape fn` and the kustomize exec plugin:
//
//	shipshape: FILE: KIND/NAME (namespace NS): FIELD: SEVERITY RULE: MESSAGE
//
// FILE, the namespace and FIELD are left out when unknown.
func Describe(f analysis.Finding) string {
	var b strings.Builder
	b.WriteString("shipshape: ")
	if f.File != "" && f.File != manifest.Stdin {
		b.WriteString(f.File + ": ")
	}
	if r := f.Resource.Label(); r != "" {
		b.WriteString(r + ": ")
	}
	if f.Field != "" {
		b.WriteString(f.Field + ": ")
	}
	fmt.Fprintf(&b, "%s %s: %s", f.Severity, f.Rule, f.Message)
	// One finding, one line, whatever the names and messages hold.
	return oneLine(b.String())
}

// FailingSummary is the last stderr line of `shipshape fn` and the exec
// plugin when findings fail the run: failing are those findings, failOn
// the fail level as configured ("" = error), mode lint or fix.
func FailingSummary(failing []analysis.Finding, failOn, mode string) string {
	level := strings.ToLower(failOn)
	if level == "" {
		level = "error"
	}
	fixable := 0
	for _, f := range failing {
		if f.Fix != nil {
			fixable++
		}
	}
	s := fmt.Sprintf("shipshape: %d %s at or above %s", len(failing), english.Plural(len(failing), "finding", "findings"), level)
	if mode == "fix" {
		return s + " left after fixing"
	}
	if fixable > 0 {
		s += fmt.Sprintf("; %d fixable with mode: fix", fixable)
	}
	return s
}

func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// FixedLine is fix's line for one fix it made (verb "fixed") or would make
// ("would fix", fix --check): "fixed FILE:LINE: RULE: KIND/NAME", with
// the names from the manifest made visible (Sanitize).
func FixedLine(verb string, fd analysis.Finding) string {
	line := fmt.Sprintf("%s %s:%d: %s", verb, fd.File, fd.Line, fd.Rule)
	if r := fd.Resource.Label(); r != "" {
		line += ": " + r
	}
	return Sanitize(line)
}

// FixTotals is fix's last line: "fixed 3 findings in 2 files; 1 left".
func FixTotals(verb string, findings, files, left int) string {
	return fmt.Sprintf("%s %d %s in %d %s; %d left", verb, findings, english.Plural(findings, "finding", "findings"), files, english.Plural(files, "file", "files"), left)
}
