package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// commandName is a subcommand as typed after "shipshape".
type commandName string

const (
	cmdLint       commandName = "lint"
	cmdFix        commandName = "fix"
	cmdFn         commandName = "fn"
	cmdPlugin     commandName = "plugin"
	cmdPluginExec commandName = "plugin-exec"
	cmdRules      commandName = "rules"
	cmdExplain    commandName = "explain"
	cmdVersion    commandName = "version"
	cmdCompletion commandName = "completion"
	cmdHelp       commandName = "help"
)

// commandHelp is what `shipshape CMD --help` prints around the flags.
type commandHelp struct {
	synopsis    string // after "Usage: shipshape "
	description string
	examples    []string
	exitCodes   []string // "N  meaning"
}

// commands lists the subcommands in the order the overview and the
// completion scripts show them; plugin-exec is left out of both (kustomize
// calls it, people do not) but has its help.
var commands = []commandName{cmdLint, cmdFix, cmdFn, cmdPlugin, cmdRules, cmdExplain, cmdVersion, cmdCompletion, cmdHelp}

var exitUsageLine = "2  usage or configuration error (bad flag, unknown rule, invalid config)"

var helps = map[commandName]commandHelp{
	cmdLint: {
		synopsis: "lint [flags] [PATH...]",
		description: `Reports problems in Kubernetes manifests at file:line:column. PATH is a file, a
directory (searched for *.yaml and *.yml) or - for stdin; the default is the
current directory. Kustomize roots are rendered in-process and their objects
judged; each finding points at the line that produced the value. With --base
REF the change since REF is judged too (updates the API server will refuse),
reading REF from the repository's objects (docs/base.md).`,
		examples: []string{
			"shipshape lint                                  # the current directory",
			"shipshape lint --base origin/main .             # and the change since main",
			"shipshape lint --format github .                # GitHub Actions annotations",
			"shipshape lint --format sarif . > shipshape.sarif",
			"helm template ./chart | shipshape lint -        # rendered output on stdin",
		},
		exitCodes: []string{"0  no finding at or above --fail-on", "1  findings at or above --fail-on (error by default)", exitUsageLine},
	},
	cmdFix: {
		synopsis: "fix [flags] [PATH...]",
		description: `Applies every safe fix in place, changing only the bytes a fix needs (comments
and layout kept), then reports what is left. With - the fixed stream is
written to stdout. --diff prints a unified diff and writes nothing; --check
writes nothing and fails when a fix would change a file.`,
		examples: []string{
			"shipshape fix .",
			"shipshape fix --diff examples/gitops-repo      # review first",
			"shipshape fix --check .                        # CI: fail when a safe fix was not applied",
		},
		exitCodes: []string{"0  nothing left at or above --fail-on (and, with --check, nothing to fix)",
			"1  findings left at or above --fail-on, a file could not be fixed, or --check found a fix", exitUsageLine},
	},
	cmdFn: {
		synopsis: "fn < RESOURCE-LIST",
		description: `Runs shipshape as a KRM function: kustomize transformers (exec), kustomize fn
run --exec-path, kpt fn eval --exec, kpt fn render --allow-exec.

The functionConfig is a ShipshapeConfig (apiVersion shipshape.dev/v1alpha1,
the same spec as .shipshape.yaml, plus spec.mode: lint or fix) or a ConfigMap
with flat keys: mode, failOn, enable, disable, exclude, <rule>.severity,
<rule>.enabled (what "kpt fn eval -- mode=fix" sends).

mode: lint (default) returns the items unchanged; mode: fix applies the safe
fixes to them. Findings become results; the ResourceList is written either
way. kustomize discards results, so the findings at or above failOn are also
printed on stderr, one line each; under kpt, which prints the results, stderr
has only the summary line.`,
		examples: []string{
			`kpt fn eval DIR --exec "shipshape fn" -o unwrap -- mode=fix`,
			"kustomize build --enable-alpha-plugins --enable-exec DIR   # a ShipshapeConfig under transformers:",
		},
		exitCodes: []string{"0  no finding at or above failOn", "1  findings at or above failOn (error by default)", "2  bad functionConfig or input"},
	},
	cmdPlugin: {
		synopsis: "plugin install [--dir DIR] [--symlink]",
		description: `Installs shipshape as a kustomize legacy exec plugin, the kind of plugin that
"kubectl kustomize --enable-alpha-plugins" runs, at

  DIR/shipshape.dev/v1alpha1/shipshapeconfig/ShipshapeConfig

DIR defaults to $KUSTOMIZE_PLUGIN_HOME, else $XDG_CONFIG_HOME/kustomize/plugin,
else ~/.config/kustomize/plugin (where kustomize looks). The plugin is a copy
of this binary, or with --symlink a symbolic link to it. A kustomization then
lists a ShipshapeConfig (without a config.kubernetes.io/function annotation)
under transformers:.`,
		examples: []string{
			"shipshape plugin install",
			"kubectl kustomize --enable-alpha-plugins kustomize-plugin/legacy/check",
		},
		exitCodes: []string{"0  installed", "1  the binary could not be found or written", exitUsageLine},
	},
	cmdPluginExec: {
		synopsis: "plugin-exec CONFIG-FILE < YAML-STREAM",
		description: `The kustomize legacy exec plugin protocol (see shipshape plugin install):
CONFIG-FILE is a ShipshapeConfig (spec.mode: lint or fix); the resources are a
YAML stream on stdin. lint writes the stream back unchanged, fix writes it
with the safe fixes applied (only the bytes that must change). Findings at or
above spec.failOn (error by default) are printed on stderr.`,
		examples:  []string{"shipshape plugin-exec shipshape.yaml < resources.yaml"},
		exitCodes: []string{"0  no finding at or above spec.failOn", "1  findings at or above spec.failOn", exitUsageLine},
	},
	cmdRules: {
		synopsis:    "rules",
		description: "Lists every rule: its ID, default severity, whether it has a safe fix, and what it catches.",
		examples:    []string{"shipshape rules"},
		exitCodes:   []string{"0  always, unless the arguments are wrong", exitUsageLine},
	},
	cmdExplain: {
		synopsis:    "explain RULE",
		description: "Shows a rule's documentation in Markdown, with a bad and a good example.",
		examples:    []string{"shipshape explain ambiguous-scalar"},
		exitCodes:   []string{"0  the rule exists", "2  no rule RULE, or not exactly one argument"},
	},
	cmdVersion: {
		synopsis:    "version",
		description: "Prints the version, the VCS revision it was built from (and whether the work tree had changes) and the Go version.",
		examples:    []string{"shipshape version"},
		exitCodes:   []string{"0  always, unless given arguments", "2  an argument was given"},
	},
	cmdCompletion: {
		synopsis: "completion bash|zsh|fish|powershell",
		description: `Prints a shell completion script for subcommands, flags, flag values and rule
IDs. Load it in the current shell or install it where the shell looks.`,
		examples: []string{
			"source <(shipshape completion bash)                       # bash, this shell",
			`shipshape completion zsh > "${fpath[1]}/_shipshape"       # zsh`,
			"shipshape completion fish > ~/.config/fish/completions/shipshape.fish",
			"shipshape completion powershell | Out-String | Invoke-Expression",
		},
		exitCodes: []string{"0  the script was printed", "2  no shell, or an unknown one"},
	},
	cmdHelp: {
		synopsis:    "help [COMMAND]",
		description: "Shows the overview, or a command's help (the same as shipshape COMMAND --help).",
		examples:    []string{"shipshape help lint"},
		exitCodes:   []string{"0  help was printed", "2  unknown command"},
	},
}

// writeHelp prints a command's help; fs, when not nil, supplies the flags.
func writeHelp(w io.Writer, name commandName, fs *pflag.FlagSet) {
	h := helps[name]
	fmt.Fprintf(w, "Usage: shipshape %s\n\n%s\n", h.synopsis, h.description)
	if fs != nil && fs.HasFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", fs.FlagUsages())
	}
	fmt.Fprintf(w, "\nExamples:\n")
	for _, e := range h.examples {
		fmt.Fprintf(w, "  %s\n", e)
	}
	fmt.Fprintf(w, "\nExit codes:\n")
	for _, e := range h.exitCodes {
		fmt.Fprintf(w, "  %s\n", e)
	}
}

// newFlagSet is a command's flag set; parseFlags handles --help and errors.
func newFlagSet(name commandName, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(string(name), pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.Usage = func() {} // parseFlags says what to do instead of printing every flag
	return fs
}

// parseFlags parses args into fs. done reports that the command is over
// with exit code code: after --help or -h (the help on stdout, exit 0), or
// a bad flag (pflag's message and a pointer to --help on stderr, exit 2).
func parseFlags(fs *pflag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	name := commandName(fs.Name())
	err := fs.Parse(args)
	switch {
	case err == nil:
		return exitOK, false
	case errors.Is(err, pflag.ErrHelp):
		writeHelp(stdout, name, fs)
		return exitOK, true
	}
	// pflag prints nothing itself with ContinueOnError.
	cmd := strings.Fields(helps[name].synopsis)[0]
	fmt.Fprintf(stderr, "shipshape %s: %v\nRun 'shipshape %s --help' for usage.\n", cmd, err, cmd)
	return exitUsage, true
}

// wantsHelp reports whether args ask for help, for the commands without a
// flag set (fn, plugin-exec, version).
func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "--help" {
			return true
		}
	}
	return false
}

// runHelp is `shipshape help [COMMAND]`.
func runHelp(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage)
		return exitOK
	case wantsHelp(args):
		writeHelp(stdout, cmdHelp, nil)
		return exitOK
	case len(args) > 1:
		fmt.Fprintf(stderr, "shipshape help: one command at most, got %q\n", args)
		return exitUsage
	}
	name := commandName(args[0])
	if _, ok := helps[name]; !ok {
		fmt.Fprintf(stderr, "shipshape help: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	if name == cmdHelp {
		writeHelp(stdout, name, nil)
		return exitOK
	}
	// The command prints its own help, with its flags.
	return run([]string{args[0], "--help"}, stdin, stdout, stderr)
}
