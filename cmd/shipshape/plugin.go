package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/fixer"
	"github.com/shipshape-dev/shipshape/internal/krm"
	"github.com/shipshape-dev/shipshape/internal/manifest"
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

const pluginHelp = `Usage: shipshape plugin install [--dir DIR] [--symlink]

Installs shipshape as a kustomize legacy exec plugin, the kind of plugin that
"kubectl kustomize --enable-alpha-plugins" runs, at

  DIR/shipshape.dev/v1alpha1/shipshapeconfig/ShipshapeConfig

DIR defaults to $KUSTOMIZE_PLUGIN_HOME, else $XDG_CONFIG_HOME/kustomize/plugin,
else ~/.config/kustomize/plugin (where kustomize looks). The plugin is a copy
of this binary, or with --symlink a symbolic link to it. A kustomization then
lists a ShipshapeConfig (without a config.kubernetes.io/function annotation)
under transformers:.
`

func runPlugin(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, pluginHelp)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] != "install" {
		fmt.Fprintf(stderr, "shipshape plugin: unknown subcommand %q\n\n%s", args[0], pluginHelp)
		return exitUsage
	}
	var dir string
	var symlink bool
	fs := newFlagSet("plugin install", "plugin install [--dir DIR] [--symlink]", stderr)
	fs.StringVar(&dir, "dir", "", "kustomize plugin home (default $KUSTOMIZE_PLUGIN_HOME, $XDG_CONFIG_HOME/kustomize/plugin or ~/.config/kustomize/plugin)")
	fs.BoolVar(&symlink, "symlink", false, "install a symbolic link to this binary instead of a copy")
	if err := fs.Parse(args[1:]); err != nil {
		return exitUsage
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

const pluginExecHelp = `Usage: shipshape plugin-exec CONFIG-FILE < YAML-STREAM

The kustomize legacy exec plugin protocol (see shipshape plugin install):
CONFIG-FILE is a ShipshapeConfig (spec.mode: lint or fix); the resources are a
YAML stream on stdin. lint writes the stream back unchanged, fix writes it
with the safe fixes applied (only the bytes that must change). Findings at or
above spec.failOn (error by default) are printed on stderr and exit 1.
`

// runPluginExec serves one call of the legacy exec plugin protocol.
func runPluginExec(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, pluginExecHelp)
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
		fmt.Fprint(stderr, pluginExecHelp)
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
		fmt.Fprintln(stderr, krm.Describe(f))
	}
	fmt.Fprintln(stderr, krm.Summary(failing, failOn, mode))
	return exitFindings
}
