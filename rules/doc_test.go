package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/analysistest"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/rules"
)

// TestDocsUpToDate fails when docs/rules.md no longer matches the rule
// metadata: run `go generate ./rules`.
func TestDocsUpToDate(t *testing.T) {
	want, err := os.ReadFile("../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := analysis.DocsPage(engine.WithBuiltin(rules.All())); got != string(want) {
		t.Fatal("docs/rules.md is stale: run go generate ./rules")
	}
}

// TestRuleMetadata keeps every rule documented the same way: the text a
// user reads in explain, docs and SARIF.
func TestRuleMetadata(t *testing.T) {
	for _, r := range rules.All() {
		docs := r.Documentation()
		if r.ID == "" || r.Summary == "" || docs.Doc == "" {
			t.Errorf("%q: ID, Summary and Doc (rules/doc/%s.md) are required", r.ID, r.ID)
		}
		if strings.HasSuffix(r.Summary, ".") {
			t.Errorf("%s: Summary ends with a period", r.ID)
		}
		if err := analysis.DeclarationError(r); err != nil {
			t.Error(err)
		}
		if strings.Contains(docs.Bad+docs.Good, "# want") {
			t.Errorf("%s: the examples shown keep a # want comment", r.ID)
		}
		if r.Check == nil && r.Cross == nil {
			continue // reported by the engine itself (yaml-syntax, ...)
		}
		if docs.Bad == "" || docs.Good == "" {
			t.Errorf("%s: Bad and Good examples (rules/%s, rules/%s) are required", r.ID, rules.ExamplePath(r.ID, true), rules.ExamplePath(r.ID, false))
		}
	}
}

// TestExamples lints each rule's examples, rules/doc/<id>/bad.yaml and
// good.yaml, as fixtures: the rule's findings on bad.yaml are exactly those
// its `# want` comments say, and good.yaml has none. The docs cannot drift
// from the behaviour.
func TestExamples(t *testing.T) {
	for _, r := range rules.All() {
		if r.Check == nil && r.Cross == nil && r.Visit == nil {
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			analysistest.Run(t, filepath.Join("doc", r.ID), r)
		})
	}
}

// TestLWSDocTables keeps the engine tables in the documentation of the two
// LWS rules whose behaviour depends on the GitOps engine.
func TestLWSDocTables(t *testing.T) {
	for _, id := range []string{"lws-recreate-order", "lws-unsafe-recreate"} {
		if !strings.Contains(analysis.Markdown(rules.Get(id)), "| ") {
			t.Errorf("%s: the documentation lacks the engine table", id)
		}
	}
}

// TestSettingsDocumented keeps docs/configuration.md's table of rule
// settings in step with the settings the rules declare.
func TestSettingsDocumented(t *testing.T) {
	conf, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules.All() {
		for _, s := range r.Settings {
			if s.Name == "" || s.Default == "" || s.Doc == "" {
				t.Errorf("%s: setting %q needs Name, Default and Doc", r.ID, s.Name)
			}
			if !strings.Contains(string(conf), "| `"+s.Name+"` |") {
				t.Errorf("%s: setting %s is not in docs/configuration.md's table of rule settings", r.ID, s.Name)
			}
		}
	}
}
