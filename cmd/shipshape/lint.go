package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/report"
)

func runLint(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c commonFlags
	var format string
	var verbose bool
	var base, shardFlag string
	fs := lintFlags(&c, &format, &verbose, stderr)
	registerBase(fs, &base)
	registerShard(fs, &shardFlag)
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	part, err := parseShard(fs, shardFlag)
	if err != nil {
		return usageError(stderr, err)
	}
	if !slices.Contains(report.Formats(), format) {
		return usageError(stderr, fmt.Errorf("--format: unknown format %q (want one of %v)", format, report.Formats()))
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
	var walkErrs []manifest.WalkError
	res := ses.run(ses.inputs(&walkErrs))
	findings, err := part.keep(append(walkFindings(walkErrs), res.Findings...))
	if err != nil {
		return usageError(stderr, err)
	}
	sum := summarize(res, findings)
	sum.Shard = part.label()
	opt := report.Options{Color: colorOK(stdout), FixCommand: fixCommand(fs, base), Verbose: verbose}
	if format == report.FormatSARIF {
		opt.ToolVersion = toolVersion()
	}
	if err := report.Write(stdout, format, findings, sum, ses.eng.Rules(), opt); err != nil {
		fmt.Fprintf(stderr, "shipshape: %v\n", err)
		return exitUsage
	}
	if len(ses.failOn.Failing(findings)) > 0 {
		return exitFindings
	}
	return exitOK
}

// lintFlags is the flag set of lint.
func lintFlags(c *commonFlags, format *string, verbose *bool, stderr io.Writer) *pflag.FlagSet {
	fs := newFlagSet(cmdLint, stderr)
	fs.StringVarP(format, "format", "f", "text", "output format: "+strings.Join(report.Formats(), ", "))
	fs.BoolVarP(verbose, "verbose", "v", false, "text format: messages whole (a line can exceed 300 characters), every kustomize root, and each finding's detail (kustomize's whole error) below it")
	c.register(fs)
	return fs
}

func summarize(res *engine.Result, findings []analysis.Finding) report.Summary {
	sum := report.Count(findings)
	sum.Files = len(res.Files)
	sum.Resources = res.Resources
	return sum
}
