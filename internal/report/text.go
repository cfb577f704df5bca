package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// writeText prints one line per finding,
//
//	file:line:col: severity rule: Kind/name (namespace ns): message [fixable] (kustomize roots a, b)
//
// and then the summary line (see summaryLine). The resource part is left
// out when the finding has none (yaml-syntax, read-error) and the
// namespace part when the object declares none, so that file-level
// findings read "file:line:col: severity rule: message". The line starts
// with "file:line:col: " whatever follows, for editors' problem matchers.
func writeText(w io.Writer, findings []analysis.Finding, sum Summary, opt Options) error {
	ew := &errWriter{w: w}
	for _, f := range findings {
		ew.printf("%s\n", textLine(f, opt))
	}
	ew.printf("%s\n", summaryLine(sum, opt.FixCommand))
	return ew.err
}

// textLine is one finding as the text format prints it, without the newline.
func textLine(f analysis.Finding, opt Options) string {
	pos := Sanitize(position(f))
	sev := f.Severity.String()
	if opt.Color {
		pos = ansiBold + pos + ansiReset
		sev = severityColor(f.Severity) + sev + ansiReset
	}
	fixable := ""
	if f.Fixable() {
		fixable = " [fixable]"
	}
	res := ""
	if r := f.Resource.Label(); r != "" {
		res = Sanitize(r) + ": "
	}
	switch len(f.Roots) {
	case 0:
	case 1:
		fixable += " (kustomize root " + Sanitize(f.Roots[0]) + ")"
	default:
		fixable += " (kustomize roots " + Sanitize(strings.Join(f.Roots, ", ")) + ")"
	}
	return fmt.Sprintf("%s: %s %s: %s%s%s", pos, sev, Sanitize(f.Rule), res, Sanitize(f.Message), fixable)
}

func severityColor(s analysis.Severity) string {
	switch {
	case s >= analysis.Error:
		return ansiRed
	case s == analysis.Warning:
		return ansiYellow
	}
	return ansiCyan
}

// summaryLine is the text format's last line:
//
//	3 errors, 1 warning, 0 infos in 12 files (40 resources); 2 fixable: run shipshape fix
//	no problems in 12 files (40 resources)
func summaryLine(sum Summary, fixCommand string) string {
	scope := fmt.Sprintf("in %s (%s)", plural(sum.Files, "file", "files"), plural(sum.Resources, "resource", "resources"))
	if sum.Errors == 0 && sum.Warnings == 0 && sum.Infos == 0 {
		return "no problems " + scope
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s, %s %s",
		plural(sum.Errors, "error", "errors"),
		plural(sum.Warnings, "warning", "warnings"),
		plural(sum.Infos, "info", "infos"),
		scope)
	if sum.Fixable > 0 {
		fmt.Fprintf(&b, "; %d fixable", sum.Fixable)
		if fixCommand != "" {
			b.WriteString(": run " + fixCommand)
		}
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
