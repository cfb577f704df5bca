package rules_test

import (
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/analysistest"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

// exampleAppliers is how the Bad and Good examples of the change rules are
// applied (their documents say so in a comment).
var exampleAppliers = map[string]analysis.Applier{
	"change-recreates":           {Engine: analysis.EngineArgoCD, Known: true},
	"change-old-controller-kept": {Engine: analysis.EngineKubectl, Known: true},
	"change-selector-with-label": {Engine: analysis.EngineArgoCD, Prune: true, Known: true},
	"refused-update":             {Engine: analysis.EngineKubectl, Known: true},
}

// headMarker starts the head revision in a change rule's example: the
// documents before it are the base.
const headMarker = "\n---\n# head"

// TestChangeExamples is TestExamples for change rules: the Bad example (a
// base and a head) fires the rule, the Good one does not.
func TestChangeExamples(t *testing.T) {
	n := 0
	for _, r := range rules.All() {
		if r.Change == nil {
			continue
		}
		n++
		t.Run(r.ID, func(t *testing.T) {
			ap, ok := exampleAppliers[r.ID]
			if !ok {
				t.Fatalf("no applier for the examples of %s in exampleAppliers", r.ID)
			}
			count := func(which, src string) int {
				i := strings.Index(src, headMarker)
				if i < 0 {
					t.Fatalf("%s example has no %q line starting the head", which, headMarker[5:])
				}
				base := manifest.Parse("base.yaml", []byte(src[:i+1]), manifest.Context{})
				head := manifest.Parse("head.yaml", []byte(src[i+len("\n---\n"):]), manifest.Context{})
				if len(base.Errors)+len(head.Errors) > 0 || len(base.Objects) == 0 || len(head.Objects) == 0 {
					t.Fatalf("%s example does not parse into objects: %v %v", which, base.Errors, head.Errors)
				}
				return len(analysistest.RunChangeObjects(r, base.Objects, head.Objects, ap, nil))
			}
			if count("Bad", r.Documentation().Bad) == 0 {
				t.Errorf("Bad example does not fire %s", r.ID)
			}
			if got := count("Good", r.Documentation().Good); got != 0 {
				t.Errorf("Good example fires %s %d times", r.ID, got)
			}
		})
	}
	if n == 0 {
		t.Fatal("no change rule is registered")
	}
}
