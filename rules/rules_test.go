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
// them: review them before committing). A change rule's fixtures are
// base/head pairs (analysistest.RunChange). A new rule needs nothing
// here, only its directory; see README.md.
func TestRules(t *testing.T) {
	for _, r := range rules.All() {
		t.Run(r.ID, func(t *testing.T) {
			dir := filepath.Join("testdata", r.ID)
			if r.Change != nil {
				analysistest.RunChange(t, dir, r)
				return
			}
			analysistest.RunWithFixes(t, dir, r, analysistest.WithRules(rules.All()...))
		})
	}
}
