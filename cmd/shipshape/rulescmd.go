package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/rules"
)

func runRules(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(cmdRules, stderr)
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "shipshape rules: takes no arguments (got %q); run 'shipshape rules --help'\n", fs.Arg(0))
		return exitUsage
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tFIXABLE\tSUMMARY")
	for _, r := range known() {
		fixable := "no"
		if r.Fixable {
			fixable = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, fixable, r.Summary)
	}
	tw.Flush()
	return exitOK
}

func runExplain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(cmdExplain, stderr)
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "shipshape explain: want one rule ID, got %d arguments; run 'shipshape rules' for the IDs\n", fs.NArg())
		return exitUsage
	}
	var r *analysis.Rule
	for _, k := range known() {
		if k.ID == fs.Arg(0) {
			r = k
		}
	}
	if r == nil {
		fmt.Fprintf(stderr, "shipshape: unknown rule %q (see shipshape rules)\n", fs.Arg(0))
		return exitUsage
	}
	fmt.Fprint(stdout, analysis.Markdown(r))
	return exitOK
}

// known is every rule: shipshape's rules and the engine's own.
func known() []*analysis.Rule { return engine.WithBuiltin(rules.All()) }
