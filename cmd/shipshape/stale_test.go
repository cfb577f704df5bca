package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFixRemovesStaleTemporaries: a temporary file that a killed fix run
// left beside a file (.NAME.shipshape-NNNN) is removed when the next fix
// writes that file; a file that only looks like one stays.
func TestFixRemovesStaleTemporaries(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	dir := t.TempDir()
	cm := filepath.Join(dir, "cm.yaml")
	if err := os.WriteFile(cm, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: yes}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, ".cm.yaml.shipshape-2817461")
	kept := []string{
		filepath.Join(dir, ".cm.yaml.shipshape-2817461.orig"),
		filepath.Join(dir, ".other.yaml.shipshape-2817461"),
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range append(kept, stale) {
		if err := os.WriteFile(p, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: half"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	out := runIn(t, dir, exitOK, "fix", dir)
	if !strings.Contains(out, "fixed 1 finding in 1 file") {
		t.Fatalf("fix:\n%s", out)
	}
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", filepath.Base(stale), err)
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
}
