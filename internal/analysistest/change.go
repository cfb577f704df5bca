package analysistest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Change cases: a change rule (Rule.Change) judges one application's
// change, so each case is a subdirectory of dir holding the application
// at both revisions,
//
//	<case>/base.yaml     what the cluster holds (applied from the base revision)
//	<case>/head.yaml     what the change applies; its # want comments are the findings
//	<case>/applier.yaml  optional: how the engine applies it (ApplierFile)
//	<case>/.shipshape.yaml optional: the configuration (lws.version, ...)
//
// RunChange builds the ChangePass a driver builds (analysis.NewChangePass)
// from the objects of base.yaml and head.yaml, runs the rule's Change
// once, and checks its findings against the # want comments of head.yaml
// (a change rule reports at what the change applies, never at the base).

// Files of a change case.
const (
	BaseFile    = "base.yaml"
	HeadFile    = "head.yaml"
	ApplierFile = "applier.yaml"
)

// applierSpec is applier.yaml: the engine and its settings. A case without
// one has the zero Applier (engine unknown, no prune, no recreate, Known
// false); a case with one has Known true.
type applierSpec struct {
	Engine   string `yaml:"engine"` // kubectl, argocd, flux, kapp
	Prune    bool   `yaml:"prune"`
	Recreate bool   `yaml:"recreate"`
}

var engineNames = map[string]analysis.Engine{
	"kubectl": analysis.EngineKubectl,
	"argocd":  analysis.EngineArgoCD,
	"flux":    analysis.EngineFlux,
	"kapp":    analysis.EngineKapp,
}

// readApplier reads the case's applier.yaml, strictly: a misspelt setting
// would silently test the defaults.
func readApplier(dir string) (analysis.Applier, error) {
	p := filepath.Join(dir, ApplierFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return analysis.Applier{}, nil
	}
	if err != nil {
		return analysis.Applier{}, err
	}
	var s applierSpec
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return analysis.Applier{}, fmt.Errorf("%s: %v", p, err)
	}
	e, ok := engineNames[s.Engine]
	if !ok {
		return analysis.Applier{}, fmt.Errorf("%s: engine %q is none of kubectl, argocd, flux, kapp", p, s.Engine)
	}
	return analysis.Applier{Engine: e, Prune: s.Prune, Recreate: s.Recreate, Known: true}, nil
}

// readObjects parses one revision of a case; a fixture that does not
// parse is the case's error, not something the rule should see.
func readObjects(path string) ([]*manifest.Object, []byte, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	f := manifest.Parse(path, src, manifest.Context{})
	if len(f.Errors) > 0 {
		e := f.Errors[0]
		return nil, nil, fmt.Errorf("%s:%d:%d: %s", path, e.Line, e.Column, e.Message)
	}
	return f.Objects, src, nil
}

// RunChange runs a change rule over every case under dir (see above).
func RunChange(t *testing.T, dir string, rule *analysis.Rule) {
	t.Helper()
	if rule.Change == nil {
		t.Fatalf("%s is not a change rule (no Change)", rule.ID)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("%v (every rule has a testdata/<rule-id> directory: see rules/README.md)", err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		n++
		caseDir := filepath.Join(dir, e.Name())
		t.Run(e.Name(), func(t *testing.T) { checkChangeCase(t, dir, caseDir, rule) })
	}
	if n == 0 {
		t.Fatalf("%s holds no change case (a directory with %s and %s)", dir, BaseFile, HeadFile)
	}
}

// RunChangeCase runs a change rule on one case directory and returns its
// findings, unchecked: for tests that judge them otherwise (the rule's
// documented examples, the control-plane suite's verdicts).
func RunChangeCase(rule *analysis.Rule, caseDir string, cfg *config.Config) ([]analysis.Finding, error) {
	base, _, err := readObjects(filepath.Join(caseDir, BaseFile))
	if err != nil {
		return nil, err
	}
	head, _, err := readObjects(filepath.Join(caseDir, HeadFile))
	if err != nil {
		return nil, err
	}
	ap, err := readApplier(caseDir)
	if err != nil {
		return nil, err
	}
	return RunChangeObjects(rule, base, head, ap, cfg), nil
}

// RunChangeObjects runs a change rule once on one application's change.
func RunChangeObjects(rule *analysis.Rule, base, head []*manifest.Object, ap analysis.Applier, cfg *config.Config) []analysis.Finding {
	if cfg == nil {
		cfg = &config.Config{}
	}
	var out []analysis.Finding
	app := analysis.AppID{Dir: "case"}
	rule.Change(analysis.NewChangePass(rule, app, base, head, "base", ap, cfg, func(f analysis.Finding) { out = append(out, f) }))
	return out
}

func checkChangeCase(t *testing.T, dir, caseDir string, rule *analysis.Rule) {
	t.Helper()
	cfg, err := caseConfig(dir, testCase{dir: caseDir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	basePath, headPath := filepath.Join(caseDir, BaseFile), filepath.Join(caseDir, HeadFile)
	_, baseSrc, err := readObjects(basePath)
	if err != nil {
		t.Fatal(err)
	}
	if exps, _ := scanFile(basePath, baseSrc); len(exps) > 0 {
		t.Errorf("%s: a change rule reports at head, not at the base: move the # want to %s", exps[0].at, HeadFile)
	}
	_, headSrc, err := readObjects(headPath)
	if err != nil {
		t.Fatal(err)
	}
	wants, errs := scanFile(headPath, headSrc)
	for _, err := range errs {
		t.Error(err)
	}
	for _, e := range wants {
		if e.rule != rule.ID {
			t.Errorf("%s: only %s runs in a change case, not %s", e.at, rule.ID, e.rule)
		}
	}
	findings, err := RunChangeCase(rule, caseDir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		if f.File != headPath {
			t.Errorf("%s:%d: a change finding must be placed at head (%s)", f.File, f.Line, headPath)
		}
	}
	check(t, findings, wants)
	checkFixable(t, []*analysis.Rule{rule}, findings)
	checkAttribution(t, findings, map[string][]byte{headPath: headSrc})
}
