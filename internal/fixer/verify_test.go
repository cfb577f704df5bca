package fixer

import (
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

func TestVerify(t *testing.T) {
	quoted := analysis.Finding{Rule: "ambiguous-scalar", Message: "unquoted on", Line: 4}
	failed := analysis.Finding{Rule: "render-error", Message: "cannot build", Line: 4}
	hidden := analysis.Finding{Rule: "daemonset-replicas", Message: "no replicas", Line: 6}
	tests := []struct {
		name      string
		after     []analysis.Finding
		uncovered bool
		ok        bool
	}{
		{"fixed", nil, false, true},
		{"one left as it was", []analysis.Finding{failed}, false, true},
		{"the fixed one left", []analysis.Finding{quoted}, false, false},
		{"a new one", []analysis.Finding{hidden}, false, false},
		{"a new one the fix uncovers", []analysis.Finding{hidden}, true, true},
		{"the fixed one left, uncovering", []analysis.Finding{quoted}, true, false},
	}
	for _, tt := range tests {
		err := verify([]analysis.Finding{quoted, failed}, []analysis.Finding{quoted}, tt.after, tt.uncovered)
		if (err == nil) != tt.ok {
			t.Errorf("%s: verify = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}
