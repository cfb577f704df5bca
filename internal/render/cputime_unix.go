//go:build unix && !linux

package render

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return wallSinceStart()
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
