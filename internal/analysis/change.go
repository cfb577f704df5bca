package analysis

import (
	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// A change rule (Rule.Change) judges what applying one application's
// change does to the cluster. GitOps applies a change, not a state: an
// update the API server refuses, an object an engine recreates, a
// controller left running because nothing prunes it, all live in the
// difference between what the cluster holds (the application at the base
// revision) and what the change applies (the application at head). The
// engine runs change rules only under `lint --base`, once per application
// whose inputs differ between the two revisions.

// Engine is the GitOps engine (or tool) that applies an application.
type Engine int

const (
	// EngineUnknown: nothing in the repository or the configuration says.
	EngineUnknown Engine = iota
	// EngineKubectl: `kubectl apply` (client- or server-side), also what
	// cli-utils and kpt live apply build on.
	EngineKubectl
	// EngineArgoCD: an Argo CD Application.
	EngineArgoCD
	// EngineFlux: a Flux Kustomization (kustomize-controller).
	EngineFlux
	// EngineKapp: kapp, or kapp-controller's App.
	EngineKapp
)

func (e Engine) String() string {
	switch e {
	case EngineKubectl:
		return "kubectl"
	case EngineArgoCD:
		return "Argo CD"
	case EngineFlux:
		return "Flux"
	case EngineKapp:
		return "kapp"
	}
	return "an unknown engine"
}

// Applier is how an application's engine applies its change: the
// settings that decide what happens to an object the change removes and
// to an update the API server refuses.
type Applier struct {
	Engine Engine
	// Prune: objects gone from head are deleted (Argo CD automated prune,
	// Flux `prune: true`, kapp, `kubectl apply --prune`).
	Prune bool
	// Recreate: an update the API server refuses is retried as a delete
	// (in the background) and a create (Argo CD Replace=true,Force=true,
	// Flux `force: true`, kapp's always-replace).
	Recreate bool
	// Known is false when no setting of the engine was found and Prune
	// and Recreate are the engine's defaults, not the application's.
	Known bool
}

// ObjectKey is what pairs an object at the base with the same object at
// head: what the API server identifies it by.
type ObjectKey struct {
	Group, Kind, Namespace, Name string
}

// KeyOf is o's key.
func KeyOf(o *manifest.Object) ObjectKey {
	return ObjectKey{o.Resource.Group(), o.Resource.Kind, o.Resource.Namespace, o.Resource.Name}
}

// ChangePass is what a change rule sees of one application's change.
type ChangePass struct {
	Rule *Rule
	App  AppID
	// Base is the application's objects at the base revision (rendered as
	// at head); Head those the change applies.
	Base, Head []*manifest.Object
	// BaseRevision names the base for messages (a short commit).
	BaseRevision string
	Applier      Applier
	// Config is the run's configuration; never nil.
	Config *config.Config
	// BaseWhere, set by the driver, tells where a base object's value at
	// path was written (file:line at the base revision); "" when unknown.
	// Use BaseSource.
	BaseWhere func(base *manifest.Object, path manifest.FieldPath) string
	report    func(Finding)
	base      map[ObjectKey]*manifest.Object
}

// NewChangePass is for drivers: it binds a rule and one application's
// change to a sink.
func NewChangePass(r *Rule, app AppID, base, head []*manifest.Object, rev string, ap Applier, cfg *config.Config, report func(Finding)) *ChangePass {
	byKey := make(map[ObjectKey]*manifest.Object, len(base))
	for _, o := range base {
		byKey[KeyOf(o)] = o
	}
	return &ChangePass{Rule: r, App: app, Base: base, Head: head, BaseRevision: rev, Applier: ap, Config: cfg, report: report, base: byKey}
}

// BaseOf is head's object at the base revision (same group, kind,
// namespace and name), or nil when the change creates it.
func (p *ChangePass) BaseOf(head *manifest.Object) *manifest.Object {
	return p.base[KeyOf(head)]
}

// Report records a finding at node n of head, an object of p.Head: a
// change rule reports at what the change applies, where a fix can go
// (the engine places a rendered object's finding at its source line).
// path is the dotted field path of n.
func (p *ChangePass) Report(head *manifest.Object, n *yaml.Node, path string, fix *Fix, format string, args ...any) {
	p.report(NewPass(p.Rule, head, p.Config, nil).Finding(n, path, fix, format, args...))
}

// BaseSource is where base's value at path was written at the base
// revision ("config/base/deploy.yaml:12"), or "" when the driver cannot
// tell: messages name it beside the short commit.
func (p *ChangePass) BaseSource(base *manifest.Object, path manifest.FieldPath) string {
	if p.BaseWhere == nil || base == nil {
		return ""
	}
	return p.BaseWhere(base, path)
}
