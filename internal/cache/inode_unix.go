//go:build unix

package cache

import (
	"os"
	"syscall"
)

// inode is st's inode number (0 when the system does not say).
func inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
