package rules

// The plan of lws-recreate-order and lws-ordering (lws_order.go): which
// engine orders the application, the sets of LeaderWorkerSets with what
// they follow (their Services and HPAs, found through followerIndex), and
// the findings: the annotations each set lacks, with their fixes, or a
// note saying why none can be given.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/english"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/selector"
	"github.com/shipshape-dev/shipshape/transformers"
)

// object returns what the planner knows of m.
func (m *orderMember) object() *transformers.OrderObject {
	if m.Obj == nil {
		r := m.At.Resource
		m.Obj = &transformers.OrderObject{
			Ref:         transformers.OrderRef{Group: r.Group(), Kind: r.Kind, Namespace: r.Namespace, Name: r.Name},
			Annotations: m.Annotations,
		}
	}
	return m.Obj
}

// resolve returns the engine to use ("" when auto found none or several)
// and, for auto, where it was found; a note says what went wrong.
func (a *orderAgg) resolve() (engine, how, problem string) {
	if a.engine != transformers.EngineAuto {
		return a.engine, "", ""
	}
	var found []string
	for e := range a.evidence {
		found = append(found, e)
	}
	sort.Strings(found)
	switch len(found) {
	case 0:
		return "", "", "no Argo CD, kapp, cli-utils or Flux annotations are in the input, so lws.engine auto adds no ordering"
	case 1:
		ev := a.evidence[found[0]]
		return found[0], fmt.Sprintf(" (lws.engine auto: %s found at %s:%d)", ev.Key, ev.File, ev.Line), ""
	}
	var list []string
	for _, e := range found {
		ev := a.evidence[e]
		list = append(list, fmt.Sprintf("%s (%s at %s:%d)", transformers.EngineNames[e], ev.Key, ev.File, ev.Line))
	}
	return "", "", "annotations of several engines are in the input, " + strings.Join(list, ", ") + ", so lws.engine auto adds no ordering"
}

// lwsSet is one LWS with what it uses: present (in the set) or missing.
type lwsSet struct {
	e       *lwsEntry
	set     transformers.OrderSet
	missing []depRef
}

// sets returns the LWSs to order, by position, each with its dependencies
// in the input and (Argo CD) the Services and HPAs that follow it; members
// leads from what the planner sees back to the summaries.
func (a *orderAgg) sets(engine string) ([]lwsSet, map[*transformers.OrderObject]*orderMember) {
	var followers *followerIndex
	if engine == transformers.EngineArgoCD {
		followers = newFollowerIndex(a.services, a.hpas)
	}
	members := map[*transformers.OrderObject]*orderMember{}
	include := func(m *orderMember) *transformers.OrderObject {
		o := m.object()
		members[o] = m
		return o
	}
	var sets []lwsSet
	for _, e := range a.lws {
		if e.Owned || e.OptOut.Has(a.rule) {
			continue
		}
		s := lwsSet{e: e, set: transformers.OrderSet{LWS: include(&e.orderMember)}}
		for _, d := range e.Deps {
			found := a.deps[depKey{d.Kind, e.NS, d.Name}]
			if len(found) == 0 {
				s.missing = append(s.missing, d)
			}
			for _, m := range found {
				s.set.Deps = append(s.set.Deps, include(m))
			}
		}
		if followers != nil {
			for _, m := range followers.of(e) {
				s.set.Followers = append(s.set.Followers, include(m))
			}
		}
		sets = append(sets, s)
	}
	return sets, members
}

// followerIndex finds the Services that select an LWS's pods and the HPAs
// that scale it without trying every Service on every LWS. A Service
// selects an LWS's pods only when they carry, with its value, each label of
// its selector that the controller does not vary per pod; it is filed under
// one such label, and an LWS looks up only the labels its pods carry.
type followerIndex struct {
	byFixedLabel map[nsLabel][]*svcEntry
	perPodOnly   map[string][]*svcEntry // by namespace: selectors of per-pod labels only
	hpas         map[nsName][]*hpaEntry // by namespace and scaled LWS
}

type nsLabel struct{ ns, key, value string }

// newFollowerIndex files services and hpas, each sorted by position.
func newFollowerIndex(services []*svcEntry, hpas []*hpaEntry) *followerIndex {
	x := &followerIndex{byFixedLabel: map[nsLabel][]*svcEntry{}, perPodOnly: map[string][]*svcEntry{}, hpas: map[nsName][]*hpaEntry{}}
	for _, s := range services {
		ns := s.At.Resource.EffectiveNamespace()
		if k, ok := fixedLabel(s.Sel); ok {
			v, _ := s.Sel.Get(k)
			l := nsLabel{ns, k, v}
			x.byFixedLabel[l] = append(x.byFixedLabel[l], s)
		} else {
			x.perPodOnly[ns] = append(x.perPodOnly[ns], s)
		}
	}
	for _, h := range hpas {
		k := nsName{h.At.Resource.EffectiveNamespace(), h.Target}
		x.hpas[k] = append(x.hpas[k], h)
	}
	return x
}

// fixedLabel returns a key of sel that every pod it selects carries with
// sel's value (see selectsLWSPods): one the LWS controller does not vary
// per pod. The LWS name label is the most selective.
func fixedLabel(sel selector.Set) (string, bool) {
	if _, ok := sel.Get(lwsNameLabel); ok {
		return lwsNameLabel, true
	}
	best := ""
	for k := range sel.All() {
		if k != lwsWorkerIndexLabel && !lwsVaryingLabels[k] && (best == "" || k < best) {
			best = k
		}
	}
	return best, best != ""
}

// of returns the followers of e: the Services selecting its pods, then the
// HPAs scaling it, each by position.
func (x *followerIndex) of(e *lwsEntry) []*orderMember {
	var services []*svcEntry
	tried := map[nsLabel]bool{}
	for _, p := range e.Pods {
		for k, v := range p.Labels {
			l := nsLabel{e.NS, k, v}
			if !tried[l] {
				tried[l] = true
				services = append(services, x.byFixedLabel[l]...)
			}
		}
	}
	services = append(services, x.perPodOnly[e.NS]...)
	sort.Slice(services, func(i, j int) bool { return services[i].Rank < services[j].Rank })
	var out []*orderMember
	for _, s := range services {
		if selectsLWSPods(s.Sel, e.Pods) {
			out = append(out, &s.orderMember)
		}
	}
	for _, h := range x.hpas[nsName{e.NS, e.At.Resource.Name}] {
		out = append(out, &h.orderMember)
	}
	return out
}

func changesFor(engine, how string, sets []lwsSet, members map[*transformers.OrderObject]*orderMember) []analysis.Finding {
	var plan []transformers.OrderSet
	for _, s := range sets {
		plan = append(plan, s.set)
	}
	var changes []*transformers.OrderChange
	switch engine {
	case transformers.EngineArgoCD:
		changes = transformers.PlanArgoCD(plan)
	case transformers.EngineKapp:
		changes = transformers.PlanKapp(plan)
	case transformers.EngineCLIUtils:
		changes = transformers.PlanCLIUtils(plan)
	}
	var out []analysis.Finding
	for _, c := range changes {
		m := members[c.Obj]
		if m == nil {
			continue
		}
		f := m.At.Finding()
		if c.Blocked != "" {
			f.Message = c.Reason + "; " + c.Blocked + how
			out = append(out, f)
			continue
		}
		fix := &analysis.Fix{Message: "add the " + transformers.EngineNames[engine] + " ordering annotations"}
		var adds []string
		for _, kv := range c.Add {
			if _, had := c.Obj.Annotations[kv.Key]; had {
				adds = append(adds, fmt.Sprintf("%s: %q (the references there kept)", kv.Key, kv.Value))
			} else {
				adds = append(adds, fmt.Sprintf("%s: %q", kv.Key, kv.Value))
			}
			fix.Edits = append(fix.Edits, analysis.SetEntry(manifest.Keys("metadata", "annotations", kv.Key), kv.Value))
		}
		verb := "; add "
		if len(c.Add) == 1 {
			if _, had := c.Obj.Annotations[c.Add[0].Key]; had {
				verb = "; set "
			}
		}
		f.Message = c.Reason + verb + strings.Join(adds, ", ") + how
		f.Fix = fix
		out = append(out, f)
	}
	return out
}

func depList(ds []depRef) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.String())
	}
	return strings.Join(s, ", ")
}

func notesFor(engine, problem string, sets []lwsSet) []analysis.Finding {
	var out []analysis.Finding
	if engine == "" {
		// Say so once, at the first LWS that has something to order.
		for _, s := range sets {
			if len(s.set.Deps) > 0 {
				f := s.e.At.Finding()
				f.Field = "metadata.name"
				f.Message = fmt.Sprintf("%s: LeaderWorkerSet %q and its dependencies in the input are not ordered; set lws.engine in the config (argocd, kapp, cli-utils or flux; none silences this)",
					problem, lwsKey(s.e))
				return []analysis.Finding{f}
			}
		}
		return nil
	}
	for _, s := range sets {
		f := s.e.At.Finding()
		f.Field = "spec.leaderWorkerTemplate"
		switch engine {
		case transformers.EngineFlux:
			if len(s.e.Deps) == 0 {
				continue
			}
			f.Message = fmt.Sprintf("Flux has no per-object ordering: to apply LeaderWorkerSet %q after what it uses (%s), move it to a Flux Kustomization of its own with spec.dependsOn naming the Kustomization that applies them, and spec.healthCheckExprs for leaderworkerset.x-k8s.io/v1 LeaderWorkerSet with current: \"status.conditions.filter(c, c.type == 'Available').all(c, c.status == 'True')\"",
				lwsKey(s.e), depList(s.e.Deps))
		default:
			if len(s.missing) == 0 {
				continue
			}
			f.Message = fmt.Sprintf("LeaderWorkerSet %q uses %s, not in the input: %s orders only what it sees, so apply %s before the LWS another way",
				lwsKey(s.e), depList(s.missing), transformers.EngineNames[engine], english.Plural(len(s.missing), "it", "them"))
			if engine == transformers.EngineCLIUtils {
				f.Message += " (cli-utils rejects a depends-on reference outside the apply set, so none is added)"
			}
		}
		out = append(out, f)
	}
	return out
}

func lwsKey(e *lwsEntry) string {
	if e.At.Resource.Namespace == "" {
		return e.At.Resource.Name
	}
	return e.At.Resource.Namespace + "/" + e.At.Resource.Name
}
