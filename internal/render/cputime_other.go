//go:build !unix

package render

import "time"

// processCPU is, where the process's CPU time cannot be read, the wall
// time since the package started: the watchdog then keeps wall time.
func processCPU() time.Duration { return wallSinceStart() }
