package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/shipshape-dev/shipshape/internal/report"
)

// shell is a shell `shipshape completion` writes a script for.
type shell string

const (
	shellBash       shell = "bash"
	shellZsh        shell = "zsh"
	shellFish       shell = "fish"
	shellPowerShell shell = "powershell"
)

// failOnLevels are the values analysis.ParseFailOn accepts (a test holds
// them to it).
var failOnLevels = []string{"error", "warning", "info", "none"}

var shells = []shell{shellBash, shellZsh, shellFish, shellPowerShell}

// completionFlag is one flag as the scripts complete it.
type completionFlag struct {
	long, short string
	usage       string
	takesValue  bool
	values      []string // the values to offer; none: any text
	file        bool     // the value is a file name
}

// completionCommand is what the scripts offer after a subcommand.
type completionCommand struct {
	name  commandName
	flags []completionFlag
	args  []string // words to offer as arguments; none with pathArgs: file names
	paths bool
}

// completionSpecs derives what to complete from the commands' real flag
// sets, so a new flag is completed without touching the scripts.
func completionSpecs() []completionCommand {
	var c commonFlags
	var s string
	var b, b2 bool
	flagsOf := map[commandName]*pflag.FlagSet{
		cmdLint:   lintFlags(&c, &s, &b, io.Discard),
		cmdFix:    fixFlags(&c, &b, &b2, io.Discard),
		cmdPlugin: pluginInstallFlags(&s, &b, io.Discard),
	}
	values := map[string][]string{
		"format":  report.Formats(),
		"fail-on": failOnLevels,
		"render":  {"auto", "none"},
		"enable":  ruleIDs(),
		"disable": ruleIDs(),
	}
	var out []completionCommand
	for _, name := range commands {
		cc := completionCommand{name: name}
		if fs := flagsOf[name]; fs != nil {
			fs.VisitAll(func(f *pflag.Flag) {
				cc.flags = append(cc.flags, completionFlag{
					long: f.Name, short: f.Shorthand, usage: f.Usage,
					takesValue: f.NoOptDefVal == "" && f.Value.Type() != "bool",
					values:     values[f.Name],
					file:       f.Name == "config" || f.Name == "dir",
				})
			})
		}
		cc.flags = append(cc.flags, completionFlag{long: "help", short: "h", usage: "show this command's help"})
		switch name {
		case cmdLint, cmdFix:
			cc.paths = true
		case cmdPlugin:
			cc.args = []string{"install"}
		case cmdExplain:
			cc.args = ruleIDs()
		case cmdCompletion:
			for _, sh := range shells {
				cc.args = append(cc.args, string(sh))
			}
		case cmdHelp:
			for _, n := range commands {
				cc.args = append(cc.args, string(n))
			}
		}
		out = append(out, cc)
	}
	return out
}

func ruleIDs() []string {
	var ids []string
	for _, r := range known() {
		ids = append(ids, r.ID)
	}
	return ids
}

// runCompletion is `shipshape completion SHELL`.
func runCompletion(args []string, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		writeHelp(stdout, cmdCompletion, nil)
		return exitOK
	}
	if len(args) != 1 || !slices.Contains(shells, shell(args[0])) {
		fmt.Fprintf(stderr, "shipshape completion: want one of bash, zsh, fish, powershell, got %q; run 'shipshape completion --help'\n", args)
		return exitUsage
	}
	specs := completionSpecs()
	switch shell(args[0]) {
	case shellBash:
		fmt.Fprint(stdout, bashCompletion(specs))
	case shellZsh:
		// zsh runs bash completion functions through bashcompinit, which
		// supports compgen and complete as this script uses them.
		fmt.Fprint(stdout, "#compdef shipshape\n# zsh completion for shipshape (shipshape completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n"+bashCompletion(specs))
	case shellFish:
		fmt.Fprint(stdout, fishCompletion(specs))
	case shellPowerShell:
		fmt.Fprint(stdout, powerShellCompletion(specs))
	}
	return exitOK
}

func flagWords(cc completionCommand) []string {
	var w []string
	for _, f := range cc.flags {
		w = append(w, "--"+f.long)
		if f.short != "" {
			w = append(w, "-"+f.short)
		}
	}
	return w
}

func commandWords() string {
	var w []string
	for _, n := range commands {
		w = append(w, string(n))
	}
	return strings.Join(w, " ")
}

func bashCompletion(specs []completionCommand) string {
	var b strings.Builder
	b.WriteString(`# bash completion for shipshape (shipshape completion bash)
_shipshape() {
    local cur prev cmd
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    cmd="${COMP_WORDS[1]}"
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "` + commandWords() + `" -- "$cur"))
        return 0
    fi
    case "$cmd:$prev" in
`)
	for _, cc := range specs {
		for _, f := range cc.flags {
			if !f.takesValue {
				continue
			}
			pat := fmt.Sprintf("%s:--%s", cc.name, f.long)
			if f.short != "" {
				pat += fmt.Sprintf("|%s:-%s", cc.name, f.short)
			}
			switch {
			case f.file:
				fmt.Fprintf(&b, "        %s) COMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;\n", pat)
			case len(f.values) > 0:
				fmt.Fprintf(&b, "        %s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return 0 ;;\n", pat, strings.Join(f.values, " "))
			default:
				fmt.Fprintf(&b, "        %s) return 0 ;;\n", pat)
			}
		}
	}
	b.WriteString("    esac\n    local flags=\"\" words=\"\" paths=0\n    case \"$cmd\" in\n")
	for _, cc := range specs {
		fmt.Fprintf(&b, "        %s) flags=\"%s\"; words=\"%s\"", cc.name, strings.Join(flagWords(cc), " "), strings.Join(cc.args, " "))
		if cc.paths {
			b.WriteString("; paths=1")
		}
		b.WriteString(" ;;\n")
	}
	b.WriteString(`    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    elif [ "$paths" -eq 1 ]; then
        COMPREPLY=($(compgen -f -- "$cur"))
    else
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    fi
    return 0
}
complete -o filenames -F _shipshape shipshape
`)
	return b.String()
}

// fishQuote quotes s for fish's single-quoted strings.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func fishCompletion(specs []completionCommand) string {
	var b strings.Builder
	b.WriteString("# fish completion for shipshape (shipshape completion fish)\ncomplete -c shipshape -f\n")
	for _, cc := range specs {
		fmt.Fprintf(&b, "complete -c shipshape -n __fish_use_subcommand -a %s -d %s\n", cc.name, fishQuote(helps[cc.name].synopsis))
	}
	for _, cc := range specs {
		cond := "'__fish_seen_subcommand_from " + string(cc.name) + "'"
		for _, f := range cc.flags {
			line := fmt.Sprintf("complete -c shipshape -n %s -l %s", cond, f.long)
			if f.short != "" {
				line += " -s " + f.short
			}
			switch {
			case f.file:
				line += " -rF"
			case len(f.values) > 0:
				line += " -xa " + fishQuote(strings.Join(f.values, " "))
			case f.takesValue:
				line += " -x"
			}
			fmt.Fprintf(&b, "%s -d %s\n", line, fishQuote(f.usage))
		}
		if len(cc.args) > 0 {
			fmt.Fprintf(&b, "complete -c shipshape -n %s -a %s\n", cond, fishQuote(strings.Join(cc.args, " ")))
		}
		if cc.paths {
			fmt.Fprintf(&b, "complete -c shipshape -n %s -F\n", cond)
		}
	}
	return b.String()
}

// psQuote quotes s for PowerShell's single-quoted strings.
func psQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func psList(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = psQuote(w)
	}
	return "@(" + strings.Join(q, ", ") + ")"
}

func powerShellCompletion(specs []completionCommand) string {
	var b strings.Builder
	b.WriteString("# PowerShell completion for shipshape (shipshape completion powershell)\n$shipshapeWords = @{\n")
	var cmds []string
	for _, cc := range specs {
		cmds = append(cmds, string(cc.name))
		fmt.Fprintf(&b, "    %s = %s\n", psQuote(string(cc.name)), psList(append(flagWords(cc), cc.args...)))
	}
	b.WriteString("}\n$shipshapeValues = @{\n")
	for _, cc := range specs {
		for _, f := range cc.flags {
			if len(f.values) > 0 {
				fmt.Fprintf(&b, "    %s = %s\n", psQuote(string(cc.name)+" --"+f.long), psList(f.values))
			}
		}
	}
	fmt.Fprintf(&b, `}
Register-ArgumentCompleter -Native -CommandName shipshape -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $elements = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })
    if ($wordToComplete -ne '') { $elements = $elements[0..($elements.Count - 2)] }
    if ($elements.Count -le 1) {
        $candidates = %s
    } else {
        $key = $elements[1] + ' ' + $elements[-1]
        if ($shipshapeValues.ContainsKey($key)) { $candidates = $shipshapeValues[$key] }
        else { $candidates = $shipshapeWords[$elements[1]] }
    }
    $candidates | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
    }
}
`, psList(cmds))
	return b.String()
}
