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
// them: review them before committing). A new rule needs nothing here,
// only its directory; see README.md.
func TestRules(t *testing.T) {
	for _, r := range rules.All() {
		if r.Change != nil && r.Check == nil && r.Cross == nil && r.CheckFile == nil {
			continue // a change rule judges base and head (lint --base): its tests pair them (refused_update_test.go)
		}
		t.Run(r.ID, func(t *testing.T) {
			analysistest.RunWithFixes(t, filepath.Join("testdata", r.ID), r, analysistest.WithRules(rules.All()...))
		})
	}
}
