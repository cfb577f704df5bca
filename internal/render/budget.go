package render

import (
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

// Budget bounds what rendering one root may cost. kustomize's library
// cannot be cancelled and reports no memory of its own, so the budget is
// kept in three ways: a root whose files predict more than the budget is
// not handed to kustomize (the estimates below), a file whose aliases
// expand past any bound is not either (expansion.go), and a root still
// rendering when its time is up is abandoned (its goroutine runs on, and
// ends with the process).
type Budget struct {
	// Time is how long kustomize's library may take over one root.
	Time time.Duration
	// Memory is the heap one root's rendering may be estimated to need.
	Memory int64
}

// DefaultBudget is far above what normal trees need: the largest root of
// the kustomize corpus (argo-cd's manifests/ha/cluster-install, 1.9 MB of
// YAML) builds in 2 s of CPU and 150 MB with `kustomize build`.
var DefaultBudget = Budget{Time: 60 * time.Second, Memory: 4 << 30}

// The estimates, measured with `kustomize build` v5.8.2 (/usr/bin/time -v,
// 2026-11-29): its peak memory is 80 (argo-cd's CRDs, 1.8 MB: 145 MB) to
// 156 (a list of 100,000 small mappings, 8 MB: 1.25 GB) bytes per byte
// of YAML it reads; a mapping of n keys takes 1.0e-8·n² s of CPU (a
// ConfigMap or a custom object's spec of 10,000 keys 1 s, of 20,000 keys 4
// s, of 40,000 keys 16 s; a list of 20,000 items 0.16 s). The lower
// figures are used (and half the time), so that an estimate errs towards
// rendering: the watchdog catches what it lets through.
const (
	heapPerYAMLByte      = 80
	secondsPerKeySquared = 5e-9
)

// BudgetLimit names the budget a root met.
type BudgetLimit int

const (
	// TimeBudget is Budget.Time.
	TimeBudget BudgetLimit = iota + 1
	// MemoryBudget is Budget.Memory.
	MemoryBudget
)

// BudgetError is a root not rendered because it would pass its budget,
// or abandoned because it did. File:Line:Column is what predicts the
// cost (the widest mapping, the largest file), or the root's
// kustomization.
type BudgetError struct {
	Limit        BudgetLimit
	Budget       Budget
	File         string
	Line, Column int
	// Estimate is the predicted seconds or bytes; 0 when the watchdog
	// abandoned the root.
	Estimate float64
	// Keys is the widest mapping's key count, for a time estimate.
	Keys int
}

// BudgetFlags says how the budgets are raised, for messages; the command
// line sets it (the render package knows no flags).
var BudgetFlags = map[BudgetLimit]string{
	TimeBudget:   "--render-time or renderBudget.time in .shipshape.yaml",
	MemoryBudget: "--render-memory or renderBudget.memory in .shipshape.yaml",
}

func (e *BudgetError) Error() string {
	raise := "; raise it with " + BudgetFlags[e.Limit]
	switch {
	case e.Limit == MemoryBudget:
		return fmt.Sprintf("rendering it would need about %s of memory (%d bytes per byte of YAML kustomize reads, aliases expanded; %s is the largest file), over the render memory budget of %s%s",
			bytesText(e.Estimate), heapPerYAMLByte, e.File, bytesText(float64(e.Budget.Memory)), raise)
	case e.Estimate > 0:
		return fmt.Sprintf("kustomize's library would take about %.0f s over it (a mapping of %d keys here; its time grows with the square of a mapping's keys), over the render time budget of %s%s",
			e.Estimate, e.Keys, e.Budget.Time, raise)
	default:
		return fmt.Sprintf("kustomize's library was still rendering it after the render time budget of %s (of CPU time), and was abandoned%s", e.Budget.Time, raise)
	}
}

func bytesText(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MiB", b/(1<<20))
	default:
		return fmt.Sprintf("%.0f bytes", b)
	}
}

// budget is r.Budget with the defaults for what it leaves zero.
func (r *Renderer) budget() Budget {
	b := r.Budget
	if b.Time <= 0 {
		b.Time = DefaultBudget.Time
	}
	if b.Memory <= 0 {
		b.Memory = DefaultBudget.Memory
	}
	return b
}

// cachedCost is one file's fileCost, measured once per Renderer each way.
type cachedCost struct {
	cheap, exact         sync.Once
	cheapCost, exactCost fileCost
}

// cost measures the file at path (exactly when exact is set or it may
// hold aliases, else by measureCheap); asYAML is false for generator data,
// which kustomize does not read as YAML (only its size counts). A file
// that cannot be read costs nothing: kustomize reports it.
func (f *readOnlyFS) cost(path string, asYAML, exact bool) fileCost {
	data, err := f.ReadFile(path)
	switch {
	case err != nil:
		return fileCost{growth: 1}
	case !asYAML:
		return fileCost{size: int64(len(data)), growth: 1}
	}
	v, _ := f.costs.LoadOrStore(path, &cachedCost{})
	c := v.(*cachedCost)
	if exact || mayAlias(data) {
		c.exact.Do(func() { c.exactCost = measure(path, data) })
		return c.exactCost
	}
	c.cheap.Do(func() { c.cheapCost = measureCheap(data) })
	return c.cheapCost
}

// overBudget is the Problem of a root whose files predict more than the
// budget, or hold aliases that expand past any bound; nil when the root
// may be rendered. The estimates first use measureCheap's bounds, and
// parse the files only when those pass the budget.
func (r *Renderer) overBudget(root *Kustomization) *Problem {
	b := r.budget()
	files := r.graph.Reaches(root)
	data := r.graph.Embedded(root)
	var seconds float64
	for _, exact := range []bool{false, true} {
		seconds = 0
		var heap, largest float64
		largestFile := root.File
		for _, f := range files {
			c := r.fs.cost(f, !data[f], exact)
			if c.refused != nil {
				return budgetProblem(root, c.refused.File, c.refused.Line, c.refused.Column, c.refused.Reason.say(c.refused))
			}
			bytes := float64(c.size) * c.growth
			heap += bytes * heapPerYAMLByte
			if bytes > largest {
				largest, largestFile = bytes, f
			}
			seconds += c.keySquares * secondsPerKeySquared
		}
		if heap > float64(b.Memory) {
			e := &BudgetError{Limit: MemoryBudget, Budget: b, File: largestFile, Line: 1, Column: 1, Estimate: heap}
			return budgetProblem(root, e.File, 1, 1, e.Error())
		}
		if seconds <= b.Time.Seconds() {
			return nil
		}
	}
	// Exact, and over: at the widest mapping.
	e := &BudgetError{Limit: TimeBudget, Budget: b, File: root.File, Line: 1, Column: 1, Estimate: seconds}
	for _, f := range files {
		if c := r.fs.cost(f, !data[f], true); c.widest > e.Keys {
			e.File, e.Line, e.Column, e.Keys = f, c.widestLine, c.widestColumn, c.widest
		}
	}
	return budgetProblem(root, e.File, e.Line, e.Column, e.Error())
}

func budgetProblem(root *Kustomization, file string, line, col int, msg string) *Problem {
	return &Problem{File: file, Line: max(line, 1), Column: max(col, 1), Refused: true, Budget: true, Unrendered: analysis.OverBudget,
		Message: msg}
}

// guardedFS is the file system of one build: a file that is not the
// root's generator data, and whose aliases expand past any bound, is not
// handed to kustomize (whatever reads it: overBudget measured the files
// the graph knows of; this is for the others). The first refusal is kept
// for the root's Problem.
type guardedFS struct {
	filesys.FileSystem
	costs *readOnlyFS
	data  map[string]bool // generator data files (Graph.Embedded)

	mu      sync.Mutex
	refused *ExpansionError
}

func (g *guardedFS) ReadFile(path string) ([]byte, error) {
	b, err := g.FileSystem.ReadFile(path)
	if err != nil || g.data[filepath.Clean(path)] || !mayAlias(b) {
		return b, err
	}
	if c := g.costs.cost(filepath.Clean(path), true, true); c.refused != nil {
		g.mu.Lock()
		if g.refused == nil {
			g.refused = c.refused
		}
		g.mu.Unlock()
		return nil, c.refused
	}
	return b, nil
}

// first is the first file the guard refused, or nil.
func (g *guardedFS) first() *ExpansionError {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused
}

// built is what one build of kustomize returned.
type built struct {
	m   resmap.ResMap
	err error
}

// runWithin runs root's build (see run) for at most the time budget. Past
// it, the build is abandoned: kustomize's library has no way to stop it,
// so its goroutine runs on (to its end, or the process's) and its result
// is dropped. (Such a build keeps its share of kyaml's schema lock, so a
// root with its own `openapi:` schema waits for it, within its own budget.)
//
// The time is the process's CPU time, and the wall time, since the build
// started, both past the budget: on a machine shared with other work (CI
// runners, go test -race) a build gets a fraction of a core, and wall time
// alone would abandon roots that are merely waiting. The process's CPU
// time includes the other roots rendering beside it, so a runaway build
// is abandoned no later than its own CPU time says, and maybe sooner.
func (r *Renderer) runWithin(root *Kustomization, log *readLog) (resmap.ResMap, error) {
	b := r.budget()
	done := make(chan built, 1) // never blocks an abandoned build
	cpu0, wall0 := processCPU(), time.Now()
	go func() {
		m, err := r.run(root, false, log)
		done <- built{m, err}
	}()
	timer := time.NewTimer(b.Time)
	defer timer.Stop()
	for {
		select {
		case out := <-done:
			// A build that ends past both budgets is over them, whether
			// the watchdog woke first or not (a select between two ready
			// cases picks either): the outcome does not depend on which
			// goroutine the scheduler ran first.
			if time.Since(wall0) >= b.Time && processCPU()-cpu0 >= b.Time {
				return nil, &BudgetError{Limit: TimeBudget, Budget: b, File: root.File, Line: 1, Column: 1}
			}
			return out.m, out.err
		case <-timer.C:
			used := processCPU() - cpu0
			if used >= b.Time {
				return nil, &BudgetError{Limit: TimeBudget, Budget: b, File: root.File, Line: 1, Column: 1}
			}
			timer.Reset(max(b.Time-used, b.Time/10))
		}
	}
}

var started = time.Now()

func wallSinceStart() time.Duration { return time.Since(started) }

// budgetFailure is the Problem of a build that failed on a budget: the
// watchdog's, or a file the guard refused; nil for any other failure.
func budgetFailure(root *Kustomization, err error) *Problem {
	switch e := err.(type) {
	case *BudgetError:
		return budgetProblem(root, e.File, e.Line, e.Column, e.Error())
	case *ExpansionError:
		return budgetProblem(root, e.File, e.Line, e.Column, e.Reason.say(e))
	}
	return nil
}
