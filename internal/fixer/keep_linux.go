//go:build linux

package fixer

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// keepAttributes gives the temporary file that replaces target what the
// original had besides its bytes: owner, group, extended attributes and
// mode (setuid, setgid and sticky bits included). The rename makes a new
// inode, so without this a root `fix` on a bind-mounted checkout leaves
// files owned by root.
//
// Owner and group are best effort: only root may give a file away, and a
// user may only choose a group they belong to. When the original's owner
// cannot be kept, its group alone is tried; when neither can, the file
// ends owned by whoever ran fix, as any editor's save-by-rename leaves it
// (refusing would stop fixing group-writable files in shared checkouts).
// Extended attributes are copied where the file system and this user
// allow (user.* for the owner, security.* and trusted.* for root); one
// that cannot be set is left out.
func keepAttributes(tmp *os.File, target string, st fs.FileInfo) error {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		if err := tmp.Chown(int(sys.Uid), int(sys.Gid)); err != nil {
			tmp.Chown(-1, int(sys.Gid))
		}
	}
	copyXattrs(int(tmp.Fd()), target)
	// After Chown: changing the owner clears setuid and setgid.
	return tmp.Chmod(st.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky))
}

// copyXattrs copies target's extended attributes onto the open file fd.
func copyXattrs(fd int, target string) {
	names, err := listXattrs(target)
	if err != nil {
		return
	}
	for _, name := range names {
		value, err := getXattr(target, name)
		if err != nil {
			continue
		}
		unix.Fsetxattr(fd, name, value, 0)
	}
}

// listXattrs returns the names of path's extended attributes (none where
// the file system has no such thing).
func listXattrs(path string) ([]string, error) {
	buf, err := xattrCall(func(b []byte) (int, error) { return unix.Listxattr(path, b) })
	if err != nil || len(buf) == 0 {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(buf), "\x00"), "\x00"), nil
}

func getXattr(path, name string) ([]byte, error) {
	return xattrCall(func(b []byte) (int, error) { return unix.Getxattr(path, name, b) })
}

// xattrCall asks call for the size first, then the value; ERANGE means the
// value grew in between, and is retried once.
func xattrCall(call func([]byte) (int, error)) ([]byte, error) {
	for range 2 {
		n, err := call(nil)
		if err != nil || n == 0 {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = call(buf)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
	return nil, unix.ERANGE
}
