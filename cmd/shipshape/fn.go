package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/krm"
	"github.com/shipshape-dev/shipshape/rules"
)

const fnHelp = `Usage: shipshape fn < ResourceList

Runs shipshape as a KRM function: kustomize transformers (exec), kustomize fn
run --exec-path, kpt fn eval --exec, kpt fn render --allow-exec.

The functionConfig is a ShipshapeConfig (apiVersion shipshape.dev/v1alpha1,
the same spec as .shipshape.yaml, plus spec.mode: lint or fix) or a ConfigMap
with flat keys: mode, failOn, enable, disable, exclude, <rule>.severity,
<rule>.enabled (what "kpt fn eval -- mode=fix" sends).

mode: lint (default) returns the items unchanged; mode: fix applies the safe
fixes to them. Findings become results. Findings at or above failOn (error by
default) are also printed on stderr, one line each, and make the exit code 1;
the ResourceList is written either way. Exit 2: bad functionConfig or input.
`

func runFn(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "--help" {
			fmt.Fprint(stdout, fnHelp)
			return exitOK
		}
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "shipshape fn: unexpected argument %q: the input is a ResourceList on stdin (for kustomize legacy exec plugins see shipshape plugin install)\n", args[0])
		return exitUsage
	}
	out, err := krm.Run(stdin, stdout, rules.All())
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return usageError(stderr, err)
		}
		fmt.Fprintf(stderr, "shipshape fn: %v\n", err)
		return exitUsage
	}
	return reportFailing(stderr, out.Failing, out.FailOn, out.Mode)
}
