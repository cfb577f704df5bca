package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

// Every command's --help and -h go to stdout with exit 0 and carry a
// description, examples and exit codes; `shipshape help CMD` prints the same.
func TestCommandHelp(t *testing.T) {
	for _, name := range append(commands, cmdPluginExec) {
		for _, flag := range []string{"--help", "-h"} {
			t.Run(string(name)+flag, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				if code := run([]string{string(name), flag}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
					t.Fatalf("exit %d, want 0; stderr: %s", code, stderr.String())
				}
				if stderr.Len() > 0 {
					t.Errorf("stderr is not empty: %s", stderr.String())
				}
				out := stdout.String()
				for _, want := range []string{"Usage: shipshape " + string(name), helps[name].description, "\nExamples:\n  ", "\nExit codes:\n  0  "} {
					if !strings.Contains(out, want) {
						t.Errorf("help lacks %q:\n%s", want, out)
					}
				}
				if name == cmdLint && !strings.Contains(out, "--fail-on") {
					t.Errorf("lint help lists no flags:\n%s", out)
				}
				if name == cmdHelp {
					return
				}
				var viaHelp bytes.Buffer
				if code := run([]string{"help", string(name)}, strings.NewReader(""), &viaHelp, &stderr); code != exitOK || viaHelp.String() != out {
					t.Errorf("shipshape help %s: exit %d, output differs from %s:\n%s", name, code, flag, viaHelp.String())
				}
			})
		}
	}
}

func TestHelpAndFlagErrors(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"help"}, exitOK, "shipshape completion SHELL", ""},
		{[]string{"--help"}, exitOK, "Exit codes:", ""},
		{[]string{"help", "nope"}, exitUsage, "", `unknown command "nope"`},
		{[]string{"lint", "--bogus"}, exitUsage, "", "shipshape lint: unknown flag: --bogus\nRun 'shipshape lint --help' for usage."},
		{[]string{"fix", "--fail-on"}, exitUsage, "", "flag needs an argument"},
		{[]string{"explain"}, exitUsage, "", "want one rule ID"},
		{[]string{"rules", "x"}, exitUsage, "", "takes no arguments"},
		{[]string{"plugin"}, exitUsage, "", "no subcommand"},
		{[]string{"completion", "tcsh"}, exitUsage, "", "want one of bash, zsh, fish, powershell"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("%q: exit %d (want %d)\nstdout: %s\nstderr: %s\nwant stdout %q, stderr %q", tt.args, code, tt.code, stdout.String(), stderr.String(), tt.stdout, tt.stderr)
		}
	}
}

func completionScript(t *testing.T, sh shell) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"completion", string(sh)}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("completion %s: exit %d: %s", sh, code, stderr.String())
	}
	return stdout.String()
}

// The bash script parses, and bash completes subcommands, flags, flag
// values, rule IDs and file names with it, as it would on a TAB.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	script := filepath.Join(t.TempDir(), "shipshape.bash")
	if err := os.WriteFile(script, []byte(completionScript(t, shellBash)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "deploy.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		line string // what is typed before TAB
		want string // COMPREPLY, space-separated
	}{
		{"shipshape ", "lint fix fn plugin rules explain version completion help"},
		{"shipshape l", "lint"},
		{"shipshape f", "fix fn"},
		{"shipshape lint --fo", "--format"},
		{"shipshape lint -f s", "sarif"},
		{"shipshape fix --ch", "--check --charts --chart-cache"},
		{"shipshape lint --fail-on w", "warning"},
		{"shipshape lint --render ", "auto none"},
		{"shipshape lint --disable daemonset-r", "daemonset-replicas"},
		{"shipshape explain ambig", "ambiguous-scalar"},
		{"shipshape completion p", "powershell"},
		{"shipshape help e", "explain"},
		{"shipshape plugin ", "install"},
		{"shipshape lint dep", "deploy.yaml"},
	}
	for _, tt := range tests {
		words := strings.Fields(tt.line)
		if strings.HasSuffix(tt.line, " ") {
			words = append(words, "")
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + w + "'"
		}
		prog := ". " + script + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" + string(rune('0'+len(words)-1)) +
			"\n_shipshape\necho \"${COMPREPLY[*]}\"\n"
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", tt.line, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != tt.want {
			t.Errorf("%q<TAB>: got %q, want %q", tt.line, got, tt.want)
		}
	}
}

// The zsh, fish and PowerShell scripts offer every subcommand and every
// flag of lint (their shells are not on the test machine: zsh -n runs when
// zsh is).
func TestOtherShellCompletions(t *testing.T) {
	for _, sh := range []shell{shellZsh, shellFish, shellPowerShell} {
		script := completionScript(t, sh)
		for _, name := range commands {
			if !strings.Contains(script, string(name)) {
				t.Errorf("%s script lacks the command %s", sh, name)
			}
		}
		for _, f := range []string{"format", "fail-on", "render", "diff", "check"} {
			if !strings.Contains(script, f) {
				t.Errorf("%s script lacks the flag %s", sh, f)
			}
		}
		if sh == shellZsh {
			if zsh, err := exec.LookPath("zsh"); err == nil {
				p := filepath.Join(t.TempDir(), "_shipshape")
				os.WriteFile(p, []byte(script), 0o644)
				if out, err := exec.Command(zsh, "-n", p).CombinedOutput(); err != nil {
					t.Errorf("zsh -n: %v\n%s", err, out)
				}
			}
		}
	}
}

func TestFailOnLevelsParse(t *testing.T) {
	for _, l := range failOnLevels {
		if _, err := analysis.ParseFailOn(l); err != nil {
			t.Errorf("completion offers --fail-on %s, which does not parse: %v", l, err)
		}
	}
}
