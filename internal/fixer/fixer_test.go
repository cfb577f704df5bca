package fixer

import (
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

// TestVerifyRefusesBadFix: a fix whose result re-lints with a finding that
// was not there before is not applied, and the outcome says why.
func TestVerifyRefusesBadFix(t *testing.T) {
	// A rule whose fix renames data to daat, which unknown-field reports.
	bogus := &analysis.Rule{ID: "bogus", Targets: analysis.Objects, Check: func(p *analysis.Pass) {
		if k, _ := manifest.MapEntry(p.Object.Node, "data"); k != nil {
			p.Report(k, "data", p.Rename(k, "daat", "rename"), "made up for the test")
		}
	}}
	eng, err := engine.New(append(rules.All(), bogus), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n"
	outs := Files(eng, eng.RunSource("x.yaml", []byte(src)), Options{DryRun: true})
	if len(outs) != 1 {
		t.Fatalf("outcomes: %+v", outs)
	}
	o := outs[0]
	if o.Err == nil || !strings.Contains(o.Err.Error(), "not written") {
		t.Fatalf("Err = %v, want a refusal", o.Err)
	}
	if o.Changed() {
		t.Errorf("refused fix still changed the output:\n%s", o.Out)
	}
}
