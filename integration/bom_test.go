package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBOMAfterSeparator: a UTF-8 BOM that opens a document after `---` is
// skipped by kustomize, which keeps that document's apiVersion; shipshape
// reads the file the same way (no "no apiVersion" finding), and fix edits
// the BOM's line at the right bytes, keeping the BOM.
func TestBOMAfterSeparator(t *testing.T) {
	t.Parallel()
	kustomize := need(t, "kustomize", installKustomize)
	shipshape := filepath.Join(binDir, "shipshape")
	const bom = "\xef\xbb\xbf"
	cms := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n" +
		"---\n" + bom + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n" +
		"---\n" + bom + "data: {k: yes}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "app", "cms.yaml"), cms)
	writeFile(t, filepath.Join(dir, "app", "kustomization.yaml"), "resources:\n- cms.yaml\n")
	writeFile(t, filepath.Join(dir, "plain", "cms.yaml"), cms)

	r := run(t, dir, nil, kustomize, "build", "app")
	if r.code != 0 {
		t.Fatalf("kustomize build: %v", r)
	}
	if n := strings.Count(r.stdout, "apiVersion: v1\n"); n != 3 {
		t.Fatalf("kustomize build renders %d objects with apiVersion v1, want 3:\n%s", n, r.stdout)
	}

	r = run(t, dir, nil, shipshape, "lint", "--format", "json", ".")
	wantNone(t, "lint", r.stdout, "no apiVersion", "type-mismatch", "yaml-syntax")
	// k: yes is reported, at its place on the BOM's line (the BOM is a
	// column), in the plain file and in the root's source.
	wantAll(t, "lint", r.stdout, `"line": 11,`, `"column": 12,`)

	if r := run(t, dir, nil, shipshape, "fix", "--fail-on", "none", "plain"); r.code != 0 {
		t.Fatalf("shipshape fix: %v", r)
	}
	got, err := os.ReadFile(filepath.Join(dir, "plain", "cms.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(cms, "{k: yes}", `{k: "yes"}`, 1); string(got) != want {
		t.Errorf("fixed file:\n%q\nwant:\n%q", got, want)
	}
}
