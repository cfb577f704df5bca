//go:build linux

package render

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU is the CPU time (user and system) the process has used, from
// the process CPU clock: exact to the nanosecond, where getrusage's figure
// moves in steps, so a budget far below a step is still seen as spent.
func processCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts) != nil {
		return wallSinceStart()
	}
	return time.Duration(ts.Nano())
}
