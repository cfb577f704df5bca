package report

import (
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

func TestDescribe(t *testing.T) {
	tests := []struct {
		name string
		f    analysis.Finding
		want string
	}{
		{"whole", analysis.Finding{File: "web.yaml", Resource: manifest.Resource{Kind: "Deployment", Name: "web", Namespace: "prod"}, Field: "spec.replicas", Severity: analysis.Error, Rule: "r", Message: "m"},
			"shipshape: web.yaml: Deployment/web (namespace prod): spec.replicas: error r: m"},
		{"stdin, no field", analysis.Finding{File: manifest.Stdin, Resource: manifest.Resource{Kind: "Service", Name: "s"}, Severity: analysis.Warning, Rule: "r", Message: "m"},
			"shipshape: Service/s: warning r: m"},
		{"kind without a name", analysis.Finding{File: "kustomization.yaml", Resource: manifest.Resource{Kind: "Kustomization"}, Severity: analysis.Info, Rule: "r", Message: "m"},
			"shipshape: kustomization.yaml: Kustomization: info r: m"},
		{"line breaks in names and message", analysis.Finding{Resource: manifest.Resource{Kind: "ConfigMap", Name: "a\nshipshape: b"}, Severity: analysis.Error, Rule: "r", Message: "one\r\ntwo"},
			"shipshape: ConfigMap/a shipshape: b: error r: one two"},
	}
	for _, tt := range tests {
		if got := Describe(tt.f); got != tt.want {
			t.Errorf("%s: Describe = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFailingSummary(t *testing.T) {
	fixable := analysis.Finding{Fix: &analysis.Fix{}}
	tests := []struct {
		failing      []analysis.Finding
		failOn, mode string
		want         string
	}{
		{[]analysis.Finding{{}}, "", "lint", "shipshape: 1 finding at or above error"},
		{[]analysis.Finding{fixable, {}}, "Warning", "lint", "shipshape: 2 findings at or above warning; 1 fixable with mode: fix"},
		{[]analysis.Finding{fixable}, "", "fix", "shipshape: 1 finding at or above error left after fixing"},
	}
	for _, tt := range tests {
		if got := FailingSummary(tt.failing, tt.failOn, tt.mode); got != tt.want {
			t.Errorf("FailingSummary = %q, want %q", got, tt.want)
		}
	}
}

func TestFixLines(t *testing.T) {
	fd := analysis.Finding{File: "a.yaml", Line: 7, Rule: "r", Resource: manifest.Resource{Kind: "ConfigMap", Name: "c\x1b[31m"}}
	if got, want := FixedLine("would fix", fd), `would fix a.yaml:7: r: ConfigMap/c\x1b[31m`; got != want {
		t.Errorf("FixedLine = %q, want %q", got, want)
	}
	if got, want := FixTotals("fixed", 1, 1, 0), "fixed 1 finding in 1 file; 0 left"; got != want {
		t.Errorf("FixTotals = %q, want %q", got, want)
	}
	if got, want := FixTotals("would fix", 3, 2, 1), "would fix 3 findings in 2 files; 1 left"; got != want {
		t.Errorf("FixTotals = %q, want %q", got, want)
	}
}
