package fixer

import (
	"os"
	"path/filepath"
	"testing"
)

// A file linted under two names (b/cm.yaml links to a/cm.yaml, as
// `--render none` reads it) is fixed once: no "changed while fixing".
func TestFilesWritesALinkedFileOnce(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n    enabled: yes\n"
	if err := os.WriteFile(filepath.Join(dir, "a", "cm.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "a", "cm.yaml"), filepath.Join(dir, "b", "cm.yaml")); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	res, outcomes, failures := fixRun(t, dir, false, nil)
	if len(failures) > 0 || len(outcomes) != 2 {
		t.Fatalf("outcomes %d, failures %v", len(outcomes), failures)
	}
	for _, fd := range res.Findings {
		t.Errorf("left: %s:%d %s", fd.File, fd.Line, fd.Message)
	}
	got, err := os.ReadFile(filepath.Join(dir, "a", "cm.yaml"))
	if err != nil || string(got) != "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n    enabled: \"yes\"\n" {
		t.Errorf("a/cm.yaml: %q, %v", got, err)
	}
	if l, err := os.Readlink(filepath.Join(dir, "b", "cm.yaml")); err != nil || l != filepath.Join("..", "a", "cm.yaml") {
		t.Errorf("b/cm.yaml is no longer the link: %q, %v", l, err)
	}
}
