//go:build !linux

package fixer

import (
	"io/fs"
	"os"
)

// keepAttributes keeps the original's mode; owner and extended attributes
// are kept on Linux only (keep_linux.go).
func keepAttributes(tmp *os.File, _ string, st fs.FileInfo) error {
	return tmp.Chmod(st.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky))
}
