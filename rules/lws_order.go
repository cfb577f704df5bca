package rules

// lws-recreate-order and lws-ordering: the lws-ordering transformer
// (transformers/lws.go) run as two cross-resource rules. Both observe the
// same objects and compute the same plan; lws-recreate-order reports the
// objects that lack ordering annotations, with fixes, and lws-ordering the
// notes (dependencies not in the input, no engine found, Flux).
//
// Memory stays small: a summary per object holds only its identity, its
// annotations and the position to report at, never a node. Each finding is
// about one object and its fix sets entries of its metadata.annotations,
// addressed by path, so every way in (fix, fn, the legacy plugin) applies
// it through the one fix driver. The plan is computed once for both rules
// (CrossPass.Shared).
//
// Finish is linear in the objects kept, not in LWSs times Services: Argo
// CD's followers are found through an index (followerIndex).

import (
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/scope"
	"github.com/shipshape-dev/shipshape/internal/selector"
	"github.com/shipshape-dev/shipshape/transformers"
)

const lwsEngineTable = `| engine (` + "`lws.engine`" + `) | what shipshape adds | its recreate | waits until the StatefulSets are gone? |
|---|---|---|---|
| ` + "`argocd`" + ` | ` + "`argocd.argoproj.io/sync-wave`" + ` on the LWS: one more than the highest wave of its dependencies (none counts as 0); Services selecting its pods and HPAs scaling it: the LWS's wave | ` + "`sync-options: Force=true,Replace=true`" + ` | no |
| ` + "`kapp`" + ` | LWS: ` + "`kapp.k14s.io/change-group.shipshape-lws: shipshape.dev/lws.<ns>.<name>`" + ` and ` + "`change-rule.shipshape-lws: upsert after upserting shipshape.dev/deps.<ns>.<name>`" + `; each dependency: ` + "`change-group.shipshape-<name>: shipshape.dev/deps.<ns>.<name>`" + ` and ` + "`change-rule.shipshape-<name>: delete after deleting shipshape.dev/lws.<ns>.<name>`" + ` | ` + "`update-strategy: always-replace`" + ` | no |
| ` + "`cli-utils`" + ` (kpt live, Config Sync) | ` + "`config.kubernetes.io/depends-on: /namespaces/<ns>/ConfigMap/<name>,...`" + ` on the LWS, appended to the references there | none | n/a |
| ` + "`flux`" + ` | nothing exists per object: an info finding (` + "`lws-ordering`" + `) explains the Kustomization ` + "`dependsOn`" + ` and health check to use | ` + "`kustomize.toolkit.fluxcd.io/force: enabled`" + ` | no |
| kubectl | — | ` + "`kubectl replace --force --cascade=foreground`" + ` | yes |
`

var lwsRecreateOrder = Register(&analysis.Rule{
	ID:       "lws-recreate-order",
	Severity: analysis.Warning,
	Summary:  "A LeaderWorkerSet lacks the GitOps ordering annotations that create it after its dependencies and delete it before them",
	Targets:  analysis.Objects,
	Fixable:  true,
	Settings: []analysis.Setting{lwsEngineSetting},
	Cross:    orderCross(false),
	Scope:    orderScope,
})

var lwsOrdering = Register(&analysis.Rule{
	ID:       "lws-ordering",
	Severity: analysis.Info,
	Summary:  "Notes from the LeaderWorkerSet ordering transformer: what it could not order, and why",
	Targets:  analysis.Objects,
	Settings: []analysis.Setting{lwsEngineSetting},
	Cross:    orderCross(true),
	Scope:    orderScope,
})

// orderScope: each application gets its own ordering plan (finishOrder
// groups the summaries by p.Application), but the engine that applies an
// application is also told by objects of other applications (an Argo CD
// Application or Flux Kustomization whose path is its directory), so the
// rules see the whole repository.
const orderScope = analysis.Repository

// lwsEngineSetting is the configured GitOps engine, whose annotations
// order an LWS (lwsEngine reads it).
var lwsEngineSetting = analysis.Setting{
	Name:    "lws.engine",
	Default: transformers.EngineAuto,
	Doc:     "the tool that applies the manifests, whose ordering annotations are written: auto (the engine whose annotations the application already has), argocd, kapp, cli-utils, flux or none (no ordering)",
}

// orderAgg is what Finish builds from the summaries, for both rules.
type orderAgg struct {
	engine   string
	rule     string // the rule judging: an LWS that opted out of it is not planned
	lws      []*lwsEntry
	deps     map[depKey][]*orderMember
	services []*svcEntry // Argo CD's followers
	hpas     []*hpaEntry
	evidence map[string]evidence // engine -> first object carrying its annotations
}

// orderSummary is one object's part: the engine evidence its annotations
// carry, and at most one of the entries.
type orderSummary struct {
	Evidence []engineEvidence
	// points is an Argo CD Application or Flux Kustomization that applies
	// a directory of the repository: evidence for that application.
	Points *pointer
	Lws    *lwsEntry
	// Dep: a ConfigMap, Secret, ServiceAccount or PVC an LWS may need
	// (its key is its At's kind, namespace and name: not kept twice,
	// as a summary of most repositories' objects is one of these).
	Dep *orderMember
	Svc *svcEntry
	Hpa *hpaEntry
}

type engineEvidence struct {
	Engine string
	evidence
}

// pointer is a GitOps object that applies directories.
type pointer struct {
	Engine string // transformers.EngineArgoCD, ...
	At     evidence
	Dirs   []string
}

// orderCross is both rules' Cross: the same summaries and plan; notes
// selects which part of the plan a rule reports.
func orderCross(notes bool) analysis.Cross {
	return analysis.Summaries(sharedOrderSummary, func(p *analysis.CrossPass, ss []*orderSummary) {
		finishOrder(p, ss, notes)
	})
}

// sharedOrderSummary is summarizeOrder once per object for both rules:
// they keep the same summary, not a copy each.
func sharedOrderSummary(p *analysis.Pass) (*orderSummary, bool) {
	s := p.Memo("rules.order", func() any {
		if s, ok := summarizeOrder(p); ok {
			return &s
		}
		return (*orderSummary)(nil)
	}).(*orderSummary)
	return s, s != nil
}

// lwsEngine is the configured engine, auto when unset.
func lwsEngine(p *analysis.Pass) string {
	if e := p.Config.LWS.Engine; e != "" {
		return e
	}
	return transformers.EngineAuto
}

type depKey struct{ Kind, NS, Name string }

// orderMember is the summary of one object the ordering may annotate.
type orderMember struct {
	At          analysis.Locator  // at the object's name; its Resource names the object
	Annotations map[string]string // the engines' annotations (transformers.EngineOf), nil when none
	OptOut      analysis.RuleSet  // the rules it opted out of: an LWS is not planned for those
	// obj is what the planner sees, made when a plan includes the object,
	// once, so that every set it is in holds the same pointer.
	Obj *transformers.OrderObject
}

type lwsEntry struct {
	orderMember
	NS    string
	Deps  []depRef
	Pods  []lwsPods
	Owned bool
}

type svcEntry struct {
	orderMember
	Sel  selector.Set // interned and sorted: one per Service, kept until Finish
	Rank int          // index among the Services sorted by position
}

type hpaEntry struct {
	orderMember
	Target string
}

type evidence struct {
	File string
	Line int
	Key  string
}

func (e evidence) before(o evidence) bool {
	return e.File < o.File || e.File == o.File && e.Line < o.Line
}

func summarizeOrder(p *analysis.Pass) (orderSummary, bool) {
	engine := lwsEngine(p)
	if engine == transformers.EngineNone {
		return orderSummary{}, false // Finish reports nothing
	}
	obj := p.Object
	meta := manifest.MapGet(obj.Node, "metadata")
	annNode := manifest.MapGet(meta, "annotations")
	s := orderSummary{Evidence: evidenceOf(obj.File, annNode), Points: pointsAt(obj)}
	if obj.Name == "" || meta == nil || meta.Kind != yaml.MappingNode {
		return s, len(s.Evidence) > 0 || s.Points != nil
	}
	// Only Argo CD orders Services and HPAs.
	followers := engine == transformers.EngineAuto || engine == transformers.EngineArgoCD
	ns := obj.EffectiveNamespace()
	switch {
	case isLWS(obj):
		owners := manifest.MapGet(meta, "ownerReferences")
		s.Lws = &lwsEntry{
			orderMember: newOrderMember(p, annNode),
			NS:          ns,
			Deps:        lwsDeps(obj),
			Pods:        lwsPodLabels(obj),
			Owned:       owners != nil && owners.Kind == yaml.SequenceNode && len(owners.Content) > 0,
		}
	case obj.APIVersion == "v1" && (obj.Kind == "ConfigMap" || obj.Kind == "Secret" || obj.Kind == "ServiceAccount" || obj.Kind == "PersistentVolumeClaim"):
		m := newOrderMember(p, annNode)
		s.Dep = &m
	case isService(obj) && followers:
		if sel := serviceSelector(obj); len(sel) > 0 {
			s.Svc = &svcEntry{orderMember: newOrderMember(p, annNode), Sel: selector.SetOf(sel)}
		}
	case isHPA(obj) && followers:
		if target, ok := scaledLWS(obj); ok {
			s.Hpa = &hpaEntry{newOrderMember(p, annNode), target}
		}
	}
	return s, len(s.Evidence) > 0 || s.Points != nil || s.Lws != nil || s.Dep != nil || s.Svc != nil || s.Hpa != nil
}

// pointsAt returns what an Argo CD Application (spec.source.path,
// spec.sources[].path) or a Flux Kustomization (spec.path) says about the
// engine of the directories it applies, relative to the repository root;
// nil for other objects, or outside a repository.
func pointsAt(obj *manifest.Object) *pointer {
	var engine, name string
	var paths []*yaml.Node
	spec := manifest.MapGet(obj.Node, "spec")
	switch {
	case obj.Kind == "Application" && obj.Group() == "argoproj.io":
		engine, name = transformers.EngineArgoCD, "Argo CD Application"
		paths = append(paths, manifest.Path(spec, "source", "path"))
		if srcs := manifest.MapGet(spec, "sources"); srcs != nil && srcs.Kind == yaml.SequenceNode {
			for _, src := range srcs.Content {
				paths = append(paths, manifest.MapGet(src, "path"))
			}
		}
	case obj.Kind == "Kustomization" && obj.Group() == "kustomize.toolkit.fluxcd.io":
		engine, name = transformers.EngineFlux, "Flux Kustomization"
		paths = append(paths, manifest.MapGet(spec, "path"))
	default:
		return nil
	}
	file := obj.File
	if obj.Root != "" {
		file = obj.Root // rendered: the GitOps configuration is a kustomize root
	}
	root := scope.RepositoryRoot(filepath.Dir(file))
	if root == "" {
		return nil
	}
	pt := &pointer{Engine: engine}
	for _, n := range paths {
		if v := manifest.ScalarValue(n); v != "" {
			pt.Dirs = append(pt.Dirs, filepath.Join(root, filepath.FromSlash(v)))
			if pt.At.File == "" {
				pt.At = evidence{file, n.Line, fmt.Sprintf("%s %q", name, obj.Name)}
			}
		}
	}
	if len(pt.Dirs) == 0 {
		return nil
	}
	return pt
}

// evidenceOf returns the annotation keys that show which engine applies
// the input, for lws.engine auto.
func evidenceOf(file string, annNode *yaml.Node) []engineEvidence {
	if annNode == nil || annNode.Kind != yaml.MappingNode {
		return nil
	}
	var out []engineEvidence
	for i := 0; i+1 < len(annNode.Content); i += 2 {
		k := annNode.Content[i]
		if e := transformers.EngineOf(k.Value); e != "" {
			out = append(out, engineEvidence{e, evidence{file, k.Line, k.Value}})
		}
	}
	return out
}

func newOrderMember(p *analysis.Pass, annNode *yaml.Node) orderMember {
	// The planner reads only the engines' own annotations: the others
	// are not kept, and most objects then keep none (nil).
	var ann map[string]string
	for k, v := range selector.Labels(annNode) {
		if transformers.EngineOf(k) != "" {
			if ann == nil {
				ann = map[string]string{}
			}
			ann[k] = v
		}
	}
	return orderMember{
		At:          p.Locate(nameNode(p.Object), "metadata.annotations"),
		Annotations: ann,
		OptOut:      analysis.IgnoredRules(p.Object),
	}
}

// orderPlan is the plan both rules judge.
type orderPlan struct {
	sets    []lwsSet
	members map[*transformers.OrderObject]*orderMember
}

// newOrderAgg gathers the summaries, in file order, for the planner; it
// also names the LWSs that opted out.
func newOrderAgg(engine, rule string, ss []*orderSummary) (a *orderAgg, optedOut []string) {
	a = &orderAgg{engine: engine, rule: rule, deps: map[depKey][]*orderMember{}, evidence: map[string]evidence{}}
	if a.engine == "" {
		a.engine = transformers.EngineAuto
	}
	for _, s := range ss {
		for _, ev := range s.Evidence {
			if old, ok := a.evidence[ev.Engine]; !ok || ev.before(old) {
				a.evidence[ev.Engine] = ev.evidence
			}
		}
		switch {
		case s.Lws != nil:
			a.lws = append(a.lws, s.Lws)
			if s.Lws.OptOut.Has(rule) {
				optedOut = append(optedOut, fmt.Sprintf("%s:%d:%d", s.Lws.At.File, s.Lws.At.Doc, s.Lws.At.Item))
			}
		case s.Dep != nil:
			r := s.Dep.At.Resource
			k := depKey{r.Kind, r.EffectiveNamespace(), r.Name}
			a.deps[k] = append(a.deps[k], s.Dep)
		case s.Svc != nil:
			s.Svc.Rank = len(a.services)
			a.services = append(a.services, s.Svc)
		case s.Hpa != nil:
			a.hpas = append(a.hpas, s.Hpa)
		}
	}
	return a, optedOut
}

// finishOrder judges each application alone; it sees them all so that an
// Argo CD Application or Flux Kustomization in one application (the
// GitOps configuration) tells the engine of the application whose
// directory it applies.
func finishOrder(p *analysis.CrossPass, ss []*orderSummary, notes bool) {
	pointed := map[string][]engineEvidence{} // directory -> engines applying it
	for _, s := range ss {
		if s.Points != nil {
			for _, d := range s.Points.Dirs {
				pointed[d] = append(pointed[d], engineEvidence{s.Points.Engine, s.Points.At})
			}
		}
	}
	eachApplication(p, len(ss), func(app analysis.AppID, lo, hi int) {
		in := ss[lo:hi:hi] // full: the evidence below goes in a copy
		// An application that is a directory whole (not the unlisted
		// files of one, nor one file of a split directory) is what a
		// GitOps configuration points at.
		if ev := pointed[app.Dir]; len(ev) > 0 && !app.Unlisted && app.File == "" {
			in = append([]*orderSummary{{Evidence: ev}}, in...)
		}
		finishOrderApp(p, app, in, notes)
	})
}

// orderPlanKey names an application's ordering plan in the shared memo.
type orderPlanKey struct {
	app      analysis.AppID
	engine   string
	optedOut string
}

func finishOrderApp(p *analysis.CrossPass, app analysis.AppID, ss []*orderSummary, notes bool) {
	a, optedOut := newOrderAgg(p.Config.LWS.Engine, p.Rule.ID, ss)
	engine, how, problem := a.resolve()
	if engine == transformers.EngineNone {
		return
	}
	// The LWSs that opted out leave the plan: the key names them.
	key := orderPlanKey{app, engine, strings.Join(optedOut, ",")}
	plan := p.Shared(key, func() any {
		sets, members := a.sets(engine)
		return &orderPlan{sets, members}
	}).(*orderPlan)
	var out []analysis.Finding
	if notes {
		out = notesFor(engine, problem, plan.sets)
	} else {
		out = changesFor(engine, how, plan.sets, plan.members)
	}
	for _, f := range out {
		p.Report(f)
	}
}

// serviceSelector returns the labels a Service selects pods by, those of
// the kustomization included; none for an ExternalName Service or a
// Service without a selector (kustomize's labels alone select no LWS pod).
func serviceSelector(obj *manifest.Object) map[string]string {
	spec := manifest.MapGet(obj.Node, "spec")
	if isExternalName(spec) {
		return nil
	}
	sel := selector.Labels(manifest.MapGet(spec, "selector"))
	if len(sel) == 0 {
		return nil
	}
	for k, v := range obj.SelectorLabels {
		sel[k] = v
	}
	return sel
}

// scaledLWS returns the name of the LeaderWorkerSet an HPA scales.
func scaledLWS(obj *manifest.Object) (string, bool) {
	ref := manifest.Path(obj.Node, "spec", "scaleTargetRef")
	av := manifest.ScalarValue(manifest.MapGet(ref, "apiVersion"))
	if manifest.ScalarValue(manifest.MapGet(ref, "kind")) != "LeaderWorkerSet" ||
		av != "" && !strings.HasPrefix(av, "leaderworkerset.x-k8s.io/") {
		return "", false
	}
	return manifest.ScalarValue(manifest.MapGet(ref, "name")), true
}
