// Command shipshape lints and fixes Kubernetes manifests before they are
// applied. This package only parses flags, calls the engine and prints.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/gcpace"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes are part of the interface: CI and hooks branch on them.
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
)

const usage = `shipshape lints and fixes Kubernetes manifests before they are applied.

Usage:
  shipshape lint [flags] [PATH...]     report problems (exit 1 at or above --fail-on)
  shipshape fix [flags] [PATH...]      apply every safe fix in place (--diff, --check)
  shipshape fn                         run as a KRM function (ResourceList on stdin)
  shipshape plugin install [--dir DIR] install as a kustomize exec plugin (kubectl kustomize)
  shipshape rules                      list the rules
  shipshape explain RULE               show a rule's documentation
  shipshape version                    print the version, VCS revision and Go version
  shipshape completion SHELL           print a completion script (bash, zsh, fish, powershell)
  shipshape help [COMMAND]             show this overview or a command's help

PATH is a file, a directory (searched for *.yaml and *.yml) or - for stdin;
the default is the current directory. Run "shipshape help COMMAND" (or
"shipshape COMMAND --help") for a command's flags, examples and exit codes.

Exit codes: 0 no finding at or above --fail-on, 1 findings at or above it,
2 usage or configuration error.
`

func main() {
	_, gogc := os.LookupEnv("GOGC")
	_, limit := os.LookupEnv("GOMEMLIMIT")
	if !gogc && !limit {
		gcpace.Start(gcpace.Budget, gcpace.Ratio)
	}
	// Called by another name (a copy or symlink): see plugin.go.
	switch argv0Command(os.Args[0]) {
	case "plugin-exec":
		os.Exit(runPluginExec(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	case "fn":
		os.Exit(runFn(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "lint":
		return runLint(rest, stdin, stdout, stderr)
	case "fix":
		return runFix(rest, stdin, stdout, stderr)
	case "fn":
		return runFn(rest, stdin, stdout, stderr)
	case "plugin":
		return runPlugin(rest, stdout, stderr)
	case "plugin-exec":
		return runPluginExec(rest, stdin, stdout, stderr)
	case "rules":
		return runRules(rest, stdout, stderr)
	case "explain":
		return runExplain(rest, stdout, stderr)
	case "version", "--version":
		return runVersion(rest, stdout, stderr)
	case "completion":
		return runCompletion(rest, stdout, stderr)
	case "help":
		return runHelp(rest, stdin, stdout, stderr)
	case "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "shipshape: unknown command %q\n\n%s", cmd, usage)
	return exitUsage
}

// usageError prints err and returns the usage exit code; config errors
// are usage errors too, so CI can tell them from findings.
func usageError(stderr io.Writer, err error) int {
	var ce *config.Error
	if errors.As(err, &ce) {
		fmt.Fprintf(stderr, "shipshape: config: %v\n", err)
	} else {
		fmt.Fprintf(stderr, "shipshape: %v\n", err)
	}
	return exitUsage
}
