package rules_test

import (
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

// Run with: go test -run '^$' -bench . -benchmem ./rules/
// Each rule runs over every object of the corpus, parsed once up front, so
// the figures are the rule's own cost: ns and allocations per object.

func corpusObjects(b *testing.B) []*manifest.Object {
	var objs []*manifest.Object
	for _, f := range corpus.Files(b) {
		objs = append(objs, manifest.Parse(f.Path, f.Data, manifest.Context{}).Objects...)
	}
	return objs
}

func BenchmarkRules(b *testing.B) {
	objs := corpusObjects(b)
	for _, r := range rules.All() {
		if r.Check == nil && r.Cross == nil {
			continue // reported by the engine, not a check
		}
		b.Run(r.ID, func(b *testing.B) {
			benchRule(b, r, objs)
		})
	}
}

// BenchmarkRulesSmall runs every rule on the rule examples (bad and good),
// the size of a pre-commit run.
func BenchmarkRulesSmall(b *testing.B) {
	var objs []*manifest.Object
	for _, r := range rules.All() {
		for _, src := range []string{r.Documentation().Bad, r.Documentation().Good} {
			objs = append(objs, manifest.Parse(r.ID+".yaml", []byte(src), manifest.Context{}).Objects...)
		}
	}
	for _, r := range rules.All() {
		if r.Check == nil && r.Cross == nil {
			continue
		}
		b.Run(r.ID, func(b *testing.B) {
			benchRule(b, r, objs)
		})
	}
}

func benchRule(b *testing.B, r *analysis.Rule, objs []*manifest.Object) {
	findings := 0
	sink := func(analysis.Finding) { findings++ }
	cfg := &config.Config{}
	corpus.PerUnit(b, len(objs), "obj", func() {
		findings = 0
		if r.Check != nil {
			for _, obj := range objs {
				if obj.Partial && !r.Targets.Has(analysis.Patches) {
					continue
				}
				r.Check(analysis.NewPass(r, obj, cfg, sink))
			}
		}
		if r.Cross != nil {
			var summaries []any
			for _, obj := range objs {
				if !obj.Partial {
					if s, ok := r.Cross.Summarize(analysis.NewPass(r, obj, cfg, nil)); ok {
						summaries = append(summaries, s)
					}
				}
			}
			r.Cross.Finish(analysis.NewCrossPass(r, cfg, map[any]any{}, make([]analysis.AppID, len(summaries)), nil, sink), summaries)
		}
	})
	b.ReportMetric(float64(findings), "findings")
}
