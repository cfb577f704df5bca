//go:build linux

package fixer

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shipshape-dev/shipshape/internal/scope"
)

// TestWriteFileKeepsOwner: the file fix writes keeps its owner, group,
// mode (setgid included) and extended attributes, although it is a new
// inode. Giving a file away needs root, so this runs as root (as CI does).
func TestWriteFileKeepsOwner(t *testing.T) {
	if !runningAsRoot() {
		t.Skip("only root may create a file owned by another user")
	}
	const uid, gid = 65534, 65533
	dir := t.TempDir()
	path := filepath.Join(dir, "cm.yaml")
	write(t, path, original)
	if err := os.Chown(path, uid, gid); err != nil {
		t.Fatal(err)
	}
	mode := os.FileMode(0o640) | os.ModeSetgid
	chmod(t, path, mode)
	xattr := []byte("kept")
	hasXattr := unix.Setxattr(path, "user.shipshape-test", xattr, 0) == nil
	if !hasXattr {
		t.Log("the file system refuses user extended attributes: not checked")
	}
	snap, err := Take(path, []byte(original))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte(fixed), snap, scope.Of([]string{dir})); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != fixed {
		t.Fatalf("file holds %q", got)
	}
	sys := st.Sys().(*syscall.Stat_t)
	if sys.Uid != uid || sys.Gid != gid {
		t.Errorf("owner %d:%d, want %d:%d", sys.Uid, sys.Gid, uid, gid)
	}
	if st.Mode() != mode {
		t.Errorf("mode %v, want %v", st.Mode(), mode)
	}
	if hasXattr {
		got, err := getXattr(path, "user.shipshape-test")
		if err != nil || !bytes.Equal(got, xattr) {
			t.Errorf("extended attribute user.shipshape-test = %q, %v; want %q", got, err, xattr)
		}
	}
	noTemporaries(t, dir)
}

// TestXattrCallRetries: a value that grows between the size query and
// the read (ERANGE) is asked for again.
func TestXattrCallRetries(t *testing.T) {
	calls := 0
	got, err := xattrCall(func(b []byte) (int, error) {
		calls++
		switch {
		case b == nil && calls == 1:
			return 2, nil
		case b == nil:
			return 4, nil
		case len(b) < 4:
			return 0, unix.ERANGE
		}
		return copy(b, "grew"), nil
	})
	if err != nil || string(got) != "grew" {
		t.Errorf("xattrCall = %q, %v after %d calls", got, err, calls)
	}
	if _, err := xattrCall(func([]byte) (int, error) { return 0, unix.ENOTSUP }); !errors.Is(err, unix.ENOTSUP) {
		t.Errorf("error %v, want ENOTSUP", err)
	}
}
