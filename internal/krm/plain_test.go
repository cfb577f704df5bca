package krm

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/rules"
)

// TestPlainStreamKeepsAnnotations: a plain stream of objects (not a
// ResourceList) comes back with the annotations it had: no
// config.kubernetes.io/index added, none of kustomize's legacy annotations
// copied to their new names, the user's kept.
func TestPlainStreamKeepsAnnotations(t *testing.T) {
	in := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: yes\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  annotations:\n    team: x\n    config.kubernetes.io/path: b.yaml\n    config.k8s.io/id: '1'\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    config.kubernetes.io/index: '7'\n    internal.config.kubernetes.io/index: '3'\n"
	var out bytes.Buffer
	res, err := Run(strings.NewReader(in), &out, rules.All())
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != in {
		t.Errorf("wrote\n%s\nwant the input as it was:\n%s", out.String(), in)
	}
	if len(res.Findings) != 1 || res.Findings[0].Rule != "ambiguous-scalar" {
		t.Errorf("findings %v, want the one ambiguous-scalar", res.Findings)
	}
}
