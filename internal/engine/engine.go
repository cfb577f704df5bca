// Package engine is the driver: it reads inputs in parallel, runs the
// enabled rules over every object, applies configuration and suppressions,
// and hands back findings as data. Printing and fixing belong to callers.
package engine

import (
	"fmt"
	"io"
	"iter"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

// IgnoreAnnotation lists rule IDs (or "all") an object opts out of.
const IgnoreAnnotation = "shipshape.dev/ignore"

// DefaultMaxFileSize bounds what one file may make shipshape read.
const DefaultMaxFileSize = 64 << 20

var templateNotice = map[string]string{
	"Helm/Go": "Go/Helm template markers ({{) found: not linted; lint the rendered output (helm template . | shipshape lint -)",
	"ytt":     "ytt annotations (#@) found: not linted; lint the rendered output (ytt -f . | shipshape lint -)",
}

// Engine holds the enabled rules with their effective severities.
type Engine struct {
	rules    []*rules.Rule
	severity map[string]rules.Severity
	cfg      *config.Config
	// MaxFileSize refuses larger files with a finding instead of reading them.
	MaxFileSize int64
	// Stdin is read for the path "-".
	Stdin io.Reader
}

// New builds an engine from a config (nil for none) and command-line
// --enable/--disable lists, which win over the config.
func New(cfg *config.Config, enable, disable []string) (*Engine, error) {
	if cfg == nil {
		cfg = &config.Config{}
	}
	e := &Engine{cfg: cfg, severity: map[string]rules.Severity{}, MaxFileSize: DefaultMaxFileSize, Stdin: os.Stdin}
	on := map[string]bool{}
	for _, r := range rules.All() {
		on[r.ID] = true
		e.severity[r.ID] = r.Severity
	}
	for id, rc := range cfg.Rules {
		if rules.Get(id) == nil {
			return nil, &config.Error{Source: cfg.Source, Msg: fmt.Sprintf("spec.rules.%s: unknown rule (see shipshape rules)", id)}
		}
		if rc.Enabled != nil {
			on[id] = *rc.Enabled
		}
		if rc.Severity != "" {
			s, err := rules.ParseSeverity(rc.Severity)
			if err != nil {
				return nil, &config.Error{Source: cfg.Source, Msg: fmt.Sprintf("spec.rules.%s.severity: %v", id, err)}
			}
			e.severity[id] = s
		}
	}
	for _, list := range []struct {
		ids   []string
		value bool
		flag  string
	}{{enable, true, "--enable"}, {disable, false, "--disable"}} {
		for _, id := range list.ids {
			if rules.Get(id) == nil {
				return nil, &config.Error{Source: list.flag, Msg: fmt.Sprintf("unknown rule %q (see shipshape rules)", id)}
			}
			on[id] = list.value
		}
	}
	for _, r := range rules.All() {
		if on[r.ID] {
			e.rules = append(e.rules, r)
		}
	}
	return e, nil
}

// Enabled reports whether rule id is on.
func (e *Engine) Enabled(id string) bool {
	for _, r := range e.rules {
		if r.ID == id {
			return true
		}
	}
	return false
}

// Config returns the configuration the engine was built with.
func (e *Engine) Config() *config.Config { return e.cfg }

// FileResult is what one input produced.
type FileResult struct {
	Input    manifest.Input
	File     *manifest.File // nil when the file could not be read
	Findings []rules.Finding
}

// Result is a whole run.
type Result struct {
	Files     []*FileResult
	Findings  []rules.Finding // all findings, files in input order, then by position
	Resources int
}

// Hook runs in the worker right after a file is linted, while its nodes are
// still in memory (fix uses it). It may replace fr.Findings.
type Hook func(fr *FileResult)

// Run lints inputs in parallel. Per-file findings are sorted by position;
// cross-resource findings are merged in at the end.
func (e *Engine) Run(inputs []manifest.Input, hook Hook) *Result {
	return e.RunSeq(slices.Values(inputs), hook)
}

// RunSeq is Run over inputs as they come (manifest.Walk): files are read
// and linted while the walk goes on. Files are in the order inputs gave.
func (e *Engine) RunSeq(inputs iter.Seq[manifest.Input], hook Hook) *Result {
	res := &Result{}
	aggs := e.newAggregates()
	kusts := &manifest.Kustomizations{}
	var mu sync.Mutex // guards aggregates and res.Resources
	ignores := map[string]lineIgnores{}

	// Each input's result is filled in through its own pointer, so that
	// the workers never touch res.Files, which this goroutine appends to.
	jobs := make(chan *FileResult, 64)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for slot := range jobs {
				in := slot.Input
				fr := e.safely(in, func() *FileResult {
					fr := e.processFile(in, kusts, aggs, &mu, ignores)
					if hook != nil && fr.File != nil {
						hook(fr)
					}
					return fr
				})
				if fr.File != nil {
					mu.Lock()
					res.Resources += len(fr.File.Objects)
					mu.Unlock()
					// Findings outlive the file; the node tree does not
					// need to, so memory stays flat over large trees.
					fr.File = &manifest.File{Path: fr.File.Path, Docs: fr.File.Docs}
				}
				*slot = *fr
			}
		})
	}
	for in := range inputs {
		slot := &FileResult{Input: in}
		res.Files = append(res.Files, slot)
		jobs <- slot
	}
	close(jobs)
	wg.Wait()

	order := map[string]int{}
	for i, fr := range res.Files {
		order[fr.Input.Path] = i
	}
	for _, a := range aggs {
		a.agg.Finish(func(f rules.Finding) {
			if ig, ok := ignores[f.File]; ok && ig.suppresses(f.Line, f.Rule) {
				return
			}
			f.Severity = e.severity[f.Rule]
			if i, ok := order[f.File]; ok {
				res.Files[i].Findings = append(res.Files[i].Findings, f)
			}
		})
	}
	for _, fr := range res.Files {
		SortFindings(fr.Findings)
		res.Findings = append(res.Findings, fr.Findings...)
	}
	return res
}

type aggregate struct {
	rule *rules.Rule
	agg  rules.Aggregate
}

func (e *Engine) newAggregates() []aggregate {
	var out []aggregate
	for _, r := range e.rules {
		if r.NewAggregate != nil {
			agg := r.NewAggregate()
			// Cross-resource rules that read settings (lws.engine, ...).
			if c, ok := agg.(rules.Configurable); ok {
				c.Configure(e.cfg)
			}
			out = append(out, aggregate{r, agg})
		}
	}
	return out
}

// SortFindings orders findings by file position, then rule.
func SortFindings(fs []rules.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Rule < b.Rule
	})
}

func (e *Engine) read(in manifest.Input) ([]byte, error) {
	var r io.Reader
	var size int64 // as stat says; stdin: unknown
	if in.Path == manifest.Stdin {
		r = e.Stdin
	} else {
		// Stat before opening: opening a FIFO blocks until a writer
		// comes, and a path may have been replaced since it was listed.
		if st, err := os.Stat(in.Path); err != nil {
			return nil, err
		} else if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("not a regular file (skipped)")
		}
		f, err := os.Open(in.Path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("not a regular file (skipped)")
		}
		if st.Size() > e.MaxFileSize {
			return nil, fmt.Errorf("file is %d bytes, over the %d-byte limit (--max-file-size)", st.Size(), e.MaxFileSize)
		}
		r, size = f, st.Size()
	}
	data, err := readAll(io.LimitReader(r, e.MaxFileSize+1), size)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > e.MaxFileSize {
		return nil, fmt.Errorf("input is over the %d-byte limit (--max-file-size)", e.MaxFileSize)
	}
	// UTF-16, UTF-32 and binary data are refused here, with a read-error,
	// rather than parsed into nonsense.
	if err := manifest.Sniff(data); err != nil {
		return nil, err
	}
	return data, nil
}

// readAll is io.ReadAll into a buffer of the size stat gave, which a file
// that did not change fills without growing (io.ReadAll starts at 512
// bytes and copies its way up: 7% of lint's time).
func readAll(r io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, 0, max(size+1, 512))
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (e *Engine) processFile(in manifest.Input, kusts *manifest.Kustomizations, aggs []aggregate, mu *sync.Mutex, ignores map[string]lineIgnores) *FileResult {
	fr := &FileResult{Input: in}
	data, err := e.read(in)
	if err != nil {
		fr.Findings = []rules.Finding{e.fileFinding(in.Path, rules.InputErrorID, err.Error())}
		return fr
	}
	fr.File = manifest.Parse(in.Path, data, kusts.For(in.Path))
	ig := scanIgnores(fr.File.Src)
	fr.Findings = e.lint(fr.File, ig)
	if len(aggs) > 0 || ig != nil {
		mu.Lock()
		if ig != nil {
			ignores[in.Path] = ig
		}
		if !ig.all() {
			for _, obj := range fr.File.Objects {
				if !obj.Partial {
					observe(aggs, obj)
				}
			}
		}
		mu.Unlock()
	}
	return fr
}

// safely runs one file's work; a panic becomes an internal-error finding
// for that file, so one hostile input cannot stop the run or hide the
// other files' findings.
func (e *Engine) safely(in manifest.Input, work func() *FileResult) (fr *FileResult) {
	defer func() {
		if r := recover(); r != nil {
			fr = &FileResult{Input: in, Findings: []rules.Finding{
				e.fileFinding(in.Path, rules.InternalErrorID, fmt.Sprintf("internal error while processing this file (please report it): %v", r)),
			}}
		}
	}()
	return work()
}

func (e *Engine) fileFinding(path, rule, msg string) rules.Finding {
	return rules.Finding{Rule: rule, Severity: e.severity[rule], Message: msg, File: path, Doc: -1}
}

// Lint runs the per-object rules over a parsed file and applies
// suppressions. It does not feed cross-resource rules, so fix can call it
// again on its output.
func (e *Engine) Lint(f *manifest.File) []rules.Finding {
	return e.lint(f, scanIgnores(f.Src))
}

// lint is Lint with the file's ignore comments already scanned.
func (e *Engine) lint(f *manifest.File, ig lineIgnores) []rules.Finding {
	var out []rules.Finding
	if f.Template != "" {
		if e.Enabled(rules.TemplateID) {
			out = append(out, e.fileFinding(f.Path, rules.TemplateID, templateNotice[f.Template]))
		}
		return out
	}
	if ig.all() {
		return nil
	}
	if e.Enabled(rules.SyntaxID) {
		for _, se := range f.Errors {
			fd := e.fileFinding(f.Path, rules.SyntaxID, se.Message)
			fd.Line, fd.Column = se.Line, se.Column
			out = append(out, fd)
		}
	}
	// Documents that are a bare value or a list of objects: kubectl wants
	// an object per document.
	if e.Enabled(rules.TypeMismatchID) {
		for _, st := range f.Strays {
			fd := e.fileFinding(f.Path, rules.TypeMismatchID, st.Message)
			fd.Line, fd.Column, fd.Doc = st.Line, st.Column, st.Doc
			out = append(out, fd)
		}
	}
	out = e.checkObjects(f.Objects, out)
	kept := out[:0]
	for _, fd := range out {
		if ig.suppresses(fd.Line, fd.Rule) {
			continue
		}
		fd.Severity = e.severity[fd.Rule]
		kept = append(kept, fd)
	}
	SortFindings(kept)
	return kept
}

// ruleSet is the rules an object's ignore annotation names ("all" among
// them covers every rule); nil for the usual object without one.
type ruleSet []string

// annotationIgnores reads an object's ignore annotation, once per object.
func annotationIgnores(obj *manifest.Object) ruleSet {
	v := manifest.ScalarValue(manifest.Path(obj.Node, "metadata", "annotations", IgnoreAnnotation))
	if v == "" {
		return nil
	}
	var ids ruleSet
	for _, id := range strings.Split(v, ",") {
		ids = append(ids, strings.TrimSpace(id))
	}
	return ids
}

func (s ruleSet) has(rule string) bool {
	for _, id := range s {
		if id == rule || id == "all" {
			return true
		}
	}
	return false
}

// checkObjects runs the per-object rules over objs, appending to out.
func (e *Engine) checkObjects(objs []*manifest.Object, out []rules.Finding) []rules.Finding {
	for _, obj := range objs {
		ignored := annotationIgnores(obj)
		for _, r := range e.rules {
			if r.Check == nil || (obj.Partial && !r.ValueLevel) || ignored.has(r.ID) {
				continue
			}
			r.Check(rules.NewPass(r, obj, func(fd rules.Finding) {
				out = append(out, fd)
			}))
		}
	}
	return out
}

// observe feeds one object to the cross-resource rules.
func observe(aggs []aggregate, obj *manifest.Object) {
	ignored := annotationIgnores(obj)
	for _, a := range aggs {
		a.agg.Observe(rules.NewPass(a.rule, obj, nil).WithSuppressed(ignored.has(a.rule.ID)))
	}
}

// parallelFrom is the number of objects from which LintObjects shares the
// per-object rules among all cores (a ResourceList of a whole repository);
// below it, starting goroutines costs more than it saves.
const parallelFrom = 64

// LintObjects runs every enabled rule, cross-resource ones included, over
// objects that did not come from files (a KRM ResourceList). Comment
// suppressions need source text and do not apply; annotations do.
func (e *Engine) LintObjects(objs []*manifest.Object) []rules.Finding {
	var out []rules.Finding
	if n := runtime.GOMAXPROCS(0); n > 1 && len(objs) >= parallelFrom {
		// Contiguous shares, appended in order: the same findings in the
		// same order as one goroutine would give.
		parts := make([][]rules.Finding, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				parts[i] = e.checkObjects(objs[i*len(objs)/n:(i+1)*len(objs)/n], nil)
			})
		}
		wg.Wait()
		for _, p := range parts {
			out = append(out, p...)
		}
	} else {
		out = e.checkObjects(objs, nil)
	}
	aggs := e.newAggregates()
	for _, obj := range objs {
		if !obj.Partial {
			observe(aggs, obj)
		}
	}
	for _, a := range aggs {
		a.agg.Finish(func(f rules.Finding) { out = append(out, f) })
	}
	for i := range out {
		out[i].Severity = e.severity[out[i].Rule]
	}
	return out
}
