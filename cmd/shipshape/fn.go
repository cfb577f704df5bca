package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/krm"
	"github.com/shipshape-dev/shipshape/rules"
)

func runFn(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		writeHelp(stdout, cmdFn, nil)
		return exitOK
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "shipshape fn: unexpected argument %q: the input is a ResourceList on stdin (for kustomize legacy exec plugins see shipshape plugin install)\n", args[0])
		return exitUsage
	}
	src, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "shipshape fn: reading stdin: %v\n", err)
		return exitUsage
	}
	out, err := krm.RunBytes(src, stdout, rules.All())
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return usageError(stderr, err)
		}
		fmt.Fprintf(stderr, "shipshape fn: %v\n", err)
		return exitUsage
	}
	if krm.ShowsResults(src) {
		// kpt prints the results: the summary alone keeps each finding once.
		return reportSummary(stderr, out.Failing, out.FailOn, out.Mode)
	}
	return reportFailing(stderr, out.Failing, out.FailOn, out.Mode)
}
