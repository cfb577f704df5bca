// Package testtree writes the trees tests lint: one helper instead of a
// copy in every package's tests.
package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write creates each file of files (a path relative to dir, with its
// contents) under dir, making the directories it needs.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
