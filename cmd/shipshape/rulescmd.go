package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/shipshape-dev/shipshape/rules"
)

func runRules(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("rules", "rules", stderr)
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tFIXABLE\tSUMMARY")
	for _, r := range rules.All() {
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
	fs := newFlagSet("explain", "explain RULE", stderr)
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	r := rules.Get(fs.Arg(0))
	if r == nil {
		fmt.Fprintf(stderr, "shipshape: unknown rule %q (see shipshape rules)\n", fs.Arg(0))
		return exitUsage
	}
	fmt.Fprint(stdout, rules.Markdown(r))
	return exitOK
}
