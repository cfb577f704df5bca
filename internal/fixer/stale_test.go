package fixer

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shipshape-dev/shipshape/internal/scope"
)

// TestWriteFileRemovesStaleTemps: a temporary file of shipshape's own
// pattern that a killed run left beside the file is removed when the file
// is written again; a young one (a concurrent run's) and files that only
// look alike stay.
func TestWriteFileRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cm.yaml")
	write(t, path, original)
	old := time.Now().Add(-2 * staleAfter)
	files := map[string]bool{ // name: removed
		".cm.yaml.shipshape-1234567":     true,
		".cm.yaml.shipshape-42":          false, // young: another run may be writing it
		".cm.yaml.shipshape-12x":         false, // not digits
		".cm.yaml.shipshape-":            false,
		".other.yaml.shipshape-1234":     false, // another file's
		"cm.yaml.shipshape-1234":         false, // no leading dot
		".cm.yaml.shipshape-1234.backup": false,
	}
	for name := range files {
		p := filepath.Join(dir, name)
		write(t, p, "left behind")
		if name != ".cm.yaml.shipshape-42" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A directory of that name is not a temporary file.
	oldDir := filepath.Join(dir, ".cm.yaml.shipshape-99")
	if err := os.Mkdir(oldDir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(oldDir, old, old)

	snap, err := Take(path, []byte(original))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte(fixed), snap, scope.Of([]string{dir})); err != nil {
		t.Fatal(err)
	}
	for name, removed := range files {
		_, err := os.Lstat(filepath.Join(dir, name))
		if gone := os.IsNotExist(err); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
	}
	if _, err := os.Lstat(oldDir); err != nil {
		t.Errorf("directory %s: %v", oldDir, err)
	}
}
