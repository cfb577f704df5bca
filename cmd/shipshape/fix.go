package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"

	"github.com/aymanbagabas/go-udiff"

	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/fixer"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/report"
	"github.com/shipshape-dev/shipshape/rules"
)

func runFix(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c commonFlags
	var diff, check bool
	fs := newFlagSet("fix", "fix [flags] [PATH...]", stderr)
	fs.BoolVar(&diff, "diff", false, "print a unified diff of the fixes and write nothing")
	fs.BoolVar(&check, "check", false, "write nothing; exit 1 when a fix would change a file")
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	ses, err := c.setup(fs.Args(), stdin)
	if err != nil {
		return usageError(stderr, err)
	}
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

	var mu sync.Mutex
	outcomes := map[string]*fixer.Outcome{}
	res := eng.Run(inputs, func(fr *engine.FileResult) {
		o := fixer.Fix(eng, fr)
		if o.Changed() && !dryRun && fr.Input.Path != manifest.Stdin {
			snap, err := fixer.Take(fr.Input.Path, o.Orig)
			if err == nil {
				err = fixer.WriteFile(fr.Input.Path, o.Out, snap, roots)
			}
			if err != nil {
				o.Err = err
				o.Remaining = fr.Findings
			}
		}
		if o.Err != nil {
			o.Applied = nil
		}
		fr.Findings = o.Remaining
		mu.Lock()
		outcomes[fr.Input.Path] = o
		mu.Unlock()
	})

	// Cross-resource fixes (LWS ordering) can touch objects in any file and
	// arrive after the per-file pass: a second pass over the files they
	// concern applies them (internal/fixer/plan.go).
	crossFailures := fixer.CrossFix(eng, res, outcomes, fixer.CrossOptions{DryRun: dryRun, Roots: roots})

	fixedFiles, fixedCount, changed := 0, 0, false
	failures := crossFailures
	for _, fr := range res.Files {
		o := outcomes[fr.Input.Path]
		if o == nil {
			continue
		}
		if fr.Input.Path == manifest.Stdin {
			stdout.Write(o.Out)
		}
		if o.Err != nil {
			failures = append(failures, rules.Finding{Rule: "fix", Severity: rules.Error, File: o.Path, Message: "cannot fix: " + o.Err.Error(), Doc: -1})
			continue
		}
		if !o.Changed() {
			continue
		}
		changed = true
		fixedFiles++
		fixedCount += len(o.Applied)
		if diff {
			name := filepath.ToSlash(o.Path)
			fmt.Fprint(stdout, udiff.Unified("a/"+name, "b/"+name, string(o.Orig), string(o.Out)))
			continue
		}
		verb := "fixed"
		if check {
			verb = "would fix"
		}
		for _, fd := range o.Applied {
			line := fmt.Sprintf("%s %s:%d: %s", verb, fd.File, fd.Line, fd.Rule)
			if r := fd.Resource.Label(); r != "" {
				line += ": " + r
			}
			fmt.Fprintln(msgs, report.Sanitize(line))
		}
	}
	for _, f := range failures {
		fmt.Fprintf(stderr, "%s: %s\n", f.File, f.Message)
	}
	left := append(walkFindings(walkErrs), res.Findings...)
	if !diff {
		sum := summarize(res, left)
		if len(left) > 0 {
			report.Write(msgs, "text", left, sum, rules.All(), report.Options{Color: colorOK(msgs)})
		}
		verb := "fixed"
		if check {
			verb = "would fix"
		}
		fmt.Fprintf(msgs, "%s %d %s in %d %s; %d left\n", verb, fixedCount, plural(fixedCount, "finding"), fixedFiles, plural(fixedFiles, "file"), len(left))
	}
	switch {
	case check && changed, len(failures) > 0, failing(left, ses.threshold, ses.never):
		return exitFindings
	}
	return exitOK
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
