package fixer

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// WriteFile replaces path with data atomically: a temporary file in the
// same directory is written, synced and renamed over the original, with
// the original's mode. A symlink is followed only to a target inside one
// of roots; the link itself is kept.
func WriteFile(path string, data []byte, snap Snapshot, roots []string) error {
	target, err := resolve(path, roots)
	if err != nil {
		return err
	}
	st, err := os.Stat(target)
	if err != nil {
		return err
	}
	cur, err := os.ReadFile(target)
	if err != nil {
		return err
	}
	if st.Size() != snap.Size || st.ModTime().UnixNano() != snap.ModTime || sha256.Sum256(cur) != snap.Hash {
		return fmt.Errorf("file changed while shipshape was fixing it; skipped (run fix again)")
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".shipshape-*")
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
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	done = true
	return nil
}

func resolve(path string, roots []string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	target, _ = filepath.Abs(target)
	for _, r := range roots {
		if r, err := filepath.Abs(r); err == nil {
			if real, err := filepath.EvalSymlinks(r); err == nil {
				r = real
			}
			if target == r || strings.HasPrefix(target, r+string(filepath.Separator)) {
				return target, nil
			}
		}
	}
	return "", fmt.Errorf("symlink to %s, outside the paths given; not written", target)
}
