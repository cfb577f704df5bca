package analysis

import (
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/shipshape-dev/shipshape/internal/bincodec"
	"github.com/shipshape-dev/shipshape/internal/config"
)

// Cross is a cross-resource rule's two halves: Summarize keeps, from each
// object, the little the rule needs (names, labels, a finding to report
// later), never the object's tree; Finish judges the summaries of one
// application together. Summaries builds one with the summary's own type.
//
// The engine calls Summarize on the workers, as objects are read, and
// Finish once per application with the summaries in file order (path,
// then document, then List item), so Finish sees the same input whatever
// order files were read in. A Repository rule's one Finish gets every
// summary grouped by application (CrossPass.Application), the
// applications in the order of their first summaries and each one's in
// file order: a rule that judges applications one at a time walks their
// runs and keeps no map of them. It drops what Finish reports about objects
// that opted out (annotation, comment), sets the severity, and sorts.
//
// Encode and Decode carry one summary between runs (the engine's per-file
// cache, in internal/bincodec's form): Decode(Encode(s)) must be s, to
// reflect.DeepEqual. Encode fails with ErrNotEncodable when the summary
// cannot be carried (an interface, a func, an unexported field); the
// engine then does not cache that file.
type Cross interface {
	Summarize(p *Pass) (any, bool)
	Finish(p *CrossPass, summaries []any)
	Encode(summary any) ([]byte, error)
	Decode(data []byte) (any, error)
}

// ErrNotEncodable: a summary that is not plain data bincodec carries
// whole (an unexported field, a func, an interface).
var ErrNotEncodable = errors.New("summary not encodable")

// Summaries makes a Cross from typed halves.
func Summaries[S any](summarize func(p *Pass) (S, bool), finish func(p *CrossPass, summaries []S)) Cross {
	return typedCross[S]{summarize, finish, sync.OnceValue(func() error { return bincodec.CheckType(reflect.TypeFor[S]()) })}
}

type typedCross[S any] struct {
	summarize func(*Pass) (S, bool)
	finish    func(*CrossPass, []S)
	// encodable: whether S's every value is carried (asked once, when
	// first encoding: not at start-up).
	encodable func() error
}

// Encode is s in bincodec's form.
func (c typedCross[S]) Encode(s any) ([]byte, error) {
	if err := c.encodable(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotEncodable, err)
	}
	data, err := bincodec.Append(nil, s.(S))
	if errors.Is(err, bincodec.ErrUnsupported) {
		return nil, fmt.Errorf("%w: %v", ErrNotEncodable, err)
	}
	return data, err
}

// Decode is the summary data encodes.
func (c typedCross[S]) Decode(data []byte) (any, error) {
	var s S
	if err := bincodec.Decode(data, &s); err != nil {
		return nil, err
	}
	return s, nil
}

func (c typedCross[S]) Summarize(p *Pass) (any, bool) { return c.summarize(p) }

func (c typedCross[S]) Finish(p *CrossPass, summaries []any) {
	typed := make([]S, len(summaries))
	for i, s := range summaries {
		typed[i] = s.(S)
	}
	c.finish(p, typed)
}

// CrossPass is what a cross-resource rule sees of one application.
type CrossPass struct {
	Rule *Rule
	// Config is the run's configuration; never nil.
	Config *config.Config
	report func(Finding)
	shared map[any]any
	appOf  func(i int) AppID
	unread map[AppID]bool
}

// AppID names an application: the objects one GitOps engine applies
// together (Argo CD's and Flux's path, `kubectl apply -k`'s directory).
//
// The two bools are last, side by side: 64 bytes, not 72 (every file's
// result keeps two, and a large tree's Finish numbers thousands).
type AppID struct {
	// Dir is the directory applied: that of a plain manifest (absolute),
	// of a rendered kustomize root, or the path a Flux Kustomization
	// builds; "-" for stdin.
	Dir string
	// File is set when Dir defines one object (group, kind, namespace,
	// name) in two files: such a directory holds alternatives, which no
	// engine applies as a whole, so each of its files is an application.
	File string
	// Variant names another build of Dir's kustomize root: an Argo CD
	// Application's, with its kustomize options (its file, document and
	// source). "" for the root as written.
	Variant string
	// Argo is the Argo CD Application that applies the files as a plain
	// directory with directory options (recurse, include, exclude): the
	// files it applies are one application, whatever their directories.
	// nil for a directory applied as every plain directory is.
	Argo *ArgoDirectory
	// Unlisted marks the files in Dir that Dir's kustomization does not
	// list: not applied with what it builds, they are an application of
	// their own.
	Unlisted bool
	// LeftOut, with Argo: the files under Argo's path that its
	// include/exclude leave out and that nothing else in the tree applies.
	LeftOut bool
}

// ArgoDirectory is an Argo CD Application whose sources apply plain
// directories (directory.recurse, include, exclude, as the repo server's
// findManifests reads them). One value per Application: its pointer is
// its identity in AppID.
type ArgoDirectory struct {
	Name string // metadata.name
	File string // the Application's file, as shown
	// leftOut: the files it leaves out (AppID.LeftOut), as shown, and
	// the option that does. Written before the files are linted, read
	// only after.
	leftOut map[string]DirectoryOption
}

// DirectoryOption is an option of an Argo CD directory source that
// selects files: directory.include or directory.exclude, and its glob.
type DirectoryOption struct {
	Name    string // directory.exclude
	Pattern string // *.bak.yaml
}

// LeaveOut records that the Application's option leaves file out.
func (a *ArgoDirectory) LeaveOut(file string, by DirectoryOption) {
	if a.leftOut == nil {
		a.leftOut = map[string]DirectoryOption{}
	}
	a.leftOut[file] = by
}

// LeftOutBy is the option that leaves file out of the Application; false
// when none does.
func (a *ArgoDirectory) LeftOutBy(file string) (DirectoryOption, bool) {
	if a == nil {
		return DirectoryOption{}, false
	}
	by, ok := a.leftOut[file]
	return by, ok
}

// Application names the application the i-th summary comes from: a
// Repository rule that looks across applications for what it misses may
// still judge some things per application.
func (p *CrossPass) Application(i int) AppID { return p.appOf(i) }

// Unread reports whether application app holds a file shipshape could
// not read as objects (a template): a rule that reports an absence (no
// pods) cannot know what that file makes.
func (p *CrossPass) Unread(app AppID) bool {
	// A directory split into one application per file (see AppID.File)
	// is still the directory whose templates are unread.
	app.File, app.Variant = "", ""
	return p.unread[app]
}

// NewCrossPass is for drivers. shared is the application's memo, the
// same map for every rule of the application (see Shared).
// apps names each summary's application (see Application); unread holds
// the applications with a file not read as objects (see Unread).
func NewCrossPass(r *Rule, cfg *config.Config, shared map[any]any, apps []AppID, unread map[AppID]bool, report func(Finding)) *CrossPass {
	return NewCrossPassOf(r, cfg, shared, func(i int) AppID { return apps[i] }, unread, report)
}

// NewCrossPassOf is NewCrossPass with each summary's application given by
// appOf: a driver that keeps one small index per summary, not an AppID,
// over a large tree's hundreds of thousands of summaries.
func NewCrossPassOf(r *Rule, cfg *config.Config, shared map[any]any, appOf func(i int) AppID, unread map[AppID]bool, report func(Finding)) *CrossPass {
	return &CrossPass{Rule: r, Config: cfg, report: report, shared: shared, appOf: appOf, unread: unread}
}

// Report records a finding (built by Pass.Finding during Summarize).
func (p *CrossPass) Report(f Finding) {
	if f.Rule != p.Rule.ID { // built by a rule sharing this one's summaries
		f.Rule, f.Severity = p.Rule.ID, p.Rule.Severity
	}
	p.report(f)
}

// Shared returns the value computed for key in this application, calling
// compute the first time: two rules that judge one plan (the LWS ordering's
// changes and notes) compute it once. The key is a comparable value (a
// struct of its parts) that names everything the value depends on.
func (p *CrossPass) Shared(key any, compute func() any) any {
	if v, ok := p.shared[key]; ok {
		return v
	}
	v := compute()
	p.shared[key] = v
	return v
}
