package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/english"
	"github.com/shipshape-dev/shipshape/internal/fixer"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/report"
	"github.com/shipshape-dev/shipshape/internal/unidiff"
)

func runFix(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c commonFlags
	var diff, check bool
	var base string
	fs := fixFlags(&c, &diff, &check, stderr)
	registerBase(fs, &base)
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	ses, err := c.setup(fs.Args(), stdin)
	if err != nil {
		return usageError(stderr, err)
	}
	if err := ses.withBase(fs, base); err != nil {
		return usageError(stderr, err)
	}
	ses.useCache(stderr)
	defer ses.eng.Cache.Trim()
	// The whole walk comes first: files are rewritten (through temporary
	// files beside them) while the run goes on, and a walk still going
	// could find those.
	var walkErrs []manifest.WalkError
	inputs := slices.Collect(ses.inputs(&walkErrs))
	eng := ses.eng
	roots := fs.Args()
	if len(roots) == 0 {
		roots = []string{"."}
	}
	dryRun := diff || check

	// Messages go to stderr when the fixed stream itself is the output.
	msgs := stdout
	for _, in := range inputs {
		if in.Path == manifest.Stdin {
			msgs = stderr
		}
	}

	eng.KeepSource = true
	res := ses.run(slices.Values(inputs))
	outcomes := fixer.Files(eng, res, fixer.Options{DryRun: dryRun, Roots: roots})
	t := writeFixes(res, outcomes, diff, check, stdout, msgs)
	for _, o := range t.failures {
		fmt.Fprintf(stderr, "%s: cannot fix: %v\n", o.Path, o.Err)
	}
	left := append(walkFindings(walkErrs), res.Findings...)
	if !diff {
		sum := summarize(res, left)
		if len(left) > 0 {
			report.Write(msgs, "text", left, sum, eng.Rules(), report.Options{Color: colorOK(msgs)})
		}
		verb := fixVerb(check)
		fmt.Fprintln(msgs, report.FixTotals(verb, t.fixes, t.files, len(left)))
	}
	failing := ses.failOn.Failing(left)
	if diff && len(failing) > 0 {
		// stdout is the patch alone: say why the exit status is 1, with
		// the count lint and fix give.
		fmt.Fprintf(stderr, "%d %s left that this diff does not fix", len(left), english.Plural(len(left), "finding", "findings"))
		if len(failing) < len(left) {
			fmt.Fprintf(stderr, ", %d at --fail-on %s or above", len(failing), ses.failOn.Threshold)
		}
		fmt.Fprintln(stderr, " (shipshape lint lists them)")
	}
	switch {
	case check && t.changed, len(t.failures) > 0, len(failing) > 0:
		return exitFindings
	}
	return exitOK
}

// fixFlags is the flag set of fix.
func fixFlags(c *commonFlags, diff, check *bool, stderr io.Writer) *pflag.FlagSet {
	fs := newFlagSet(cmdFix, stderr)
	fs.BoolVar(diff, "diff", false, "print a unified diff of the fixes and write nothing")
	fs.BoolVar(check, "check", false, "write nothing; exit 1 when a fix would change a file")
	c.register(fs)
	return fs
}

// fixTally counts what writeFixes wrote: files changed, fixes applied,
// and the files that could not be fixed.
type fixTally struct {
	files, fixes int
	changed      bool
	failures     []*fixer.FileFix
}

// writeFixes writes each file's outcome in the order of res.Files: the
// fixed stream for stdin, a unified diff (--diff) or one line per fix
// (to msgs), and tallies them.
func writeFixes(res *engine.Result, outcomes []*fixer.FileFix, diff, check bool, stdout, msgs io.Writer) fixTally {
	var t fixTally
	byPath := map[string]*fixer.FileFix{}
	for _, o := range outcomes {
		byPath[o.Path] = o
	}

	for _, fr := range res.Files {
		o := byPath[fr.Input.Path]
		if fr.Input.Path == manifest.Stdin && fr.File != nil {
			// The fixed stream is the output, fixed or not.
			out := fr.File.Src
			if fr.File.BOM {
				out = append([]byte("\xef\xbb\xbf"), out...)
			}
			if o != nil && o.Changed() {
				out = o.Out
			}
			stdout.Write(out)
		}
		if o == nil {
			continue
		}
		if o.Err != nil {
			t.failures = append(t.failures, o)
			continue
		}
		if !o.Changed() {
			continue
		}
		t.changed = true
		t.files++
		t.fixes += len(o.Applied)
		if diff {
			// An absolute path loses its leading slash, as git diff
			// --no-index writes /tmp/x: git apply rejects "a//tmp/x" as an
			// invalid path, and applies "a/tmp/x" with -p1 from /.
			name := strings.TrimLeft(filepath.ToSlash(o.Path), "/")
			fmt.Fprint(stdout, unidiff.Unified("a/"+name, "b/"+name, string(o.Orig), string(o.Out)))
			continue
		}
		verb := fixVerb(check)
		for _, fd := range o.Applied {
			fmt.Fprintln(msgs, report.FixedLine(verb, fd))
		}
	}
	return t
}

// fixVerb is how a fix is reported: done, or (--check) only found.
func fixVerb(check bool) string {
	if check {
		return "would fix"
	}
	return "fixed"
}
