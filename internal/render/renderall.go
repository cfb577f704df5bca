package render

import (
	"context"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"

	"github.com/shipshape-dev/shipshape/internal/gcpace"
)

// Rendering many roots: on all cores, with the garbage collector's target
// raised while any rendering runs (kustomize allocates a great deal, and
// most of it is garbage once a root is built).

// RenderAll renders roots in parallel, GOMAXPROCS at a time (fewer while
// large roots render: see renderHeapInFlight), and returns
// their results in the order of roots. The largest roots (by the bytes of
// the files they reach) start first, so that no core is left idle behind
// one long root at the end. While it runs, the garbage collector is set
// to r.GCPercent (see there).
func (r *Renderer) RenderAll(ctx context.Context, roots []*Kustomization) []*Result {
	results := make([]*Result, len(roots))
	r.parallel(ctx, roots, func(i int) { results[i] = r.Render(roots[i]) }, func(i int, err error) {
		results[i] = &Result{Root: roots[i], Problem: &Problem{File: roots[i].File, Line: 1, Column: 1, Message: err.Error()}}
	})
	return results
}

// TraceAll traces (see Trace) the results in parallel, as RenderAll
// renders: for a caller that will Locate findings on many roots.
func (r *Renderer) TraceAll(ctx context.Context, results []*Result) {
	roots := make([]*Kustomization, len(results))
	for i, res := range results {
		roots[i] = res.Root
	}
	r.parallel(ctx, roots, func(i int) { _ = r.Trace(results[i]) }, func(int, error) {})
}

// parallel runs do(i) for every root on GOMAXPROCS workers, largest
// roots first; cancelled(i, err) for those not started before ctx ends.
func (r *Renderer) parallel(ctx context.Context, roots []*Kustomization, do func(int), cancelled func(int, error)) {
	defer raiseGC(r.GCPercent)()
	order := make([]int, len(roots))
	cost := make([]int64, len(roots))
	for i, root := range roots {
		order[i] = i
		for _, f := range r.graph.Reaches(root) {
			cost[i] += root.src.size(f)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return cost[order[a]] > cost[order[b]] })
	next := make(chan int)
	go func() {
		defer close(next)
		for _, i := range order {
			next <- i
		}
	}()
	gate := heapGate{capacity: renderHeapInFlight}
	gate.free = sync.NewCond(&gate.mu)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(roots)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := ctx.Err(); err != nil {
					cancelled(i, err)
					continue
				}
				heap := gate.acquire(float64(cost[i]) * heapPerYAMLByte)
				do(i)
				gate.release(heap)
			}
		}()
	}
	wg.Wait()
}

// renderHeapInFlight bounds the heap the roots rendering at once are
// estimated to take (heapPerYAMLByte of the bytes each reaches): half the
// heap a rendering is paced for (gcpace.RaiseCap), so that two large
// roots do not render side by side past it, while small roots still take
// every core. Not half gcpace.Ceiling: that bounds the heap between
// collections, not what may be live, and at 96 MB would render more
// roots alone.
const renderHeapInFlight = gcpace.RaiseCap / 2

// heapGate admits roots to render while the heap estimated for those
// rendering fits in capacity; a root estimated at more renders alone.
type heapGate struct {
	mu       sync.Mutex
	free     *sync.Cond
	capacity float64
	used     float64
}

// acquire waits until heap fits beside what renders, and returns what it
// took (heap, at most capacity), for release.
func (g *heapGate) acquire(heap float64) float64 {
	heap = min(heap, g.capacity)
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.used > 0 && g.used+heap > g.capacity {
		g.free.Wait()
	}
	g.used += heap
	return heap
}

func (g *heapGate) release(heap float64) {
	g.mu.Lock()
	g.used -= heap
	g.mu.Unlock()
	g.free.Broadcast()
}

// The garbage collector setting is process-wide: the first RenderAll to
// start raises it, the last to end puts back what was there.
var (
	gcMu    sync.Mutex
	gcUsers int
	gcSaved int
)

// raiseGC sets GOGC to percent (when that is higher than the current
// setting, and the collector is on) until the returned func is called.
func raiseGC(percent int) func() {
	if percent <= 0 {
		return func() {}
	}
	// GOGC=percent keeps a heap of 1+percent/100 times the live one.
	if restore, ok := gcpace.Raise(1 + float64(percent)/100); ok {
		return restore
	}
	gcMu.Lock()
	defer gcMu.Unlock()
	if gcUsers == 0 {
		gcSaved = debug.SetGCPercent(percent)
		if gcSaved < 0 || gcSaved >= percent {
			debug.SetGCPercent(gcSaved) // off, or already higher: keep it
		}
	}
	gcUsers++
	return func() {
		gcMu.Lock()
		defer gcMu.Unlock()
		if gcUsers--; gcUsers == 0 {
			debug.SetGCPercent(gcSaved)
		}
	}
}
