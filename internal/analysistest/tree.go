package analysistest

// Rendered trees: what a rule finds in a kustomize tree is what
// `shipshape lint DIR` reports, the rendered objects judged and each
// finding placed back at the source line that produced the value (the
// base's line, the patch's line, the kustomization's field). RunTree runs
// a case the way lint does, and reads the expectations on those source
// lines, in every file of the tree, kustomization.yaml included.

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/scope"
)

// RenderDir is the subdirectory of a rule's testdata directory that holds
// its rendered-tree cases (testdata/<rule-id>/render/<case>/): Run leaves
// it to RunTree.
const RenderDir = "render"

// RunTree lints every case under dir as `shipshape lint` lints a
// directory, and checks the findings against the cases' expectations.
//
// Each subdirectory of dir is one case: a tree with kustomizations (and
// their bases, components, patches, and plain files beside them). The
// case's directory is made the working directory (testing.T.Chdir: no
// test that calls RunTree may run in parallel) and the engine's RunTree
// lints "." as `shipshape lint .` does there: kustomize roots rendered in
// process, findings on rendered objects placed at the source lines, and
// paths in messages as lint prints them from that directory. The case is
// configured by its .shipshape.yaml, else dir's, else WithConfig; only
// the rule under test, the engine's own rules (render-error,
// render-skipped, yaml-syntax, ...) and the rules the configuration turns
// on run, as in Run.
//
// Expectations are `# want` comments on the source lines the findings are
// placed at, in any YAML file of the tree, and want.txt in the case's
// directory for the rest (FILE relative to the case: a finding placed on
// line 0, in a JSON file, inside a block scalar). Every finding must be
// wanted and every want met; the findings must name their rule's fix
// truthfully (Fixable). Findings placed in the tree's source lines do not
// name the object whose lines hold them (a patch is not the object), so
// Run's attribution and `shipshape fn` comparisons are not made.
func RunTree(t *testing.T, dir string, rule *analysis.Rule, opts ...Option) {
	t.Helper()
	runTree(t, dir, rule, false, opts)
}

// RunTreeWithFixes is RunTree, then applies the fixes as `shipshape fix
// DIR` does (placed in the source files, verified by rendering again) and
// compares each file that changed with FILE.golden beside it, as
// RunWithFixes does.
func RunTreeWithFixes(t *testing.T, dir string, rule *analysis.Rule, opts ...Option) {
	t.Helper()
	runTree(t, dir, rule, true, opts)
}

func runTree(t *testing.T, dir string, rule *analysis.Rule, fixes bool, opts []Option) {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("%v (a rule's rendered-tree cases are testdata/<rule-id>/%s/<case>/: see rules/README.md)", err, RenderDir)
	}
	mine, ran, cases := 0, 0, 0
	for _, e := range entries {
		switch {
		case e.IsDir():
			cases++
			caseDir := filepath.Join(dir, e.Name())
			t.Run(e.Name(), func(t *testing.T) {
				ran++
				mine += checkTree(t, dir, caseDir, rule, o, fixes)
			})
		case e.Name() != config.FileName:
			t.Errorf("%s: a rendered-tree case is a directory; only %s may sit beside the cases", filepath.Join(dir, e.Name()), config.FileName)
		}
	}
	if mine == 0 && ran == cases { // else -run chose some of them
		t.Errorf("%s holds no # want %s expectation: a rule's render cases must show it firing", dir, rule.ID)
	}
}

// treeTester is a tester that can change the working directory for the
// rest of the test (testing.T.Chdir).
type treeTester interface {
	tester
	Chdir(dir string)
}

// checkTree lints one tree and checks it. It returns how many of the
// case's expectations name the rule under test. Paths are kept as the
// caller names them (dir/case/file), so that messages lead to the file;
// the engine sees them relative to the case, its working directory.
func checkTree(t treeTester, dir, caseDir string, rule *analysis.Rule, o options, fixes bool) int {
	t.Helper()
	wants, errs := readWantFile(caseDir)
	for _, err := range errs {
		t.Errorf("%v", err)
	}
	for _, e := range wants {
		if _, err := os.Stat(e.file); err != nil {
			t.Errorf("%s: %s is not a file of case %s", e.at, e.file, caseDir)
		}
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatalf("%v", err)
	}
	abs := filepath.Join(absDir, filepath.Base(caseDir))
	// The config is loaded by its absolute path: its exclude globs are
	// relative to its directory, wherever the run is.
	cfg, err := caseConfig(absDir, testCase{dir: abs}, o.cfg)
	if err != nil {
		t.Fatalf("%v", err)
	}
	eng, err := newEngine(rule, o, cfg)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Chdir(abs)
	eng.SetScope(scope.Of([]string{"."}))

	// The inputs are what lint walks, without what the config excludes.
	excluded := func(string) bool { return false }
	if cfg != nil {
		excluded = cfg.Excluder()
	}
	var walkErrs []manifest.WalkError
	var inputs []manifest.Input
	srcs := map[string][]byte{} // by the caller's path
	for in := range manifest.Walk([]string{"."}, &walkErrs) {
		if filepath.Base(in.Path) == config.FileName || excluded(in.Path) {
			continue
		}
		src, err := os.ReadFile(in.Path)
		if err != nil {
			t.Fatalf("%v", err)
		}
		p := filepath.Join(caseDir, in.Path)
		srcs[p] = src
		exps, errs := scanFile(p, src)
		for _, err := range errs {
			t.Errorf("%v", err)
		}
		wants = append(wants, exps...)
		inputs = append(inputs, in)
	}
	for _, we := range walkErrs {
		t.Errorf("%s: %v", filepath.Join(caseDir, we.Path), we.Err)
	}
	mine := 0
	for _, e := range wants {
		if e.rule == rule.ID {
			mine++
		}
		if !eng.Enabled(e.rule) {
			t.Errorf("%s: rule %s does not run in this case (turn it on in %s: spec.rules.%s.enabled: true)", e.at, e.rule, config.FileName, e.rule)
		}
	}
	res := eng.RunTree([]string{"."}, slices.Values(inputs))
	// The findings, named as the caller names the files.
	found := slices.Clone(res.Findings)
	for i := range found {
		if found[i].File != "" && !filepath.IsAbs(found[i].File) {
			found[i].File = filepath.Join(caseDir, found[i].File)
		}
	}
	check(t, found, wants)
	checkFixable(t, eng.Rules(), found)
	if fixes {
		paths := make([]string, len(inputs))
		rel := map[string][]byte{}
		for i, in := range inputs {
			paths[i] = in.Path
			rel[in.Path] = srcs[filepath.Join(caseDir, in.Path)]
		}
		checkFixes(t, eng, res, paths, rel)
		inputs := map[string]bool{}
		for _, p := range paths {
			inputs[filepath.Clean(p)] = true
		}
		checkStrayGoldens(t, ".", inputs, false)
	}
	return mine
}
