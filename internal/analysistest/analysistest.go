// Package analysistest tests a rule on fixture files, in the manner of
// golang.org/x/tools/go/analysis/analysistest: the findings a fixture
// should produce are written in it, as comments on the offending lines,
//
//	spec:
//	  replicas: "3"  # want type-mismatch `spec.replicas takes an integer`
//
// and the bytes a fixture should have after `shipshape fix` are in a
// `.golden` file beside it.
//
// # Cases
//
// Run lints every case of a directory (testdata/<rule-id> by convention):
// each YAML file directly in it is one case, linted alone; each
// subdirectory is one case whose files (recursively) are linted together,
// as one application, so that cross-resource rules and kustomizations
// see them side by side. A case is configured by the .shipshape.yaml of
// its subdirectory, else of the directory (a ShipshapeConfig, as
// `shipshape lint` reads it; the file is not linted), else by WithConfig.
// A subdirectory named render is not a case: it holds the rendered-tree
// cases of RunTree (tree.go).
//
// Only the rule under test runs, with the engine's own rules (yaml-syntax,
// template-skipped, ...), so a fixture that does not parse fails unless it
// says so. A case turns on more rules with spec.rules.<id>.enabled: true
// in its .shipshape.yaml; they must be among those given with WithRules.
//
// # Expectations
//
// A `# want` comment trails the content of the line the finding is on
// (its Line; the column is not where the comment is):
//
//	# want RULE [col=N] [fix|nofix] [field=PATH] [roots=DIR,...] "REGEXP" [[RULE] ... "REGEXP"]...
//
// Each expectation is met by exactly one finding of RULE on that line
// whose message the regexp matches (unanchored, as regexp.MatchString);
// col=N also pins the column (1-based, in characters), fix/nofix whether
// the finding carries a fix, field=PATH its dotted field path, and
// roots=DIR,... the kustomize roots whose rendered objects it is about,
// in order, as lint prints them ("-": none, a file judged as written). The rule ID
// carries over to the next regexps of the comment; the attributes hold
// for the one regexp they precede. Regexps are Go strings, "quoted" or
// `back-quoted` (easier when the message holds quotes). Every finding must
// meet an expectation and every expectation must be met.
//
// A comment cannot carry every expectation: a `# want` inside a block
// scalar is text, not a comment (the harness refuses it), a finding about
// a whole file is on line 0, and a fixture may be about its comments. Such
// expectations go in want.txt beside the fixture (in the case's
// subdirectory, or in the directory for single-file cases), one per line:
//
//	FILE:LINE[:COL] RULE [attributes] "REGEXP"...
//
// # Invariants
//
// Beyond the expectations, every case must keep three rules of the house:
//   - a finding about an object names that object: its Resource, Doc and
//     Item are those of the object whose lines hold the finding's line
//     (the object a fix edits, the name printers show);
//   - a rule whose findings carry fixes says Fixable: true;
//   - the case's objects, linted as `shipshape fn` lints a ResourceList,
//     give the findings the files gave (file-level findings aside; a case
//     with `# shipshape:ignore` comments is not compared, since comments
//     do not reach objects).
//
// # Rendered trees
//
// RunTree and RunTreeWithFixes (tree.go) lint each case of a directory
// (testdata/<rule-id>/render by convention) as `shipshape lint` lints a
// kustomize tree: roots rendered, findings placed at the source lines the
// values came from, where the `# want` comments are written.
//
// # Fixes
//
// RunWithFixes also applies every fix as `shipshape fix` does (one fix
// driver: apply, re-lint, verify) and compares each file that changed with
// FILE.golden beside it (aliases.yaml.golden); a .golden file of a file
// that does not change must equal it. Every fix a finding offers must be
// applied. `go test -update` writes the .golden files; review them before
// committing.
package analysistest

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Update is the -update flag: RunWithFixes writes the .golden files
// instead of comparing them. A test package that imports this one must not
// define its own -update.
var Update = flag.Bool("update", false, "write the .golden files of analysistest.RunWithFixes (review them before committing)")

// Option configures Run.
type Option func(*options)

type options struct {
	rules []*analysis.Rule
	cfg   *config.Config
}

// WithRules names the rules a case may turn on besides the rule under
// test, with spec.rules.<id>.enabled: true in its .shipshape.yaml.
// Passing every rule (rules.All()) is the usual way.
func WithRules(rs ...*analysis.Rule) Option {
	return func(o *options) { o.rules = append(o.rules, rs...) }
}

// WithConfig is the configuration of the cases that have no
// .shipshape.yaml of their own.
func WithConfig(cfg *config.Config) Option {
	return func(o *options) { o.cfg = cfg }
}

// Run lints every case under dir with rule and checks the findings against
// the cases' expectations.
func Run(t *testing.T, dir string, rule *analysis.Rule, opts ...Option) {
	t.Helper()
	run(t, dir, rule, false, opts)
}

// RunWithFixes is Run, then applies the fixes and compares the fixed
// files with their .golden files.
func RunWithFixes(t *testing.T, dir string, rule *analysis.Rule, opts ...Option) {
	t.Helper()
	run(t, dir, rule, true, opts)
}

// reporter is what the checks report to: a *testing.T, or a recorder in
// this package's own tests.
type reporter interface {
	Errorf(format string, args ...any)
}

// tester is a reporter that can stop the case.
type tester interface {
	reporter
	Helper()
	Fatalf(format string, args ...any)
}

// testCase is one case: a file, or a subdirectory's files.
type testCase struct {
	name   string
	dir    string   // the directory its want.txt and .shipshape.yaml are in
	inputs []string // paths
}

func run(t *testing.T, dir string, rule *analysis.Rule, fixes bool, opts []Option) {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cases, err := listCases(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s holds no case (a .yaml file, or a directory of them)", dir)
	}
	// The directory's want.txt holds expectations for its single-file cases.
	top, errs := readWantFile(dir)
	for _, err := range errs {
		t.Error(err)
	}
	seen := map[string]bool{}
	mine, ran := 0, 0
	for _, c := range cases {
		for _, p := range c.inputs {
			seen[p] = true
		}
		t.Run(c.name, func(t *testing.T) {
			ran++
			var wants []*expectation
			if c.dir == dir {
				for _, e := range top {
					if e.file == c.inputs[0] {
						wants = append(wants, e)
					}
				}
			} else {
				w, errs := readWantFile(c.dir)
				for _, err := range errs {
					t.Error(err)
				}
				wants = w
			}
			mine += checkCase(t, dir, c, rule, o, wants, fixes)
		})
	}
	for _, e := range top {
		if !seen[e.file] {
			t.Errorf("%s: %s is not a case of %s", e.at, e.file, dir)
		}
	}
	if mine == 0 && ran == len(cases) { // else -run chose some of them
		t.Errorf("%s holds no # want %s expectation: a rule's tests must show it firing", dir, rule.ID)
	}
	if fixes {
		checkStrayGoldens(t, dir, seen, true)
	}
}

// listCases reads dir's cases in name order.
func listCases(dir string) ([]testCase, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%v (every rule has a testdata/<rule-id> directory: see rules/README.md)", err)
	}
	var out []testCase
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		switch {
		case strings.HasPrefix(name, "."):
			// .shipshape.yaml, hidden directories
		case name == RenderDir && e.IsDir():
			// rendered-tree cases, RunTree's
		case e.IsDir():
			ins, errs := manifest.Collect([]string{p})
			if len(errs) > 0 {
				return nil, fmt.Errorf("%s: %v", p, errs[0])
			}
			c := testCase{name: name, dir: p}
			for _, in := range ins {
				if filepath.Base(in.Path) != config.FileName {
					c.inputs = append(c.inputs, in.Path)
				}
			}
			if len(c.inputs) == 0 {
				return nil, fmt.Errorf("%s holds no .yaml file", p)
			}
			out = append(out, c)
		case manifest.IsYAMLName(name) && e.Type().IsRegular():
			out = append(out, testCase{name: name, dir: dir, inputs: []string{p}})
		}
	}
	return out, nil
}

// caseConfig is the configuration of a case: its own .shipshape.yaml,
// else the directory's, else the one given.
func caseConfig(dir string, c testCase, fallback *config.Config) (*config.Config, error) {
	for _, d := range []string{c.dir, dir} {
		p := filepath.Join(d, config.FileName)
		if _, err := os.Stat(p); err == nil {
			return config.Load(p)
		}
	}
	return fallback, nil
}

// newEngine runs rule, the engine's own rules, and the rules of o.rules
// the config turns on.
func newEngine(rule *analysis.Rule, o options, cfg *config.Config) (*engine.Engine, error) {
	known := []*analysis.Rule{rule}
	var off []string
	for _, r := range o.rules {
		if r.ID == rule.ID || slices.ContainsFunc(known, func(k *analysis.Rule) bool { return k.ID == r.ID }) {
			continue
		}
		known = append(known, r)
		if cfg == nil || cfg.Rules[r.ID].Enabled == nil || !*cfg.Rules[r.ID].Enabled {
			off = append(off, r.ID)
		}
	}
	if cfg != nil {
		for id, rc := range cfg.Rules {
			if rc.Enabled != nil && *rc.Enabled && !slices.ContainsFunc(known, func(k *analysis.Rule) bool { return k.ID == id }) &&
				!slices.ContainsFunc(engine.WithBuiltin(nil), func(k *analysis.Rule) bool { return k.ID == id }) {
				return nil, fmt.Errorf("%s: spec.rules.%s: the test does not know this rule (pass it with analysistest.WithRules)", cfg.Source, id)
			}
		}
	}
	eng, err := engine.New(known, cfg, []string{rule.ID}, off)
	if err != nil {
		return nil, err
	}
	eng.KeepSource = true
	return eng, nil
}

// checkCase lints one case and checks it. It returns how many of the
// case's expectations name the rule under test.
func checkCase(t tester, dir string, c testCase, rule *analysis.Rule, o options, wants []*expectation, fixes bool) int {
	t.Helper()
	cfg, err := caseConfig(dir, c, o.cfg)
	if err != nil {
		t.Fatalf("%v", err)
	}
	eng, err := newEngine(rule, o, cfg)
	if err != nil {
		t.Fatalf("%v", err)
	}
	srcs := map[string][]byte{}
	var inputs []manifest.Input
	for _, p := range c.inputs {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%v", err)
		}
		srcs[p] = src
		exps, errs := scanFile(p, src)
		for _, err := range errs {
			t.Errorf("%v", err)
		}
		wants = append(wants, exps...)
		inputs = append(inputs, manifest.Input{Path: p})
	}
	mine := 0
	for _, e := range wants {
		if e.rule == rule.ID {
			mine++
		}
		if _, ok := srcs[e.file]; !ok {
			t.Errorf("%s: %s is not a file of case %s", e.at, e.file, c.name)
		} else if !eng.Enabled(e.rule) {
			t.Errorf("%s: rule %s does not run in this case (turn it on in %s: spec.rules.%s.enabled: true)", e.at, e.rule, config.FileName, e.rule)
		}
	}
	res := eng.Run(inputs)
	check(t, res.Findings, wants)
	checkFixable(t, eng.Rules(), res.Findings)
	checkAttribution(t, res.Findings, srcs)
	checkObjects(t, eng, res.Findings, c.inputs, srcs)
	if fixes {
		checkFixes(t, eng, res, c.inputs, srcs)
	}
	return mine
}

// check matches findings with expectations, one for one.
func check(r reporter, findings []analysis.Finding, wants []*expectation) {
	at := map[string][]*expectation{}
	key := func(file string, line int) string { return fmt.Sprintf("%s:%d", filepath.Clean(file), line) }
	for _, e := range wants {
		k := key(e.file, e.line)
		at[k] = append(at[k], e)
	}
	for _, fd := range findings {
		k := key(fd.File, fd.Line)
		met := false
		for _, e := range at[k] {
			if !e.met && e.matches(fd) {
				e.met, met = true, true
				break
			}
		}
		if !met {
			fix := "nofix"
			if fd.Fixable() {
				fix = "fix"
			}
			roots := ""
			if len(fd.Roots) > 0 {
				roots = " roots=" + rootsAttr(fd.Roots)
			}
			msg := fmt.Sprintf("%s:%d:%d: unexpected finding: %s col=%d %s field=%s%s %q", fd.File, fd.Line, fd.Column, fd.Rule, fd.Column, fix, fd.Field, roots, fd.Message)
			var open []string
			for _, e := range at[k] {
				if !e.met {
					open = append(open, e.String())
				}
			}
			if len(open) > 0 {
				msg += "\n\texpected on this line: " + strings.Join(open, "; ")
			}
			r.Errorf("%s", msg)
		}
	}
	for _, e := range wants {
		if !e.met {
			r.Errorf("%s: no finding met the expectation %s", e.at, e)
		}
	}
}

// checkFixable checks that a rule whose findings carry fixes says so in
// its metadata (Fixable: what `shipshape rules` and the docs show).
func checkFixable(r reporter, rs []*analysis.Rule, findings []analysis.Finding) {
	fixable := map[string]bool{}
	for _, rule := range rs {
		fixable[rule.ID] = rule.Fixable
	}
	for _, fd := range findings {
		if fd.Fix != nil && !fixable[fd.Rule] {
			r.Errorf("%s:%d:%d: %s finding carries a fix, but the rule does not say Fixable: true", fd.File, fd.Line, fd.Column, fd.Rule)
		}
	}
}

// checkAttribution checks that each finding about an object names the
// object whose lines hold it: the fix driver finds the object to edit by
// the finding's Doc and Item, and printers name it by its Resource.
func checkAttribution(r reporter, findings []analysis.Finding, srcs map[string][]byte) {
	type span struct {
		res        manifest.Resource
		first, end int
	}
	objects := map[string]map[[2]int]span{}
	for p, src := range srcs {
		m := map[[2]int]span{}
		for _, obj := range manifest.Parse(p, src, manifest.Context{}).Objects {
			first, end := obj.Node.Line, obj.Node.Line
			var walk func(n *yaml.Node)
			walk = func(n *yaml.Node) {
				first, end = min(first, n.Line), max(end, n.Line)
				for _, c := range n.Content {
					walk(c)
				}
			}
			walk(obj.Node)
			m[[2]int{obj.Doc, obj.Item}] = span{obj.Resource, first, end}
		}
		objects[filepath.Clean(p)] = m
	}
	for _, fd := range findings {
		if fd.Resource == (manifest.Resource{}) || fd.Line == 0 {
			continue
		}
		s, ok := objects[filepath.Clean(fd.File)][[2]int{fd.Doc, fd.Item}]
		switch {
		case !ok:
			r.Errorf("%s:%d:%d: %s finding names document %d item %d, which holds no object", fd.File, fd.Line, fd.Column, fd.Rule, fd.Doc, fd.Item)
		case s.res != fd.Resource:
			r.Errorf("%s:%d:%d: %s finding names %s, but document %d item %d is %s", fd.File, fd.Line, fd.Column, fd.Rule, fd.Resource.Label(), fd.Doc, fd.Item, s.res.Label())
		case fd.Line < s.first || fd.Line > s.end:
			r.Errorf("%s:%d:%d: %s finding about %s is outside its lines %d-%d", fd.File, fd.Line, fd.Column, fd.Rule, fd.Resource.Label(), s.first, s.end)
		}
	}
}

// checkObjects lints the case's objects as `shipshape fn` does (one
// application of objects that did not come from files) and checks that
// the rules find there what they found in the files. Findings about no
// object (file-level ones) have no counterpart, ignore comments do not
// apply to objects, and a file skipped as a template has no objects: a
// case that has either is not compared.
func checkObjects(r reporter, eng *engine.Engine, findings []analysis.Finding, paths []string, srcs map[string][]byte) {
	kusts := &manifest.Kustomizations{}
	var objs []*manifest.Object
	for _, p := range paths {
		f := manifest.Parse(p, srcs[p], kusts.For(p))
		if bytes.Contains(srcs[p], []byte("shipshape:ignore")) || f.Template != "" {
			return
		}
		objs = append(objs, f.Objects...)
	}
	key := func(fd analysis.Finding) string {
		return fmt.Sprintf("%s:%d:%d: %s %q (fix %v, document %d, item %d)", fd.File, fd.Line, fd.Column, fd.Rule, fd.Message, fd.Fixable(), fd.Doc, fd.Item)
	}
	count := map[string]int{}
	for _, fd := range findings {
		if fd.Resource != (manifest.Resource{}) {
			count[key(fd)]++
		}
	}
	for _, fd := range eng.LintObjects(objs) {
		count[key(fd)]--
	}
	for _, k := range slices.Sorted(maps.Keys(count)) {
		switch n := count[k]; {
		case n > 0:
			r.Errorf("%s: found in the files, not in their objects (shipshape fn)", k)
		case n < 0:
			r.Errorf("%s: found in the objects (shipshape fn), not in the files", k)
		}
	}
}
