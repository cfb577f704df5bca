package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// compositeAction is the part of action.yml the runner reads.
type compositeAction struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	With  map[string]string `yaml:"with"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
}

// stepRun is what one step did.
type stepRun struct {
	step    actionStep
	skipped bool
	with    map[string]string // a uses step's inputs, evaluated (it is not run)
	result  result            // a run step's output and exit code
	outputs map[string]string // what it wrote to GITHUB_OUTPUT
}

// actionRun is one run of the action as the runner makes it.
type actionRun struct {
	steps   []stepRun
	outputs map[string]string // the action's outputs
	failed  bool
}

func (r actionRun) step(t *testing.T, name string) stepRun {
	t.Helper()
	for _, s := range r.steps {
		if s.step.Name == name {
			return s
		}
	}
	t.Fatalf("no step %q", name)
	return stepRun{}
}

func readAction(t *testing.T) compositeAction {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a compositeAction
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml: runs.using %q, want composite", a.Runs.Using)
	}
	return a
}

// runAction runs the action's steps as the GitHub runner runs a composite
// action's: inputs are the defaults overridden by with; each run step is
// `bash --noprofile --norc -eo pipefail FILE` (the runner's bash), with the
// step's env evaluated, the GITHUB_* and RUNNER_* variables, no INPUT_*
// variables (the runner sets none for composite actions, actions/runner#665),
// and GITHUB_PATH's lines put on PATH for the later steps. A step runs when
// its if holds, and by default only while no step has failed. uses steps are
// not run: their evaluated inputs are recorded. extraEnv is the workflow's
// env, which every step inherits.
func runAction(t *testing.T, workspace string, with map[string]string, extraEnv ...string) actionRun {
	t.Helper()
	a := readAction(t)
	inputs := map[string]string{}
	for name, in := range a.Inputs {
		inputs[name] = in.Default
	}
	for name, v := range with {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("the test sets input %q, which action.yml does not declare", name)
		}
		inputs[name] = v
	}
	tmp := t.TempDir()
	runnerTemp := filepath.Join(tmp, "runner-temp")
	if err := os.MkdirAll(runnerTemp, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := exprContext{inputs: inputs, actionPath: root, steps: map[string]map[string]string{}}
	var run actionRun
	var extraPath []string
	for i, step := range a.Runs.Steps {
		sr := stepRun{step: step}
		cond := step.If
		if cond == "" {
			cond = "success()"
		}
		if !ctx.condition(t, cond, run.failed) {
			sr.skipped = true
			run.steps = append(run.steps, sr)
			continue
		}
		if step.Uses != "" {
			sr.with = map[string]string{}
			for k, v := range step.With {
				sr.with[k] = ctx.interpolate(t, v)
			}
			run.steps = append(run.steps, sr)
			continue
		}
		if step.Shell != "bash" {
			t.Fatalf("step %q: shell %q; a composite run step must name its shell, and this action's are bash", step.Name, step.Shell)
		}
		if strings.Contains(step.Run, "${{") {
			t.Fatalf("step %q: its script holds a ${{ }} expression, which the runner pastes into the script before bash reads it: pass the value through env", step.Name)
		}
		files := map[string]string{}
		for _, f := range []string{"GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_ENV", "GITHUB_STEP_SUMMARY"} {
			files[f] = filepath.Join(tmp, fmt.Sprintf("step%d-%s", i, strings.ToLower(f)))
			if err := os.WriteFile(files[f], nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		script := filepath.Join(tmp, fmt.Sprintf("step%d.sh", i))
		if err := os.WriteFile(script, []byte(step.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		env := runnerEnv(workspace, runnerTemp, extraPath)
		for k, v := range files {
			env = append(env, k+"="+v)
		}
		env = append(env, extraEnv...)
		for k, v := range step.Env {
			env = append(env, k+"="+ctx.interpolate(t, v))
		}
		sr.result = runStep(t, workspace, env, script)
		sr.outputs = readKeyValues(t, files["GITHUB_OUTPUT"])
		if step.ID != "" {
			ctx.steps[step.ID] = sr.outputs
		}
		if data, err := os.ReadFile(files["GITHUB_PATH"]); err == nil {
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if line != "" {
					extraPath = append([]string{line}, extraPath...)
				}
			}
		}
		if sr.result.code != 0 {
			run.failed = true
		}
		run.steps = append(run.steps, sr)
	}
	run.outputs = map[string]string{}
	for name, out := range a.Outputs {
		run.outputs[name] = ctx.interpolate(t, out.Value)
	}
	return run
}

// runnerEnv is what the runner gives every step: the machine's PATH (less
// this run's shipshape, so that only the action's install puts one there),
// Go's caches, and the GITHUB_* and RUNNER_* variables.
func runnerEnv(workspace, runnerTemp string, extraPath []string) []string {
	var path []string
	path = append(path, extraPath...)
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir != binDir {
			path = append(path, dir)
		}
	}
	env := []string{
		"PATH=" + strings.Join(path, string(os.PathListSeparator)),
		"HOME=" + os.Getenv("HOME"),
		"CI=true", "GITHUB_ACTIONS=true", "NO_COLOR=1",
		"GITHUB_WORKSPACE=" + workspace,
		"GITHUB_ACTION_PATH=" + root,
		"GITHUB_REPOSITORY=example/manifests",
		"RUNNER_TEMP=" + runnerTemp,
		"RUNNER_OS=" + map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows"}[runtime.GOOS],
		"RUNNER_ARCH=" + map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH],
	}
	// What actions/setup-go leaves: the toolchain and its caches.
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func runStep(t *testing.T, dir string, env []string, script string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("bash %s: %v", script, err)
		}
		r.code = ee.ExitCode()
	}
	return r
}

// readKeyValues reads a GITHUB_OUTPUT file's name=value lines.
func readKeyValues(t *testing.T, file string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	kv := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			kv[k] = v
		}
	}
	return kv
}

// exprContext evaluates the few expression forms action.yml uses; any
// other fails the test, so that the action cannot use one this runner
// would get wrong.
type exprContext struct {
	inputs     map[string]string
	actionPath string
	steps      map[string]map[string]string
}

var exprRe = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// interpolate replaces each ${{ value }} in s.
func (c exprContext) interpolate(t *testing.T, s string) string {
	t.Helper()
	return exprRe.ReplaceAllStringFunc(s, func(m string) string {
		return c.value(t, exprRe.FindStringSubmatch(m)[1])
	})
}

func (c exprContext) value(t *testing.T, expr string) string {
	t.Helper()
	switch {
	case strings.HasPrefix(expr, "inputs."):
		v, ok := c.inputs[strings.TrimPrefix(expr, "inputs.")]
		if !ok {
			t.Fatalf("expression %q: no such input", expr)
		}
		return v
	case expr == "github.action_path":
		return c.actionPath
	case strings.HasPrefix(expr, "steps."):
		parts := strings.Split(expr, ".")
		if len(parts) != 4 || parts[2] != "outputs" {
			t.Fatalf("expression %q: want steps.ID.outputs.NAME", expr)
		}
		return c.steps[parts[1]][parts[3]]
	case len(expr) >= 2 && expr[0] == '\'' && expr[len(expr)-1] == '\'':
		return expr[1 : len(expr)-1]
	}
	t.Fatalf("expression %q: not a form this test evaluates", expr)
	return ""
}

// condition evaluates an if: terms joined by &&, each a status function or
// a comparison of two values with == or !=.
func (c exprContext) condition(t *testing.T, cond string, failed bool) bool {
	t.Helper()
	if m := exprRe.FindStringSubmatch(strings.TrimSpace(cond)); m != nil {
		cond = m[1]
	}
	for _, term := range strings.Split(cond, "&&") {
		term = strings.TrimSpace(term)
		var holds bool
		switch term {
		case "success()":
			holds = !failed
		case "failure()":
			holds = failed
		case "always()", "!cancelled()":
			holds = true
		default:
			op := "=="
			left, right, ok := strings.Cut(term, " == ")
			if !ok {
				op = "!="
				left, right, ok = strings.Cut(term, " != ")
			}
			if !ok {
				t.Fatalf("if %q: term %q is not a form this test evaluates", cond, term)
			}
			holds = (c.value(t, strings.TrimSpace(left)) == c.value(t, strings.TrimSpace(right))) == (op == "==")
		}
		if !holds {
			return false
		}
	}
	// A condition without a status function holds only while nothing failed.
	if !strings.Contains(cond, "()") && failed {
		return false
	}
	return true
}
