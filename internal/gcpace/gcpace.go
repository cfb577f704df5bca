// Package gcpace paces the garbage collector of a short run by a heap
// budget while the live heap is small, and by GOGC's ratio once it is not.
//
// A lint run allocates a node tree per file that is garbage a moment
// later, while what it keeps (summaries, results) grows slowly. Paced by
// a ratio of that small live heap, the collector runs over and over;
// paced by a budget (GOGC=off under a soft memory limit), it runs only
// when the budget is spent: over a small tree (the shared corpus) it
// hardly runs at all. Once ratio times the live heap passes the budget
// (kustomize building a large root, a large tree's summaries), the ratio
// paces alone, as GOGC would: a limit the heap presses against makes the
// collector run without pause and return memory to the system that the
// next allocation faults back in.
package gcpace

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Budget and Ratio are the shipshape command's pace, unless GOGC or
// GOMEMLIMIT says otherwise: collect when Budget bytes are used, as long
// as the live heap is under a third of that, and at GOGC=200 (Ratio times
// the live heap) after. Over the shared corpus it then collects once,
// where GOGC=200 collected seven times: a seventh off the wall time of
// lint (scripts/bench), for a peak RSS of about 130 MB instead of 85.
const (
	Budget = 118 << 20
	Ratio  = 3
)

// Pace is how the collector is paced for a live heap of live bytes: under
// the soft memory limit budget with GOGC off (percent -1) while ratio
// times live fits in it, else by GOGC=percent with no limit.
func Pace(budget int64, ratio float64, live uint64) (percent int, limit int64) {
	if float64(live)*ratio <= float64(budget) {
		return -1, budget
	}
	return int(math.Round((ratio - 1) * 100)), math.MaxInt64
}

var (
	mu      sync.Mutex // everything below
	started bool
	budget  int64
	base    float64  // Start's ratio
	ratio   float64  // the ratio in force: base, or Raise's
	raisers int      // Raise calls not restored yet
	live    uint64   // the live heap after the last collection
	set     [2]int64 // the percent and limit last set
	ceiling int64    // the bound on the heap under the ratio's pace: Ceiling, or Cap's (0: none)
)

// Start paces the collector (see Pace) from now on, and again after every
// collection. Only its first call acts. Call it only when neither GOGC nor
// GOMEMLIMIT is set: those are the user's choice.
func Start(b int64, r float64) {
	mu.Lock()
	defer mu.Unlock()
	if started {
		return
	}
	started, budget, base, ratio = true, b, r, r
	if ceiling == 0 {
		ceiling = Ceiling
	}
	apply()
	watch([]metrics.Sample{{Name: "/gc/heap/live:bytes"}})
}

// Raise paces by at least ratio r until the returned func is called, for
// a phase whose live heap is large and short-lived (kustomize building a
// root). ok is false, and nothing changes, when Start did not run.
func Raise(r float64) (restore func(), ok bool) {
	mu.Lock()
	defer mu.Unlock()
	if !started {
		return nil, false
	}
	raisers++
	ratio = max(base, r)
	apply()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if raisers--; raisers == 0 {
			ratio = base
			apply()
		}
	}, true
}

// RaiseCap bounds the heap a Raise paces for: over a tree of large CRD
// bundles (kserve's 11 MB, its roots rendered two at a time) the live
// heap reaches 400 MB, and five times that is more memory than a CI
// runner has, for a few percent of CPU.
const RaiseCap = 512 << 20

// Ceiling is the heap Start bounds a run by once the ratio paces (see
// Capped): the ratio alone lets a large live heap (a repository of many
// roots, the summaries of many files) leave up to twice itself of
// garbage, so that memory grew with the repository; under the ceiling it
// grows only with the live heap, past it.
//
// It is 176 MB, not RaiseCap: with Finish no longer the run's peak (see
// internal/engine/crossplace.go) and the summaries compact (locators, not
// findings), the 11 × corpus's live heap stays near 84 MB, and under this
// ceiling its peak RSS is 199 MB (345 MB with no ceiling, 216 MB at
// 192 MB) at 0.85-1.01 × main's CPU in two side-by-side rounds under
// heavy load; 160 MB (185 MB RSS) cost 1.09-1.10 × main's CPU, 1.15 ×
// the session's start binary's in one round, and 144 MB (169 MB) 1.17 ×
// (docs/performance.md, 2026-11-29 late evening). A large root (live
// heap past 140 MB) still gets a quarter of its live heap above it
// (Capped), as before.
const Ceiling = 176 << 20

// Raised is the ratio in force when Raise asked for r over a base ratio
// and the live heap is live bytes: r while r times live fits in
// RaiseCap, then what fits, never under base.
func Raised(base, r float64, live uint64) float64 {
	if live == 0 || r*float64(live) <= RaiseCap {
		return r
	}
	return max(base, RaiseCap/float64(live))
}

// Cap bounds the heap by a soft memory limit of bytes while the ratio
// paces, in place of Ceiling, for a run whose memory should stay proportional to its input
// (`shipshape fn`: the ResourceList's bytes, which it keeps, plus what the
// rules keep of every item). Under the ratio alone a large live heap
// leaves up to twice itself of garbage. ok is false, and nothing changes,
// when Start did not run.
func Cap(bytes int64) (ok bool) {
	mu.Lock()
	defer mu.Unlock()
	if !started {
		return false
	}
	ceiling = bytes
	apply()
	return true
}

// Capped is the soft memory limit for the ratio's pace under a Cap of
// ceiling bytes (0: none) and a live heap of live bytes: the ceiling,
// but never within a quarter of the live heap, where the collector would
// run without pause, and never under budget.
func Capped(budget, ceiling int64, live uint64) int64 {
	if ceiling <= 0 {
		return math.MaxInt64
	}
	if live > math.MaxInt64/2 {
		return math.MaxInt64
	}
	return max(ceiling, budget, int64(live+live/4))
}

// apply sets the pace for the last live heap seen; mu is held. It sets
// only what changed: turning GOGC off waits for a collection under way
// to finish.
func apply() {
	percent, limit := Pace(budget, Raised(base, ratio, live), live)
	if percent >= 0 {
		limit = Capped(budget, ceiling, live)
	}
	if set == [2]int64{int64(percent), limit} {
		return
	}
	set = [2]int64{int64(percent), limit}
	if percent < 0 {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(limit)
	} else {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	}
}

// sentinel is allocated only to be collected: its finalizer runs once
// after each collection that finds it unreachable. It holds a pointer so
// that it is not a tiny allocation, whose finalizer may never run.
type sentinel struct{ _ *int }

func watch(sample []metrics.Sample) {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			mu.Lock()
			live = sample[0].Value.Uint64()
			apply()
			mu.Unlock()
		}
		watch(sample)
	})
}
