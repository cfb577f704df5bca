package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/english"
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
		if !listedInText(f, opt.Verbose) {
			continue
		}
		ew.printf("%s\n", textLine(f, opt))
		if opt.Verbose && f.Detail != "" {
			for _, l := range strings.Split(f.Detail, "\n") {
				ew.printf("    %s\n", Sanitize(l))
			}
		}
	}
	ew.printf("%s\n", summaryLine(sum, opt.FixCommand, opt.Verbose))
	return ew.err
}

// textLine is one finding as the text format prints it, without the
// newline. Without -v a line longer than maxTextLine is shortened: first
// the kustomize roots (the first named, the others counted; a root that is
// the file's own directory said so), then the message, cut after the
// clauses that fit (fitMessage). The json and sarif formats, and -v, have
// it all.
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
	head := fmt.Sprintf("%s: %s %s: %s", pos, sev, Sanitize(f.Rule), res)
	msg := Sanitize(f.Message)
	roots := rootsText(f.Roots, rootsFull, "")
	if opt.Verbose || visibleLen(head)+len(msg)+len(fixable)+len(roots) <= maxTextLine {
		return head + msg + fixable + roots
	}
	// Shorter roots, as far as that lets the message fit whole; else the
	// short form, and the message cut.
	for _, form := range []rootsForm{rootsShort, rootsCounted} {
		if r := rootsText(f.Roots, form, filepath.Dir(f.File)); visibleLen(head)+len(msg)+len(fixable)+len(r) <= maxTextLine {
			return head + msg + fixable + r
		}
	}
	roots = rootsText(f.Roots, rootsShort, filepath.Dir(f.File))
	return head + fitMessage(msg, maxTextLine-visibleLen(head)-len(fixable)-len(roots)) + fixable + roots
}

// rootsForm is how fully rootsText names the roots.
type rootsForm int

const (
	rootsFull    rootsForm = iota // every root
	rootsShort                    // the first, the others counted; the file's own directory said so
	rootsCounted                  // only how many
)

// rootsText is " (kustomize root a)" or " (kustomize roots a, b)" in
// form; dir is the finding's file's directory.
func rootsText(roots []string, form rootsForm, dir string) string {
	switch {
	case len(roots) == 0:
		return ""
	case form == rootsCounted && len(roots) == 1:
		return " (1 kustomize root)"
	case form == rootsCounted:
		return fmt.Sprintf(" (%d kustomize roots)", len(roots))
	case len(roots) == 1 && form == rootsShort && filepath.Clean(roots[0]) == dir:
		return " (kustomize root: the file's directory)"
	case len(roots) == 1:
		return " (kustomize root " + Sanitize(roots[0]) + ")"
	case form == rootsShort:
		return fmt.Sprintf(" (kustomize roots %s and %d more)", Sanitize(roots[0]), len(roots)-1)
	}
	return " (kustomize roots " + Sanitize(strings.Join(roots, ", ")) + ")"
}

// maxTextLine is how long a line of text output gets without -v.
const maxTextLine = 300

// elided stands for the middle of a message fitMessage shortened.
const elided = " … "

// fitMessage is msg in at most room bytes: whole when it fits, else its
// start (a message leads with its cause) and, when short enough, its last
// clause (the fix: "quote it", "remove it"), the middle elided. lint -v
// prints it whole.
func fitMessage(msg string, room int) string {
	if len(msg) <= room {
		return msg
	}
	tail := ""
	if i := max(strings.LastIndex(msg, "; "), strings.LastIndex(msg, ": ")); i > 0 && len(msg)-i-2 <= room/2 {
		tail = msg[i+2:]
	}
	keep := max(room-len(elided)-len(tail), 0)
	cut := strings.LastIndex(msg[:keep], " ")
	if cut <= 0 || keep-cut > 30 { // a long word (a URL): cut inside it
		cut = keep
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
	}
	return strings.TrimRight(msg[:cut], ",;: ") + strings.TrimRight(elided+tail, " ")
}

// visibleLen is the length of s without its ANSI colour sequences.
func visibleLen(s string) int {
	n := len(s)
	for _, c := range []string{ansiReset, ansiBold, ansiRed, ansiYellow, ansiCyan} {
		n -= strings.Count(s, c) * len(c)
	}
	return n
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
//	0 errors, 0 warnings, 0 infos in 26 files (29 resources); 6 applications not rendered: 6 Helm releases (shipshape -v lists them)
//
// It never says "no problems" when an application was not rendered.
func summaryLine(sum Summary, fixCommand string, verbose bool) string {
	if sum.Shard != "" {
		// A shard's line says so, lest its counts be read as the run's.
		return "shard " + sum.Shard + ": " + wholeSummaryLine(sum, fixCommand, verbose)
	}
	return wholeSummaryLine(sum, fixCommand, verbose)
}

// wholeSummaryLine is summaryLine without the shard.
func wholeSummaryLine(sum Summary, fixCommand string, verbose bool) string {
	scope := fmt.Sprintf("in %s (%s)", english.Count(sum.Files, "file", "files"), english.Count(sum.Resources, "resource", "resources"))
	if sum.Errors == 0 && sum.Warnings == 0 && sum.Infos == 0 && sum.NotRenderedTotal() == 0 {
		return "no problems " + scope
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s, %s %s",
		english.Count(sum.Errors, "error", "errors"),
		english.Count(sum.Warnings, "warning", "warnings"),
		english.Count(sum.Infos, "info", "infos"),
		scope)
	if sum.Fixable > 0 {
		fmt.Fprintf(&b, "; %d fixable", sum.Fixable)
		if fixCommand != "" {
			b.WriteString(": run " + fixCommand)
		}
	}
	if n := sum.NotRenderedTotal(); n > 0 {
		fmt.Fprintf(&b, "; %s not rendered: %s", english.Count(n, "application", "applications"), notRenderedText(sum.NotRendered))
		if sum.Unlisted > 0 && !verbose {
			b.WriteString(" (shipshape -v lists them)")
		}
	}
	return b.String()
}

// notRenderedText is "10 Helm releases, 2 remote bases": the kinds, most
// first.
func notRenderedText(by map[analysis.Unrendered]int) string {
	kinds := make([]analysis.Unrendered, 0, len(by))
	for k := range by {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b analysis.Unrendered) int {
		if by[a] != by[b] {
			return by[b] - by[a]
		}
		return int(a) - int(b)
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = k.Plural(by[k])
	}
	return strings.Join(parts, ", ")
}
