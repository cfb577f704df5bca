package engine

import (
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Which objects each kind of rule declaration is given: the dispatch the
// three flags ValueLevel, Source and Rendered made before Targets.
func TestJudges(t *testing.T) {
	const (
		objects   = analysis.Objects
		values    = analysis.Objects | analysis.Patches
		asRead    = analysis.SourceFiles | analysis.Patches                           // duplicate-key
		asReadAll = analysis.SourceFiles | analysis.Patches | analysis.RenderedValues // ambiguous-scalar
	)
	plain := &manifest.Object{}
	patch := &manifest.Object{Partial: true}
	source := &manifest.Object{Kustomize: []string{"overlays/prod"}}
	sourcePatch := &manifest.Object{Partial: true, Kustomize: []string{"overlays/prod"}}
	assertion := &manifest.Object{Assertion: true}
	for _, c := range []struct {
		name     string
		obj      *manifest.Object
		rendered bool
		want     map[analysis.Targets]bool
	}{
		{"plain manifest", plain, false, map[analysis.Targets]bool{objects: true, values: true, asRead: true, asReadAll: true}},
		{"patch outside a root", patch, false, map[analysis.Targets]bool{objects: false, values: true, asRead: true, asReadAll: true}},
		{"a root's source", source, false, map[analysis.Targets]bool{objects: false, values: false, asRead: true, asReadAll: true}},
		{"a root's patch", sourcePatch, false, map[analysis.Targets]bool{objects: false, values: false, asRead: true, asReadAll: true}},
		{"test assert file", assertion, false, map[analysis.Targets]bool{objects: false, values: false, asRead: true, asReadAll: true}},
		{"rendered object", plain, true, map[analysis.Targets]bool{objects: true, values: true, asRead: false, asReadAll: true}},
	} {
		for targets, want := range c.want {
			if got := judges(targets, c.obj, c.rendered); got != want {
				t.Errorf("%s, targets %s: judged %v, want %v", c.name, targets, got, want)
			}
		}
	}
}
