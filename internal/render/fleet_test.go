package render

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFleetOverlay: a root is refused when a fleet.yaml at or above it
// renders it over a Helm chart (helm set, kustomize.dir naming it, at the
// top or in a target customization), and rendered as usual otherwise.
func TestFleetOverlay(t *testing.T) {
	tests := []struct {
		name, fleet string
		refused     bool
		line        int
		// overlayOnly scans the overlay's directory, below fleet.yaml.
		overlayOnly bool
	}{
		{"helm and dir", "helm:\n  chart: ./chart\nkustomize:\n  dir: overlay\n", true, 4, false},
		{"fleet.yaml above the scanned tree", "helm:\n  chart: ./chart\nkustomize:\n  dir: overlay\n", true, 4, true},
		{"target customization", "helm: {chart: ./chart}\ntargetCustomizations:\n- name: a\n  kustomize: {dir: ./overlay}\n", true, 4, false},
		{"helm in the target only", "targetCustomizations:\n- name: a\n  helm: {chart: ./chart}\n  kustomize: {dir: overlay/}\n", true, 4, false},
		{"no helm: Fleet builds the kustomization itself", "kustomize:\n  dir: overlay\n", false, 0, false},
		{"another directory", "helm: {chart: ./chart}\nkustomize: {dir: other}\n", false, 0, false},
		{"not YAML", "helm: [\n", false, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			overlay := filepath.Join(dir, "overlay")
			if err := os.MkdirAll(overlay, 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: elsewhere\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "fleet.yaml"), []byte(tc.fleet), 0o644)
			os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte("namePrefix: a-\n"), 0o644)
			scan := dir
			if tc.overlayOnly {
				scan = overlay
			}
			g, err := Discover([]string{scan})
			if err != nil || len(g.Roots) != 1 {
				t.Fatalf("want one root: %v", err)
			}
			p := Refuse(g, g.Roots[0])
			if (p != nil) != tc.refused {
				t.Fatalf("refused = %v, want %v", p, tc.refused)
			}
			if p != nil && (p.File != filepath.Join(dir, "fleet.yaml") || p.Line != tc.line || !p.Refused) {
				t.Errorf("problem at %s:%d (refused %v), want fleet.yaml:%d", p.File, p.Line, p.Refused, tc.line)
			}
		})
	}
}
