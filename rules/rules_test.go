package rules_test

import (
	"path/filepath"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysistest"
	"github.com/shipshape-dev/shipshape/rules"
)

// TestRules runs every rule over its fixtures, testdata/<rule-id>: the
// findings each fixture's `# want` comments name, and the fixed bytes its
// .golden files hold (go test ./rules -run TestRules -update rewrites
// them: review them before committing). Its rendered-tree cases,
// testdata/<rule-id>/render/<case>/, are linted as `shipshape lint` lints
// a directory, kustomize roots rendered (subtest render). A change rule's
// fixtures are base/head pairs (analysistest.RunChange); it runs only
// under lint --base, so it has no render cases of plain lint. A new rule
// needs nothing here, only its directory; see README.md.
func TestRules(t *testing.T) {
	for _, r := range rules.All() {
		t.Run(r.ID, func(t *testing.T) {
			dir := filepath.Join("testdata", r.ID)
			if r.Change != nil {
				analysistest.RunChange(t, dir, r)
				return
			}
			analysistest.RunWithFixes(t, dir, r, analysistest.WithRules(rules.All()...))
			t.Run(analysistest.RenderDir, func(t *testing.T) {
				analysistest.RunTreeWithFixes(t, filepath.Join(dir, analysistest.RenderDir), r, analysistest.WithRules(rules.All()...))
			})
		})
	}
}
