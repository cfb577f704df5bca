// Package report prints findings for humans and for tools. The formats are
// part of shipshape's public interface:
//
//   - text: one line per finding,
//     `file:line:col: severity rule: Kind/name (namespace ns): message`
//     (the resource only when the finding has one), then a one-line summary;
//   - json: {"findings": [...], "summary": {...}} with a fixed key order;
//   - sarif: SARIF 2.1.0, one run, for code-scanning dashboards;
//   - github: GitHub Actions workflow commands (::error, ::warning, ::notice);
//   - junit: JUnit XML for GitLab and Jenkins test reports.
//
// The package only formats: the caller sorts, filters and counts findings
// and decides whether colour is wanted.
package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

// Summary is what the run looked at and what it found.
type Summary struct {
	Files, Resources        int
	Errors, Warnings, Infos int
	Fixable                 int
	// NotRendered counts the applications no rule judged, by kind: the
	// kustomize roots a finding names (each once), and each object that
	// defines one (a HelmRelease). Their info findings are not in Infos.
	NotRendered map[analysis.Unrendered]int
	// Unlisted is how many of those findings the text format leaves out
	// without -v (the info ones; render-skipped warnings are shown).
	Unlisted int
	// Shard is "k/n" for a run of --shard k/n (its findings are those of
	// shard k), empty for a whole run.
	Shard string
}

// NotRenderedTotal is how many applications were not rendered.
func (s Summary) NotRenderedTotal() int {
	n := 0
	for _, c := range s.NotRendered {
		n += c
	}
	return n
}

// listedInText reports whether the text format prints f: an info
// finding that names an unrendered application is counted in the
// summary line instead, and printed with -v.
func listedInText(f analysis.Finding, verbose bool) bool {
	return verbose || f.Unrendered == analysis.NotUnrendered || f.Severity > analysis.Info
}

// Options tune the output.
type Options struct {
	// Color turns on ANSI colours in the text format. The caller decides:
	// stdout is a terminal and NO_COLOR is unset.
	Color bool
	// ToolVersion is shipshape's version (SARIF tool.driver.version).
	ToolVersion string
	// FixCommand is the command the text summary suggests for fixable
	// findings, e.g. "shipshape fix". Empty leaves the hint out.
	FixCommand string
	// Verbose adds each finding's Detail to the text format, indented on
	// the lines below it.
	Verbose bool
}

// Format names, in the order Formats returns them.
const (
	FormatText   = "text"
	FormatJSON   = "json"
	FormatSARIF  = "sarif"
	FormatGitHub = "github"
	FormatJUnit  = "junit"
)

// Formats lists the accepted format names, for --help and validation.
func Formats() []string {
	return []string{FormatText, FormatJSON, FormatSARIF, FormatGitHub, FormatJUnit}
}

// Write prints findings (already sorted and filtered by the caller) in
// format. sum is printed as given (text summary line, json summary).
// rulesMeta supplies rule metadata for SARIF and JUnit; findings whose rule
// is not in rulesMeta are still printed.
func Write(w io.Writer, format string, findings []analysis.Finding, sum Summary, rulesMeta []*analysis.Rule, opt Options) error {
	switch format {
	case FormatText:
		return writeText(w, findings, sum, opt)
	case FormatJSON:
		return writeJSON(w, findings, sum)
	case FormatSARIF:
		return writeSARIF(w, findings, rulesMeta, opt)
	case FormatGitHub:
		return writeGitHub(w, findings, sum, opt)
	case FormatJUnit:
		return writeJUnit(w, findings, rulesMeta)
	}
	return fmt.Errorf("unknown output format %q (want %s)", format, strings.Join(Formats(), ", "))
}

// Count fills Errors, Warnings, Infos and Fixable from findings; the caller
// sets Files and Resources.
func Count(findings []analysis.Finding) Summary {
	var s Summary
	roots := map[string]bool{}
	for _, f := range findings {
		if f.Unrendered != analysis.NotUnrendered {
			s.countNotRendered(f, roots)
			if f.Severity <= analysis.Info {
				s.Unlisted++
				continue
			}
		}
		switch {
		case f.Severity >= analysis.Error:
			s.Errors++
		case f.Severity == analysis.Warning:
			s.Warnings++
		default:
			s.Infos++
		}
		if f.Fixable() {
			s.Fixable++
		}
	}
	return s
}

// countNotRendered counts the applications f reports as not rendered:
// each kustomize root once, whichever of its entries the findings name
// (a root with two remote bases is one application), else f's object.
func (s *Summary) countNotRendered(f analysis.Finding, roots map[string]bool) {
	if s.NotRendered == nil {
		s.NotRendered = map[analysis.Unrendered]int{}
	}
	if len(f.Roots) == 0 {
		s.NotRendered[f.Unrendered]++
		return
	}
	for _, r := range f.Roots {
		if !roots[r] {
			roots[r] = true
			s.NotRendered[f.Unrendered]++
		}
	}
}

// errWriter keeps the first write error so that line printers can ignore
// errors until the end.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// Sanitize makes s safe to print on one terminal line: control characters
// (C0 except tab, DEL, C1) and invalid UTF-8 become visible escapes, so that
// a value quoted from a manifest cannot move the cursor, recolour the
// terminal or split a finding over two lines.
func Sanitize(s string) string {
	clean := true
	for _, r := range s {
		if isControl(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case isControl(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\t') || (r >= 0x7f && r <= 0x9f)
}

// resourceName renders a resource like "Deployment prod/web"; "" when the
// resource is unknown.
func resourceName(f analysis.Finding) string {
	r := f.Resource
	name := r.Name
	if r.Namespace != "" {
		name = r.Namespace + "/" + name
	}
	switch {
	case r.Kind != "" && r.Name != "":
		return r.Kind + " " + name
	case r.Kind != "":
		return r.Kind
	case r.Name != "":
		return name
	}
	return ""
}

// position renders file:line:col, leaving out what is unknown.
func position(f analysis.Finding) string {
	switch {
	case f.Line <= 0:
		return f.File
	case f.Column <= 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
}
