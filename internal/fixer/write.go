package fixer

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/shipshape-dev/shipshape/internal/scope"
)

// Snapshot records what a file looked like when it was read, to detect a
// change made by someone else before the fixed bytes are written.
type Snapshot struct {
	Size    int64
	ModTime int64
	Hash    [32]byte
}

// Take records path's state for the bytes that were read from it.
func Take(path string, data []byte) (Snapshot, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Snapshot{}, err
	}
	return Snapshot{st.Size(), st.ModTime().UnixNano(), sha256.Sum256(data)}, nil
}

// ErrChanged is returned (wrapped) when the file on disk is no longer what
// was read: someone else wrote it in the meantime.
var ErrChanged = errors.New("file changed while shipshape was fixing it; skipped (run fix again)")

// ErrReadOnly is returned (wrapped) for a file nobody may write: replacing
// it by rename would succeed, and silently defeat the permission.
var ErrReadOnly = errors.New("read-only file; not written")

// writeTemp writes the new contents into the temporary file. Tests replace
// it to simulate a full disk or an I/O error.
var writeTemp = func(f *os.File, data []byte) error {
	_, err := f.Write(data)
	return err
}

// WriteFile replaces path with data atomically: a temporary file in the
// same directory is written, synced and renamed over the original, with
// the original's mode, owner, group and extended attributes (keep_linux.go);
// temporary files an earlier, killed run left for path are removed first
// (stale.go). Only a file inside sc is written (a symlink is followed to
// its target there; the link itself is kept).
//
// Nothing is written, and the temporary file is removed, when the file is
// read-only (no write permission bit, or not writable by this user), when
// it no longer matches snap (size, modification time and SHA-256 of the
// contents are compared before writing and again just before the rename),
// or when any step fails. Whatever happens, the original is either left
// as it was or replaced as a whole; a concurrent reader or a second
// shipshape sees one or the other, never a mix.
func WriteFile(path string, data []byte, snap Snapshot, sc *scope.Scope) error {
	target, err := resolve(path, sc)
	if err != nil {
		return err
	}
	st, err := unchanged(target, snap)
	if err != nil {
		return err
	}
	if err := writable(target, st); err != nil {
		return err
	}
	removeStaleTemps(target)
	tmp, err := os.CreateTemp(filepath.Dir(target), tempPattern(target))
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := writeTemp(tmp, data); err != nil {
		return err
	}
	if err := keepAttributes(tmp, target, st); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// Someone may have written the file while the temporary was written;
	// the window left is the rename itself.
	if _, err := unchanged(target, snap); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	done = true
	syncDir(filepath.Dir(target))
	return nil
}

// unchanged stats and reads target and compares it with snap.
func unchanged(target string, snap Snapshot) (fs.FileInfo, error) {
	st, err := os.Stat(target)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file any more; not written")
	}
	if st.Size() != snap.Size || st.ModTime().UnixNano() != snap.ModTime {
		return nil, ErrChanged
	}
	cur, err := os.ReadFile(target)
	if err != nil {
		return nil, err
	}
	if sha256.Sum256(cur) != snap.Hash {
		return nil, ErrChanged
	}
	return st, nil
}

// writable refuses a file without any write permission bit (a check that
// holds for root too) or one this user cannot open for writing. The open
// neither truncates nor changes the file.
func writable(target string, st fs.FileInfo) error {
	if st.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("%w (mode %04o)", ErrReadOnly, st.Mode().Perm())
	}
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("%w (permission denied)", ErrReadOnly)
		}
		return err
	}
	return f.Close()
}

// syncDir makes the rename durable; it is best effort (not every platform
// or file system can sync a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// resolve returns the file path names, with its links resolved, when it
// is inside sc; every target is checked, a link or not, so that nothing
// outside the scope is ever written (kustomize reaches bases anywhere).
func resolve(path string, sc *scope.Scope) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	target, inside := sc.Resolve(abs)
	if !inside {
		return "", errors.New("outside the paths given and their repository; not written")
	}
	return target, nil
}
