// Package engine is the driver: it reads inputs in parallel, runs the
// enabled rules over every object, applies configuration and suppressions,
// and hands back findings as data. Printing and fixing belong to callers.
//
// The engine owns, for every rule alike, per-object and cross-resource:
// enable/disable, severity overrides, suppression (the ignore annotation
// and ignore comments), and the one order of findings (analysis.Sort).
package engine

import (
	"fmt"
	"io"
	"iter"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/cache"
	"github.com/shipshape-dev/shipshape/internal/chartfetch"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// DefaultMaxFileSize bounds what one file may make shipshape read.
const DefaultMaxFileSize = 64 << 20

var templateNotice = map[string]string{
	"Helm/Go":    "Go/Helm template markers ({{) found: not linted; lint the rendered output (helm template . | shipshape lint -)",
	"ytt":        "ytt annotations (#@) found: not linted; lint the rendered output (ytt -f . | shipshape lint -)",
	"Jinja":      "Jinja template markers ({% %}) found and not YAML: not linted; lint the rendered output",
	"FreeMarker": "FreeMarker directives (<#if>) found and not YAML: not linted; lint the rendered output",
}

// Engine holds the enabled rules with their effective severities.
type Engine struct {
	known    []*analysis.Rule // every rule, the engine's own included, by ID
	rules    []*analysis.Rule // the enabled ones, by ID
	cross    []*analysis.Rule // the enabled cross-resource ones
	severity map[string]analysis.Severity
	// overridden rules have their severity set by the configuration, for
	// every finding; the others keep what the rule gave each finding.
	overridden map[string]bool
	cfg        *config.Config
	failOn     analysis.FailOn
	// MaxFileSize refuses larger files with a finding instead of reading them.
	MaxFileSize int64
	// RenderBudget bounds each kustomize root's rendering (zero fields:
	// render.DefaultBudget's).
	RenderBudget render.Budget
	// ChartsDir holds chart archives (NAME-VERSION.tgz) that HelmReleases
	// of chart repositories are rendered from (releases.go); "" for none.
	ChartsDir string
	// Fetcher, when set (lint --fetch-charts), pulls the charts releases
	// name from their chart repositories into its cache
	// (remotecharts.go); nil: nothing is fetched (the default, and always
	// in the KRM function).
	Fetcher *chartfetch.Fetcher
	// KubernetesVersion is the cluster version every chart is rendered for
	// (helmCharts entries name their own); New sets the config's.
	KubernetesVersion string
	// Stdin is read for the path "-".
	Stdin io.Reader
	// Cache, when set, keeps kustomize roots' renderings between runs
	// (internal/cache; render's rendercache.go), for the work tree's
	// roots and --base's alike.
	Cache *cache.Store
	// KeepSource keeps each file's bytes in its result after the run (the
	// fix driver applies fixes to them); node trees are never kept.
	KeepSource bool
	// Base, when set, is the revision the change is judged against (lint
	// --base): the change rules run (base.go).
	Base *Base

	kusts *manifest.Kustomizations
	wd    *manifest.WorkDir
	// fileHits counts the files whose results came from the per-file
	// cache (filecache.go), for its tests.
	fileHits atomic.Int64
}

// New builds an engine over rs (the engine adds its own rules: syntax,
// templates, unreadable inputs) from a config (nil for none) and
// command-line --enable/--disable lists, which win over the config.
func New(rs []*analysis.Rule, cfg *config.Config, enable, disable []string) (*Engine, error) {
	if cfg == nil {
		cfg = &config.Config{}
	}
	e := &Engine{cfg: cfg, known: WithBuiltin(rs), severity: map[string]analysis.Severity{}, overridden: map[string]bool{}, MaxFileSize: DefaultMaxFileSize, Stdin: os.Stdin,
		kusts: &manifest.Kustomizations{}, wd: &manifest.WorkDir{}, KubernetesVersion: string(cfg.KubernetesVersion)}
	var err error
	if e.failOn, err = analysis.ParseFailOn(cfg.FailOn); err != nil {
		return nil, &config.Error{Source: cfg.Source, Msg: "spec.failOn: " + err.Error()}
	}
	byID := map[string]*analysis.Rule{}
	on := map[string]bool{}
	for _, r := range e.known {
		byID[r.ID] = r
		on[r.ID] = true
		e.severity[r.ID] = r.Severity
	}
	for id, rc := range cfg.Rules {
		if byID[id] == nil {
			return nil, &config.Error{Source: cfg.Source, Msg: fmt.Sprintf("spec.rules.%s: unknown rule (see shipshape rules)", id)}
		}
		if rc.Enabled != nil {
			on[id] = *rc.Enabled
		}
		if rc.Severity != "" {
			s, err := analysis.ParseSeverity(rc.Severity)
			if err != nil {
				return nil, &config.Error{Source: cfg.Source, Msg: fmt.Sprintf("spec.rules.%s.severity: %v", id, err)}
			}
			e.severity[id] = s
			e.overridden[id] = true
		}
	}
	for _, list := range []struct {
		ids   []string
		value bool
		flag  string
	}{{enable, true, "--enable"}, {disable, false, "--disable"}} {
		for _, id := range list.ids {
			if byID[id] == nil {
				return nil, &config.Error{Source: list.flag, Msg: fmt.Sprintf("unknown rule %q (see shipshape rules)", id)}
			}
			on[id] = list.value
		}
	}
	for _, r := range e.known {
		if on[r.ID] {
			e.rules = append(e.rules, r)
			if r.Cross != nil {
				e.cross = append(e.cross, r)
			}
		}
	}
	return e, nil
}

// source reports whether rule id judges how files are read (it targets
// analysis.SourceFiles).
func (e *Engine) source(id string) bool {
	for _, r := range e.rules {
		if r.ID == id {
			return r.Targets.Has(analysis.SourceFiles)
		}
	}
	return false
}

// Rules returns every rule the engine knows, enabled or not, by ID: what
// printers describe (SARIF rule metadata, JUnit).
func (e *Engine) Rules() []*analysis.Rule { return e.known }

// Enabled reports whether rule id is on.
func (e *Engine) Enabled(id string) bool {
	for _, r := range e.rules {
		if r.ID == id {
			return true
		}
	}
	return false
}

// severityOf is f's severity: the configured one when the configuration
// sets the rule's, else what the rule gave it (a rule may report some
// findings below its default: a value kustomize keeps as intended).
func (e *Engine) severityOf(f analysis.Finding) analysis.Severity {
	if e.overridden[f.Rule] {
		return e.severity[f.Rule]
	}
	return f.Severity
}

// CrossResource reports whether a cross-resource rule is enabled: only
// those read files for context.
func (e *Engine) CrossResource() bool { return len(e.cross) > 0 }

// FailOn is the configured fail level (spec.failOn; error by default).
func (e *Engine) FailOn() analysis.FailOn { return e.failOn }

// Config returns the configuration the engine was built with.
func (e *Engine) Config() *config.Config { return e.cfg }

// Run lints inputs in parallel.
func (e *Engine) Run(inputs []manifest.Input) *Result {
	return e.RunSeq(slices.Values(inputs))
}

// RunSeq is Run over inputs as they come (manifest.Walk): files are read
// and linted while the walk goes on. Files are in the order inputs gave.
func (e *Engine) RunSeq(inputs iter.Seq[manifest.Input]) *Result {
	res := &Result{}
	// Each input's result is filled in through its own pointer, so that
	// the workers never touch res.Files, which this goroutine appends to.
	jobs := make(chan *FileResult, 64)
	var wg sync.WaitGroup
	files := e.openFileCache()
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for slot := range jobs {
				in := slot.Input
				*slot = *e.safely(in, func() *FileResult {
					return e.lintInput(files, in, e.context(in.Path, nil), nil, nil)
				})
			}
		})
	}
	for in := range inputs {
		slot := &FileResult{Input: in}
		if in.Context {
			res.context = append(res.context, slot)
		} else {
			res.Files = append(res.Files, slot)
		}
		jobs <- slot
	}
	close(jobs)
	wg.Wait()
	files.saveIndex()
	e.Finish(res)
	return res
}

// RunSource lints one file's bytes given in memory, as Run would lint
// them read from path (the kustomization beside path included), keeping
// the bytes for the fix driver.
func (e *Engine) RunSource(path string, src []byte) *Result {
	in := manifest.Input{Path: path, Explicit: true}
	fr := e.safely(in, func() *FileResult { return e.LintFile(in, src) })
	if fr.File != nil {
		fr.File.Src = src
	}
	res := &Result{Files: []*FileResult{fr}}
	e.Finish(res)
	return res
}

// LintFile parses one input's bytes and runs the per-object and per-file
// rules, and keeps the cross-resource rules' summaries; Finish judges
// those. The result holds no node tree.
func (e *Engine) LintFile(in manifest.Input, data []byte) *FileResult {
	return e.lintFile(in, data, e.context(in.Path, nil))
}

// lintFile is LintFile in the context ctx: that of the kustomize roots
// that read the file (ctx.Kustomize), judged as kustomize reads it, or
// what the kustomization beside it says (Engine.context).
func (e *Engine) lintFile(in manifest.Input, data []byte, ctx manifest.Context) *FileResult {
	return e.lintFileIn(in, data, ctx, nil)
}

// lintFileIn is lintFile for a file that apps apply (Argo CD
// Applications, see argodirs.go); nil: the application ctx or the file's
// directory says. A file of several applications is judged in each.
func (e *Engine) lintFileIn(in manifest.Input, data []byte, ctx manifest.Context, apps []analysis.AppID) *FileResult {
	app := e.application(in.Path)
	if ctx.Application != "" {
		app = analysis.AppID{Dir: ctx.Application}
	}
	var more []analysis.AppID
	if len(apps) > 0 {
		app, more = apps[0], apps[1:]
	}
	if ctx.Beside && in.Path != manifest.Stdin {
		// Beside a kustomization that does not list it: not applied with
		// what the directory's kustomization builds.
		app.Unlisted = true
	}
	f := manifest.Parse(in.Path, data, ctx)
	fr := &FileResult{Input: in, ignores: scanIgnores(f.Src)}
	for _, obj := range f.Objects {
		if !obj.Implied {
			fr.objects++
		}
	}
	if !in.Context {
		fr.own = e.lint(f, fr.ignores)
	}
	fr.moreApps = more
	if f.Template != "" && len(e.cross) > 0 {
		fr.unreadApp = app
	}
	if f.Template == "" && !fr.ignores.all() && len(e.cross) > 0 {
		for _, obj := range f.Objects {
			if obj.Partial || obj.Kustomize != nil {
				continue
			}
			e.observe(fr, obj, objectKey{obj.Doc, obj.Item}, app)
			for _, a := range more {
				e.summarize(fr, obj.Unmemoized(), objectKey{obj.Doc, obj.Item}, a)
			}
		}
		fr.trimObserved()
	}
	// Findings outlive the file; the node tree does not need to, so
	// memory stays flat over large trees.
	fr.File = &manifest.File{Path: f.Path, Docs: f.Docs, BOM: f.BOM, Context: f.Context}
	if e.KeepSource {
		fr.File.Src = f.Src
	}
	return fr
}

// context is what the kustomization beside a file says about it; g (may
// be nil) is the run's kustomization graph: what its walk saw of the
// directories (manifest.Listed) and the kustomizations it parsed
// (manifest.KnownDocs), so that they are not read again.
func (e *Engine) context(path string, g *render.Graph) manifest.Context {
	if g == nil {
		return e.kusts.ForListed(path, nil)
	}
	return e.kusts.ForWalked(path, g.Listed, g.KustomizationDoc)
}

// Relint is res with the files in changed linted again from their new
// bytes, and the cross-resource rules run again over every file: what the
// fix driver verifies against. res is left as it was.
func (e *Engine) Relint(res *Result, changed map[string][]byte) *Result {
	if res.tree != nil {
		return e.relintTree(res, changed)
	}
	out := &Result{Files: e.relintFiles(res.Files, changed, e.LintFile), context: res.context}
	e.Finish(out)
	return out
}

// relintFiles is files with those in changed linted again by lint from
// their new bytes, and copies of the others (Finish rewrites their
// Findings; the originals stay as they were).
func (e *Engine) relintFiles(files []*FileResult, changed map[string][]byte, lint func(manifest.Input, []byte) *FileResult) []*FileResult {
	out := make([]*FileResult, len(files))
	for i, fr := range files {
		if data, ok := changed[fr.Input.Path]; ok {
			in := fr.Input
			out[i] = e.safely(in, func() *FileResult { return lint(in, data) })
			continue
		}
		c := *fr
		out[i] = &c
	}
	return out
}

// safely runs one file's work; a panic becomes an internal-error finding
// for that file, so one hostile input cannot stop the run or hide the
// other files' findings.
func (e *Engine) safely(in manifest.Input, work func() *FileResult) (fr *FileResult) {
	defer func() {
		if r := recover(); r != nil {
			fr = &FileResult{Input: in, own: []analysis.Finding{
				e.fileFinding(in.Path, InternalErrorID, fmt.Sprintf("internal error while processing this file (please report it): %v", r)),
			}}
		}
	}()
	return work()
}

func (e *Engine) fileFinding(path, rule, msg string) analysis.Finding {
	return analysis.Finding{Rule: rule, Severity: e.severity[rule], Message: msg, File: path, Doc: -1, Item: -1}
}

// read returns the bytes of in: a regular file or stdin, within
// MaxFileSize.
func (e *Engine) read(in manifest.Input) ([]byte, error) {
	var data []byte
	var err error
	if in.Path == manifest.Stdin {
		data, err = manifest.ReadAll(e.Stdin, e.MaxFileSize)
	} else {
		data, err = manifest.ReadRegular(in.Path, e.MaxFileSize)
	}
	if err != nil {
		return nil, err
	}
	// UTF-16, UTF-32 and binary data are refused here, with a read-error,
	// rather than parsed into nonsense.
	if err := manifest.Sniff(data); err != nil {
		return nil, err
	}
	return data, nil
}

// parallel calls work(i) for every i below n, on all cores.
func (e *Engine) parallel(n int, work func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(n, 1)) {
		wg.Go(func() {
			for i := range next {
				work(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
