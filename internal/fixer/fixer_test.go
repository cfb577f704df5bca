package fixer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
	"github.com/shipshape-dev/shipshape/transformers"
)

// TestVerifyRefusesBadFix: a fix whose result re-lints with a finding that
// was not there before is not applied, and the outcome says why.
func TestVerifyRefusesBadFix(t *testing.T) {
	eng, err := engine.New(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n"
	f := manifest.Parse("x.yaml", []byte(src), manifest.Context{})
	dataKey, _ := manifest.MapEntry(f.Objects[0].Node, "data")
	bogus := rules.Finding{
		Rule: "ambiguous-scalar", Severity: rules.Error, File: "x.yaml", Line: 5, Column: 1,
		Message: "made up for the test",
		Fix:     &transformers.Fix{Message: "rename", Edits: []transformers.Edit{{Op: transformers.RenameKey, Node: dataKey, Value: "daat"}}},
	}
	o := Fix(eng, &engine.FileResult{Input: manifest.Input{Path: "x.yaml"}, File: f, Findings: []rules.Finding{bogus}})
	if o.Err == nil || !strings.Contains(o.Err.Error(), "not written") {
		t.Fatalf("Err = %v, want a refusal", o.Err)
	}
	if o.Changed() || !bytes.Equal(o.Out, []byte(src)) {
		t.Errorf("refused fix still changed the output:\n%s", o.Out)
	}
}
