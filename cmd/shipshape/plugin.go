package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/fixer"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/report"
	"github.com/shipshape-dev/shipshape/rules"
)

// kustomize's legacy exec plugins (the only kind `kubectl kustomize` runs)
// live at $KUSTOMIZE_PLUGIN_HOME/<group>/<version>/<lowercased kind>/<Kind>
// and are called as `PLUGIN CONFIG-FILE` with the resources as a YAML
// stream on stdin; the transformed stream is read from stdout. shipshape
// serves that protocol when it is called by the name of its config kind
// (the installed copy or symlink) or as `shipshape plugin-exec CONFIG-FILE`.
const (
	pluginGroup   = "shipshape.dev"
	pluginVersion = "v1alpha1"
)

// pluginRelPath is the plugin's path below the plugin home.
var pluginRelPath = filepath.Join(pluginGroup, pluginVersion, strings.ToLower(config.Kind), config.Kind)

func runPlugin(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprintf(stderr, "shipshape plugin: no subcommand (the one is install); run 'shipshape plugin --help'\n")
		return exitUsage
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		writeHelp(stdout, cmdPlugin, pluginInstallFlags(new(string), new(bool), stderr))
		return exitOK
	case args[0] != "install":
		fmt.Fprintf(stderr, "shipshape plugin: unknown subcommand %q (the one is install); run 'shipshape plugin --help'\n", args[0])
		return exitUsage
	}
	var dir string
	var symlink bool
	fs := pluginInstallFlags(&dir, &symlink, stderr)
	if code, done := parseFlags(fs, args[1:], stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, fmt.Errorf("plugin install: unexpected argument %q", fs.Arg(0)))
	}
	if dir == "" {
		var err error
		if dir, err = defaultPluginHome(); err != nil {
			return usageError(stderr, err)
		}
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		fmt.Fprintf(stderr, "shipshape plugin install: cannot find this binary: %v\n", err)
		return exitFindings
	}
	dest := filepath.Join(dir, pluginRelPath)
	if err := installPlugin(exe, dest, symlink); err != nil {
		fmt.Fprintf(stderr, "shipshape plugin install: %v\n", err)
		return exitFindings
	}
	how := "copy of"
	if symlink {
		how = "symlink to"
	}
	fmt.Fprintf(stdout, "installed %s (%s %s)\n", dest, how, exe)
	if os.Getenv("KUSTOMIZE_PLUGIN_HOME") != "" && filepath.Clean(os.Getenv("KUSTOMIZE_PLUGIN_HOME")) != filepath.Clean(dir) {
		fmt.Fprintf(stdout, "note: KUSTOMIZE_PLUGIN_HOME is %s; kustomize will not look in %s\n", os.Getenv("KUSTOMIZE_PLUGIN_HOME"), dir)
	}
	return exitOK
}

// pluginInstallFlags is the flag set of plugin install.
func pluginInstallFlags(dir *string, symlink *bool, stderr io.Writer) *pflag.FlagSet {
	fs := newFlagSet(cmdPlugin, stderr)
	fs.StringVar(dir, "dir", "", "kustomize plugin home (default $KUSTOMIZE_PLUGIN_HOME, $XDG_CONFIG_HOME/kustomize/plugin or ~/.config/kustomize/plugin)")
	fs.BoolVar(symlink, "symlink", false, "install a symbolic link to this binary instead of a copy")
	return fs
}

// defaultPluginHome is where kustomize looks first, among the places it
// looks, that a user would set up.
func defaultPluginHome() (string, error) {
	if d := os.Getenv("KUSTOMIZE_PLUGIN_HOME"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "kustomize", "plugin"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("plugin install: no --dir and no home directory: %v", err)
	}
	return filepath.Join(home, ".config", "kustomize", "plugin"), nil
}

// installPlugin puts exe at dest atomically: a temporary file (or link)
// in dest's directory, renamed over dest.
func installPlugin(exe, dest string, symlink bool) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	tmp := dest + ".tmp" + fmt.Sprint(os.Getpid())
	os.Remove(tmp)
	if symlink {
		if err := os.Symlink(exe, tmp); err != nil {
			return err
		}
	} else if err := copyFile(exe, tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, dest); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// fnName is a name that makes shipshape run as `shipshape fn` without
// arguments, for callers that cannot pass any: `kustomize fn run
// --exec-path` takes a bare path. Link it: ln -s shipshape shipshape-fn.
const fnName = "shipshape-fn"

// argv0Command is the command shipshape runs when called by another name:
// plugin-exec as ShipshapeConfig (the name kustomize calls the installed
// legacy plugin by), fn as shipshape-fn; "" for any other name.
func argv0Command(argv0 string) string {
	switch strings.TrimSuffix(filepath.Base(argv0), ".exe") {
	case config.Kind:
		return "plugin-exec"
	case fnName:
		return "fn"
	}
	return ""
}

// runPluginExec serves one call of the legacy exec plugin protocol.
func runPluginExec(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		writeHelp(stdout, cmdPluginExec, nil)
		return exitOK
	}
	var cfg *config.Config
	var err error
	switch {
	case len(args) == 1:
		cfg, err = config.Load(args[0])
	case len(args) == 0 && os.Getenv("KUSTOMIZE_PLUGIN_CONFIG_STRING") != "":
		cfg, err = config.Parse([]byte(os.Getenv("KUSTOMIZE_PLUGIN_CONFIG_STRING")), "KUSTOMIZE_PLUGIN_CONFIG_STRING")
	default:
		fmt.Fprintf(stderr, "shipshape plugin-exec: want one CONFIG-FILE argument (or KUSTOMIZE_PLUGIN_CONFIG_STRING), got %d; run 'shipshape plugin-exec --help'\n", len(args))
		return exitUsage
	}
	if err != nil {
		return usageError(stderr, err)
	}
	eng, err := engine.New(rules.All(), cfg, nil, nil)
	if err != nil {
		return usageError(stderr, err)
	}
	src, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "shipshape: reading stdin: %v\n", err)
		return exitUsage
	}
	eng.Stdin = bytes.NewReader(src)
	eng.KeepSource = true
	res := eng.Run([]manifest.Input{{Path: manifest.Stdin, Explicit: true}})
	mode := cfg.Mode
	if mode == "" {
		mode = "lint"
	}
	out := src
	if mode == "fix" {
		// The same driver as shipshape fix -: the stream is the file.
		for _, o := range fixer.Files(eng, res, fixer.Options{DryRun: true}) {
			if o.Err != nil {
				fmt.Fprintf(stderr, "shipshape: cannot fix: %v\n", o.Err)
				stdout.Write(out)
				return exitFindings
			}
			if o.Changed() {
				out = o.Out
			}
		}
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "shipshape: writing stdout: %v\n", err)
		return exitFindings
	}
	return reportFailing(stderr, eng.FailOn().Failing(res.Findings), cfg.FailOn, mode)
}

// reportFailing prints findings that fail the run, one line each, and a
// summary; it returns the exit code.
func reportFailing(stderr io.Writer, failing []analysis.Finding, failOn, mode string) int {
	if len(failing) == 0 {
		return exitOK
	}
	for _, f := range failing {
		fmt.Fprintln(stderr, report.Describe(f))
	}
	fmt.Fprintln(stderr, report.FailingSummary(failing, failOn, mode))
	return exitFindings
}

// reportSummary prints only the summary of the findings that fail the run,
// for a caller that shows the findings themselves; it returns the exit code.
func reportSummary(stderr io.Writer, failing []analysis.Finding, failOn, mode string) int {
	if len(failing) == 0 {
		return exitOK
	}
	fmt.Fprintln(stderr, report.FailingSummary(failing, failOn, mode)+" (listed in the results)")
	return exitFindings
}
