package rules

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

func TestClosestField(t *testing.T) {
	fields := []string{"fsType", "image", "imagePullPolicy", "initialDelaySeconds", "keyring", "monitors", "periodSeconds", "pool", "protectionDomain", "readOnly", "resources", "secretRef", "user"}
	tests := []struct {
		name, want string
		whole      bool // a field of other types: not cut short
	}{
		{"protectionDoamin", "protectionDomain", false}, // a transposition
		{"imagePullpolicy", "imagePullPolicy", false},   // case only
		{"IMAGE", "image", false},
		{"resource", "resources", true},
		{"initialDelay", "initialDelaySeconds", false}, // cut short
		{"initialDelay", "", true},                     // whole, elsewhere
		{"imagefeatures", "", false},                   // a StorageClass parameter, not a field
		{"secretName", "", false},
		{"foo", "", false},
		{"usr", "user", false},
		{"", "", false},
		{strings.Repeat("x", 200), "", false},
	}
	for _, tt := range tests {
		got, ok := closestField(tt.name, fields, !tt.whole)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("closestField(%q) = %q, %v; want %q", tt.name, got, ok, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"abc", "abc", 0},
		{"ab", "ba", 1}, {"protectiondoamin", "protectiondomain", 1},
		{"kitten", "sitting", 3}, {"ca", "abc", 3},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestIsTemplateVariable(t *testing.T) {
	for s, want := range map[string]bool{
		"${PORT}": true, "${PORT:-9000}": true, "${A}${B}": false, "$PORT": false,
		"${": false, "x${A}": false, "${A} ": false, "$(A)": false,
		"${APP_UID:-${DEFAULT_UID}}": true, "${A:-${B}": false, "${A:-${B}}x": false,
	} {
		if got := isTemplateVariable(s); got != want {
			t.Errorf("isTemplateVariable(%q) = %v", s, got)
		}
	}
	for s, want := range map[string]bool{
		"${CAPACITY_GB}Gi": true, "x${A}": true, "${A:-${B}}": true, "${A": false, "10Gi": false, "$A": false,
	} {
		if got := hasTemplateVariable(s); got != want {
			t.Errorf("hasTemplateVariable(%q) = %v", s, got)
		}
	}
}

func TestValidTime(t *testing.T) {
	for s, want := range map[string]bool{
		"2024-01-01T00:00:00Z": true, "2024-01-01T00:00:00.123456Z": true,
		"2024-01-01T00:00:00+02:00": true, "2024-01-01": false, "": false, "yesterday": false,
	} {
		if got := validTime(s); got != want {
			t.Errorf("validTime(%q) = %v", s, got)
		}
	}
}

// TestAliasBombIsLinear: the walks of duplicate-key, type-mismatch and
// unknown-field never follow aliases, so a "billion laughs" placed in
// typed positions of a built-in object costs its own size.
func TestAliasBombIsLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bomb\n  annotations:\n    a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, "    b%d: &b%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", "))
		prev = fmt.Sprintf("b%d", i)
	}
	fmt.Fprintf(&b, "spec:\n  template:\n    spec:\n      containers: *%s\n      volumes: *%s\n", prev, prev)
	f := manifest.Parse("bomb.yaml", []byte(b.String()), manifest.Context{})
	if len(f.Objects) != 1 {
		t.Fatalf("objects: %d, errors %v", len(f.Objects), f.Errors)
	}
	var found []analysis.Finding
	for _, id := range []string{"duplicate-key", "type-mismatch", "unknown-field", "ambiguous-scalar"} {
		Get(id).Check(analysis.NewPass(Get(id), f.Objects[0], &config.Config{}, func(fd analysis.Finding) { found = append(found, fd) }))
	}
	// Each annotation is a list where a string belongs; the aliased
	// containers and volumes are lists, as they should be.
	if len(found) != 13 {
		t.Errorf("%d findings: %+v", len(found), found)
	}
}

func parseNode(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}
