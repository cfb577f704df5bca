package gcpace

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPace(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		budget      int64
		ratio       float64
		live        uint64
		wantPercent int
		wantLimit   int64
	}{
		{100 * mb, 3, 0, -1, 100 * mb},
		{100 * mb, 3, 10 * mb, -1, 100 * mb},        // a small heap: the budget
		{99 * mb, 3, 33 * mb, -1, 99 * mb},          // at the budget
		{99 * mb, 3, 33*mb + 1, 200, math.MaxInt64}, // past it: GOGC's pace
		{100 * mb, 5, 40 * mb, 400, math.MaxInt64},  // any ratio
		{100 * mb, 3, math.MaxUint64, 200, math.MaxInt64},
	} {
		p, l := Pace(tc.budget, tc.ratio, tc.live)
		if p != tc.wantPercent || l != tc.wantLimit {
			t.Errorf("Pace(%d, %v, %d) = %d, %d; want %d, %d", tc.budget, tc.ratio, tc.live, p, l, tc.wantPercent, tc.wantLimit)
		}
	}
}

// Start paces by the budget; a live heap past it hands the pace to GOGC
// under the Ceiling, and Raise raises that ratio until restored. The test binary is its own
// process: nothing else in it depends on the collector's settings (Start
// acts once, so -count=N keeps the first run's).
func TestStart(t *testing.T) {
	const budget = 8 << 20
	mu.Lock()
	first := !started
	mu.Unlock()
	if restore, ok := Raise(5); ok {
		restore()
		if first {
			t.Fatal("Raise before Start changed the pace")
		}
	}
	Start(budget, 2)
	keep := make([][]byte, 0, 64)
	for range 64 {
		keep = append(keep, make([]byte, 1<<20)) // 64 MB live: past budget/ratio
	}
	waitFor(t, "GOGC=100 under the ceiling for a live heap past the budget", func() bool {
		p, l := pace()
		return p == 100 && l == Ceiling
	})
	restore, ok := Raise(5)
	if !ok {
		t.Fatal("Raise after Start did not act")
	}
	if p, _ := pace(); p != 400 {
		t.Errorf("GOGC while raised = %d, want 400", p)
	}
	restore()
	if p, _ := pace(); p != 100 {
		t.Errorf("GOGC once restored = %d, want 100", p)
	}
	runtime.KeepAlive(keep)
	keep = nil
	waitFor(t, "the budget again once the heap is small", func() bool {
		p, l := pace()
		return p == -1 && l == budget
	})
}

// pace reads the collector's settings. GOGC is read by setting it: mu
// keeps the finalizer from setting the pace in between.
func pace() (percent int, limit int64) {
	mu.Lock()
	defer mu.Unlock()
	percent = debug.SetGCPercent(0)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// waitFor collects until ok holds: the pace is set by a finalizer, after
// a collection, on the finalizers' goroutine.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		runtime.GC()
		if ok() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 10 s", what)
		}
	}
}

func TestRaised(t *testing.T) {
	for _, tc := range []struct {
		base, r float64
		live    uint64
		want    float64
	}{
		{3, 5, 0, 5},
		{3, 5, 50 << 20, 5},  // 250 MB: under the cap
		{3, 5, 128 << 20, 4}, // 640 MB would pass it: 512/128
		{3, 5, 400 << 20, 3}, // never under the base ratio
		{3, 3, 400 << 20, 3}, // not raised
	} {
		if got := Raised(tc.base, tc.r, tc.live); got != tc.want {
			t.Errorf("Raised(%v, %v, %d MB) = %v, want %v", tc.base, tc.r, tc.live>>20, got, tc.want)
		}
	}
}

// Capped: the ceiling bounds the heap under the ratio, but never within a
// quarter of the live heap (the collector would run without pause) nor
// under the budget.
func TestCapped(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		budget, ceiling int64
		live            uint64
		want            int64
	}{
		{118 * mb, 0, 400 * mb, math.MaxInt64},              // no Cap
		{118 * mb, 640 * mb, 100 * mb, 640 * mb},            // room under it
		{118 * mb, 640 * mb, 512 * mb, 640 * mb},            // a quarter left
		{118 * mb, 640 * mb, 600 * mb, 750 * mb},            // less: above it
		{118 * mb, 6 * mb, 50 * mb, 118 * mb},               // a small input: the budget
		{118 * mb, 640 * mb, math.MaxUint64, math.MaxInt64}, // no overflow
	} {
		if got := Capped(tc.budget, tc.ceiling, tc.live); got != tc.want {
			t.Errorf("Capped(%d, %d, %d) = %d, want %d", tc.budget, tc.ceiling, tc.live, got, tc.want)
		}
	}
}
