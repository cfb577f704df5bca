package fixer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/scope"
)

const (
	original = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: yes}\n"
	fixed    = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: \"yes\"}\n"
	theirs   = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: edited}\n"
)

// runningAsRoot: root ignores permission bits, so tests that rely on them
// skip (CI runs as root; the tests that matter most do not rely on them).
func runningAsRoot() bool { return os.Geteuid() == 0 }

// TestWriteFileFaults drives WriteFile through the faults `fix` must
// survive. In each, the file ends with exactly the bytes `want` (the fix,
// or the original, or what another writer put there), with its mode, and
// no temporary file is left in the directory.
func TestWriteFileFaults(t *testing.T) {
	tests := []struct {
		name string
		mode os.FileMode
		// before runs after the snapshot is taken, before WriteFile.
		before func(t *testing.T, dir, path string)
		// during replaces the temporary file's writer.
		during  func(path string) func(*os.File, []byte) error
		root    bool // needs permission bits to bind: skipped as root
		wantErr error
		errText string
		want    string
	}{
		{name: "ok", want: fixed},
		{name: "mode kept", mode: 0o600, want: fixed},
		{
			name:    "changed between read and write",
			before:  func(t *testing.T, _, path string) { write(t, path, theirs) },
			wantErr: ErrChanged, want: theirs,
		},
		{
			name: "changed, same size and time",
			before: func(t *testing.T, _, path string) {
				st, _ := os.Stat(path)
				write(t, path, strings.Replace(original, "yes", "yep", 1))
				os.Chtimes(path, st.ModTime(), st.ModTime())
			},
			wantErr: ErrChanged, want: strings.Replace(original, "yes", "yep", 1),
		},
		{
			name: "changed while the temporary file is written",
			during: func(path string) func(*os.File, []byte) error {
				return func(f *os.File, data []byte) error {
					if err := os.WriteFile(path, []byte(theirs), 0o644); err != nil {
						return err
					}
					_, err := f.Write(data)
					return err
				}
			},
			wantErr: ErrChanged, want: theirs,
		},
		{
			name: "disk full halfway",
			during: func(string) func(*os.File, []byte) error {
				return func(f *os.File, data []byte) error {
					f.Write(data[:len(data)/2])
					return syscall.ENOSPC
				}
			},
			wantErr: syscall.ENOSPC, want: original,
		},
		{
			name: "I/O error",
			during: func(string) func(*os.File, []byte) error {
				return func(*os.File, []byte) error { return syscall.EIO }
			},
			wantErr: syscall.EIO, want: original,
		},
		{name: "read-only file", mode: 0o444, wantErr: ErrReadOnly, want: original},
		{
			name:    "vanished",
			before:  func(t *testing.T, _, path string) { os.Remove(path) },
			wantErr: os.ErrNotExist,
		},
		{
			name: "read-only directory", root: true,
			before:  func(t *testing.T, dir, _ string) { chmod(t, dir, 0o555) },
			wantErr: os.ErrPermission, want: original,
		},
		{
			name: "file not writable by this user", root: true, mode: 0o644,
			before: func(t *testing.T, _, path string) {
				// Group and others may write, the owner may not.
				chmod(t, path, 0o466)
			},
			wantErr: ErrReadOnly, want: original,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.root && runningAsRoot() {
				t.Skip("running as root, which ignores permission bits: this fault cannot be simulated")
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "cm.yaml")
			mode := tt.mode
			if mode == 0 {
				mode = 0o644
			}
			write(t, path, original)
			chmod(t, path, mode)
			snap, err := Take(path, []byte(original))
			if err != nil {
				t.Fatal(err)
			}
			if tt.before != nil {
				tt.before(t, dir, path)
			}
			if tt.during != nil {
				old := writeTemp
				writeTemp = tt.during(path)
				defer func() { writeTemp = old }()
			}
			err = WriteFile(path, []byte(fixed), snap, scope.Of([]string{dir}))
			chmod(t, dir, 0o755)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("WriteFile: %v", err)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("WriteFile: %v, want %v", err, tt.wantErr)
			}
			if tt.want != "" {
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tt.want {
					t.Errorf("file holds %q, want %q", got, tt.want)
				}
				if st, _ := os.Stat(path); tt.wantErr == nil && st.Mode().Perm() != mode {
					t.Errorf("mode %v, want %v", st.Mode().Perm(), mode)
				}
			}
			noTemporaries(t, dir)
		})
	}
}

// TestWriteFileSymlinks: a link is followed to a target inside the given
// paths (the link stays a link); one leading outside is refused.
func TestWriteFileSymlinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	inside := filepath.Join(root, "real.yaml")
	write(t, inside, original)
	link := filepath.Join(root, "link.yaml")
	if err := os.Symlink(inside, link); err != nil {
		t.Skip("symlinks not supported:", err)
	}
	snap, _ := Take(link, []byte(original))
	if err := WriteFile(link, []byte(fixed), snap, scope.Of([]string{root})); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(inside); string(got) != fixed {
		t.Errorf("target holds %q", got)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}

	far := filepath.Join(outside, "far.yaml")
	write(t, far, original)
	farLink := filepath.Join(root, "far.yaml")
	os.Symlink(far, farLink)
	snap, _ = Take(farLink, []byte(original))
	if err := WriteFile(farLink, []byte(fixed), snap, scope.Of([]string{root})); err == nil || !strings.Contains(err.Error(), "outside the paths given") {
		t.Errorf("link outside the roots: %v", err)
	}
	if got, _ := os.ReadFile(far); string(got) != original {
		t.Errorf("file outside the roots was written: %q", got)
	}
	// Not through a link either: every target is checked (a base a
	// kustomization names outside the repository).
	snap, _ = Take(far, []byte(original))
	if err := WriteFile(far, []byte(fixed), snap, scope.Of([]string{root})); err == nil || !strings.Contains(err.Error(), "outside the paths given") {
		t.Errorf("file outside the roots: %v", err)
	}
	if got, _ := os.ReadFile(far); string(got) != original {
		t.Errorf("file outside the roots was written: %q", got)
	}
	noTemporaries(t, root)
	noTemporaries(t, outside)
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func noTemporaries(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".shipshape-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
