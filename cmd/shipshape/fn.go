package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/krm"
)

const fnHelp = `Usage: shipshape fn < ResourceList

Runs shipshape as a KRM function (kustomize transformers via exec, kpt fn eval
--exec, kpt fn render). The functionConfig is a ShipshapeConfig (spec.mode: lint
or fix) or a ConfigMap with flat keys (mode, failOn, enable, disable, ...).
Findings become results; those at or above failOn are also printed to stderr
and make the exit code 1. The ResourceList is always written.
`

func runFn(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// kustomize's legacy exec plugins pass the config file as an argument;
	// KRM functions get none. Flags other than help are not expected.
	for _, a := range args {
		if a == "-h" || a == "--help" {
			fmt.Fprint(stdout, fnHelp)
			return exitOK
		}
	}
	out, err := krm.Run(stdin, stdout)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return usageError(stderr, err)
		}
		fmt.Fprintf(stderr, "shipshape fn: %v\n", err)
		return exitFindings
	}
	for _, f := range out.Failing {
		loc := f.File
		if f.Resource.Kind != "" {
			loc += " " + f.Resource.Kind + "/" + f.Resource.Name
		}
		fmt.Fprintf(stderr, "%s: %s %s: %s\n", loc, f.Severity, f.Rule, f.Message)
	}
	if len(out.Failing) > 0 {
		return exitFindings
	}
	return exitOK
}
