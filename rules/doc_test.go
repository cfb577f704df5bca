package rules_test

import (
	"os"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
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
		if r.ID == "" || r.Summary == "" || r.Doc == "" {
			t.Errorf("%q: ID, Summary and Doc (rules/doc/%s.md) are required", r.ID, r.ID)
		}
		if strings.HasSuffix(r.Summary, ".") {
			t.Errorf("%s: Summary ends with a period", r.ID)
		}
		if err := analysis.DeclarationError(r); err != nil {
			t.Error(err)
		}
		if r.Check == nil && r.Cross == nil {
			continue // reported by the engine itself (yaml-syntax, ...)
		}
		if r.Bad == "" || r.Good == "" {
			t.Errorf("%s: Bad and Good examples (rules/%s, rules/%s) are required", r.ID, rules.ExamplePath(r.ID, true), rules.ExamplePath(r.ID, false))
		}
	}
}

// TestExamples checks that each rule's Bad example fires the rule and its
// Good example does not: the docs cannot drift from the behaviour.
func TestExamples(t *testing.T) {
	for _, r := range rules.All() {
		if r.Bad == "" || r.Check == nil && r.Cross == nil {
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			eng, err := engine.New(rules.All(), nil, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			count := func(src string) int {
				f := manifest.Parse("example.yaml", []byte(src), manifest.Context{})
				n := 0
				for _, fd := range eng.LintObjects(f.Objects) {
					if fd.Rule == r.ID {
						n++
					}
				}
				return n
			}
			if count(r.Bad) == 0 {
				t.Errorf("Bad example does not fire %s", r.ID)
			}
			if n := count(r.Good); n != 0 {
				t.Errorf("Good example fires %s %d times", r.ID, n)
			}
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
