//go:build linux

package cache

import (
	"os"
	"syscall"
)

// changeTime is st's inode change time (ctime) in nanoseconds: a chmod,
// a rename over it, or a write that restores the mtime all move it.
func changeTime(st os.FileInfo) (int64, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return s.Ctim.Sec*1e9 + s.Ctim.Nsec, true
}
