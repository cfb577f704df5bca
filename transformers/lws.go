package transformers

// The lws-ordering transformer, as a pure function over small summaries.
//
// A LeaderWorkerSet (LWS) that a GitOps tool deletes and creates again must
// come after what its pods use (ConfigMaps, Secrets, its ServiceAccount,
// PVCs) and go before them. Each tool has its own way to say so; this file
// computes, for each object, which annotations to add. It knows nothing of
// YAML nodes: the rules package summarises the objects, calls the planner,
// and turns each OrderChange into SetEntry edits on metadata.annotations.
//
// Existing annotations are never overwritten; when one is in the way the
// change says what to do by hand (Blocked) instead. Running the planner on
// its own output asks for nothing, so fixing twice changes nothing.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Annotation keys the LWS rules read and write.
const (
	ArgoSyncWave       = "argocd.argoproj.io/sync-wave"
	ArgoSyncOptions    = "argocd.argoproj.io/sync-options"
	HelmHookWeight     = "helm.sh/hook-weight" // Argo CD's fallback wave
	KappChangeGroup    = "kapp.k14s.io/change-group"
	KappChangeRule     = "kapp.k14s.io/change-rule"
	KappUpdateStrategy = "kapp.k14s.io/update-strategy"
	DependsOn          = "config.kubernetes.io/depends-on"
	FluxForce          = "kustomize.toolkit.fluxcd.io/force"
)

// Engines of lws.engine.
const (
	EngineAuto     = "auto"
	EngineArgoCD   = "argocd"
	EngineKapp     = "kapp"
	EngineCLIUtils = "cli-utils"
	EngineFlux     = "flux"
	EngineNone     = "none"
)

// EngineNames are the tools' names for messages.
var EngineNames = map[string]string{
	EngineArgoCD:   "Argo CD",
	EngineKapp:     "kapp",
	EngineCLIUtils: "cli-utils (kpt live, Config Sync)",
	EngineFlux:     "Flux",
}

// EngineOf returns the engine an annotation key belongs to, or "". Only
// keys a user or tool writes for that engine count: kpt and kustomize put
// config.kubernetes.io/index and friends on every item of a function, so
// for cli-utils only depends-on and apply-time-mutation are evidence.
func EngineOf(key string) string {
	switch {
	case strings.HasPrefix(key, "argocd.argoproj.io/"):
		return EngineArgoCD
	case strings.HasPrefix(key, "kapp.k14s.io/"):
		return EngineKapp
	case key == DependsOn || key == "config.kubernetes.io/apply-time-mutation":
		return EngineCLIUtils
	case strings.HasPrefix(key, "kustomize.toolkit.fluxcd.io/"):
		return EngineFlux
	}
	return ""
}

// OrderRef identifies an object. Namespace is as written ("" when unset).
type OrderRef struct {
	Group, Kind, Namespace, Name string
}

func (r OrderRef) String() string { return fmt.Sprintf("%s %q", r.Kind, r.Name) }

// dependsOnRef is r's cli-utils reference in namespace ns:
// group/namespaces/ns/Kind/name, the group empty for core kinds.
func (r OrderRef) dependsOnRef(ns string) string {
	return r.Group + "/namespaces/" + ns + "/" + r.Kind + "/" + r.Name
}

// OrderObject is what the planner knows of one object.
type OrderObject struct {
	Ref         OrderRef
	Annotations map[string]string
}

// OrderSet is one LWS with the objects ordered around it: its dependencies
// present in the input, and (Argo CD) the Services selecting its pods and
// the HPAs scaling it.
type OrderSet struct {
	LWS       *OrderObject
	Deps      []*OrderObject
	Followers []*OrderObject
}

// KV is one annotation.
type KV struct{ Key, Value string }

// OrderChange is what one object needs. Add holds the annotations to set, in
// order; a key that exists is only ever in Add with a value that keeps its
// old one (depends-on merging). Blocked, when set, says why nothing is added
// automatically and what to do by hand.
type OrderChange struct {
	Obj     *OrderObject
	Reason  string // why the object needs ordering, for the message
	Add     []KV
	Blocked string
}

func (c *OrderChange) want(key, value string) {
	have, ok := c.Obj.Annotations[key]
	for _, kv := range c.Add {
		if kv.Key == key {
			have, ok = kv.Value, true // asked for already (two LWSs of one name, as overlays have)
		}
	}
	if ok {
		if have != value && c.Blocked == "" {
			c.Blocked = fmt.Sprintf("%s is %q, not %q; shipshape does not overwrite it: change it by hand", key, have, value)
		}
		return
	}
	c.Add = append(c.Add, KV{key, value})
}

// changes collects OrderChanges per object, in first-seen order.
type changes struct {
	order []*OrderObject
	by    map[*OrderObject]*OrderChange
}

func (cs *changes) get(o *OrderObject, reason string) *OrderChange {
	if cs.by == nil {
		cs.by = map[*OrderObject]*OrderChange{}
	}
	c := cs.by[o]
	if c == nil {
		c = &OrderChange{Obj: o, Reason: reason}
		cs.by[o] = c
		cs.order = append(cs.order, o)
	}
	return c
}

func (cs *changes) list() []*OrderChange {
	var out []*OrderChange
	for _, o := range cs.order {
		if c := cs.by[o]; len(c.Add) > 0 || c.Blocked != "" {
			out = append(out, c)
		}
	}
	return out
}

// refList names objects for messages, each once (the input may hold two
// copies of an object, as overlays do).
func refList(objs []*OrderObject) string {
	var s []string
	seen := map[string]bool{}
	for _, o := range objs {
		if r := o.Ref.String(); !seen[r] {
			seen[r] = true
			s = append(s, r)
		}
	}
	return strings.Join(s, ", ")
}

func lwsName(o *OrderObject) string {
	if o.Ref.Namespace == "" {
		return fmt.Sprintf("LeaderWorkerSet %q", o.Ref.Name)
	}
	return fmt.Sprintf("LeaderWorkerSet %q", o.Ref.Namespace+"/"+o.Ref.Name)
}

// ArgoWave is the wave Argo CD gives an object: its sync-wave when that is
// an integer, else its helm.sh/hook-weight, else 0 (gitops-engine's
// syncwaves.Wave). set reports whether sync-wave is written at all.
func ArgoWave(ann map[string]string) (wave int, set bool) {
	v, set := ann[ArgoSyncWave]
	if n, err := strconv.Atoi(v); set && err == nil {
		return n, true
	}
	if n, err := strconv.Atoi(ann[HelmHookWeight]); err == nil {
		return n, set
	}
	return 0, set
}

// PlanArgoCD gives each LWS a sync-wave one more than the highest wave of
// its dependencies, unless its wave is already higher, and the Services
// and HPAs that follow an LWS at least the LWS's wave. Argo CD applies
// waves in increasing order and prunes in decreasing order, so the LWS is
// created after what it uses and deleted before it.
func PlanArgoCD(sets []OrderSet) []*OrderChange {
	var cs changes
	effective := map[*OrderObject]int{}
	for _, s := range sets {
		have, explicit := ArgoWave(s.LWS.Annotations)
		effective[s.LWS] = have
		if len(s.Deps) == 0 {
			continue
		}
		need, top := maxWave(s.Deps)
		if have >= need {
			continue
		}
		uses := fmt.Sprintf("%s (wave %d)", refList(s.Deps), need-1)
		if refList(s.Deps) != top.Ref.String() {
			uses = fmt.Sprintf("%s (the latest, %s, in wave %d)", refList(s.Deps), top.Ref, need-1)
		}
		c := cs.get(s.LWS, fmt.Sprintf("%s uses %s but syncs in wave %d: Argo CD may create the LWS before its dependencies and prune them before it",
			lwsName(s.LWS), uses, have))
		if explicit {
			c.Blocked = fmt.Sprintf("raise %s from %q to %q by hand (shipshape does not overwrite it)", ArgoSyncWave, s.LWS.Annotations[ArgoSyncWave], strconv.Itoa(need))
			continue
		}
		c.want(ArgoSyncWave, strconv.Itoa(need))
		effective[s.LWS] = need
	}
	// Followers: the highest wave of the LWSs they follow.
	need := map[*OrderObject]int{}
	lead := map[*OrderObject]*OrderObject{}
	var order []*OrderObject
	for _, s := range sets {
		for _, f := range s.Followers {
			w := effective[s.LWS]
			if _, seen := need[f]; !seen {
				order = append(order, f)
			} else if w <= need[f] {
				continue
			}
			need[f], lead[f] = w, s.LWS
		}
	}
	for _, f := range order {
		have, explicit := ArgoWave(f.Annotations)
		if have >= need[f] {
			continue
		}
		what := "selects the pods of"
		if f.Ref.Kind == "HorizontalPodAutoscaler" {
			what = "scales"
		}
		c := cs.get(f, fmt.Sprintf("%s %s %s (wave %d) but syncs in wave %d, before it", f.Ref, what, lwsName(lead[f]), need[f], have))
		if explicit {
			c.Blocked = fmt.Sprintf("raise %s from %q to %q by hand (shipshape does not overwrite it)", ArgoSyncWave, f.Annotations[ArgoSyncWave], strconv.Itoa(need[f]))
			continue
		}
		c.want(ArgoSyncWave, strconv.Itoa(need[f]))
	}
	return cs.list()
}

// maxWave returns one more than the highest wave of deps, and the
// dependency that has it (the first one on a tie).
func maxWave(deps []*OrderObject) (int, *OrderObject) {
	top := deps[0]
	high, _ := ArgoWave(top.Annotations)
	for _, d := range deps[1:] {
		if w, _ := ArgoWave(d.Annotations); w > high {
			high, top = w, d
		}
	}
	return high + 1, top
}

// kappRule is a parsed kapp.k14s.io/change-rule value:
// (upsert|delete) (after|before) (upserting|deleting) GROUP.
type kappRule struct{ action, order, target, group string }

func kappRules(ann map[string]string) []kappRule {
	var out []kappRule
	for k, v := range ann {
		if k != KappChangeRule && !strings.HasPrefix(k, KappChangeRule+".") {
			continue
		}
		f := strings.Split(v, " ")
		if len(f) == 4 {
			out = append(out, kappRule{f[0], f[1], f[2], f[3]})
		}
	}
	return out
}

func kappGroups(ann map[string]string) map[string]bool {
	out := map[string]bool{}
	for k, v := range ann {
		if k == KappChangeGroup || strings.HasPrefix(k, KappChangeGroup+".") {
			out[v] = true
		}
	}
	return out
}

// kappOrdered reports whether the annotations already make kapp upsert dep
// before lws and delete it after lws, with any groups and rules.
func kappOrdered(lws, dep *OrderObject) bool {
	lg, dg := kappGroups(lws.Annotations), kappGroups(dep.Annotations)
	lr, dr := kappRules(lws.Annotations), kappRules(dep.Annotations)
	has := func(rules []kappRule, action, order, target string, groups map[string]bool) bool {
		for _, r := range rules {
			if r.action == action && r.order == order && r.target == target && groups[r.group] {
				return true
			}
		}
		return false
	}
	upsert := has(lr, "upsert", "after", "upserting", dg) || has(dr, "upsert", "before", "upserting", lg)
	del := has(dr, "delete", "after", "deleting", lg) || has(lr, "delete", "before", "deleting", dg)
	return upsert && del
}

// KappGroups returns the change groups shipshape uses for the LWS ns/name
// and for its dependencies: shipshape.dev/lws.<ns>.<name> and
// shipshape.dev/deps.<ns>.<name>. kapp wants qualified names (at most 63
// characters after the slash); longer ones keep a prefix and a hash.
func KappGroups(ns, name string) (lws, deps string) {
	return "shipshape.dev/" + qualified("lws."+ns+"."+name, ns+"/"+name),
		"shipshape.dev/" + qualified("deps."+ns+"."+name, ns+"/"+name)
}

// kappSuffix is the suffix of the change-group and change-rule keys a
// dependency gets for the LWS name: one pair per LWS, so that a ConfigMap
// two LWSs use is in both groups, and the object's own kapp annotations
// (unsuffixed, or with other suffixes) stay as they are. The key's name
// part, change-group.<suffix>, must fit in 63 characters.
func kappSuffix(name string) string {
	return shorten("shipshape-"+name, name, 63-len("change-group."))
}

// qualified returns s when it fits the name part of a qualified name (63
// characters), else a prefix of s and a hash of id.
func qualified(s, id string) string { return shorten(s, id, 63) }

func shorten(s, id string, max int) string {
	if len(s) <= max {
		return s
	}
	sum := sha256.Sum256([]byte(id))
	h := hex.EncodeToString(sum[:4])
	return strings.TrimRight(s[:max-len(h)-1], "-.") + "-" + h
}

// PlanKapp puts each LWS in a change group and makes it upsert after the
// group of its dependencies; each dependency joins that group and deletes
// after the LWS's group. Keys are suffixed (change-group.shipshape-lws,
// change-rule.shipshape-<lws>) so that existing kapp annotations survive.
// An LWS whose annotations already order every dependency, with any
// groups, is left alone.
func PlanKapp(sets []OrderSet) []*OrderChange {
	var cs changes
	users := map[*OrderObject][]*OrderObject{}
	for _, s := range sets {
		var pending []*OrderObject
		for _, d := range s.Deps {
			if !kappOrdered(s.LWS, d) {
				pending = append(pending, d)
			}
		}
		if len(pending) == 0 {
			continue
		}
		ns := s.LWS.Ref.Namespace
		if ns == "" {
			ns = "default"
		}
		lg, dg := KappGroups(ns, s.LWS.Ref.Name)
		c := cs.get(s.LWS, fmt.Sprintf("%s uses %s, which kapp does not order before it", lwsName(s.LWS), refList(pending)))
		c.want(KappChangeGroup+".shipshape-lws", lg)
		c.want(KappChangeRule+".shipshape-lws", "upsert after upserting "+dg)
		if c.Blocked != "" {
			continue // the dependencies' rules would name a group the LWS is not in
		}
		sfx := kappSuffix(s.LWS.Ref.Name)
		for _, d := range pending {
			c := cs.get(d, "")
			users[d] = append(users[d], s.LWS)
			c.want(KappChangeGroup+"."+sfx, dg)
			c.want(KappChangeRule+"."+sfx, "delete after deleting "+lg)
		}
	}
	for d, lwss := range users {
		var names []string
		seen := map[string]bool{}
		for _, l := range lwss {
			if n := lwsName(l); !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		cs.by[d].Reason = fmt.Sprintf("%s is used by %s, which kapp does not order after it", d.Ref, strings.Join(names, " and "))
	}
	return cs.list()
}

// splitRefs splits a depends-on value into its trimmed references.
func splitRefs(v string) []string {
	var out []string
	for _, r := range strings.Split(v, ",") {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// PlanCLIUtils lists each LWS's dependencies in config.kubernetes.io/depends-on
// (group/namespaces/ns/Kind/name), appended to the references already there.
// cli-utils rejects a reference to an object outside the apply set, so only
// dependencies in the input are listed; it needs the namespace, so an LWS
// without metadata.namespace is left alone (Blocked).
func PlanCLIUtils(sets []OrderSet) []*OrderChange {
	var cs changes
	for _, s := range sets {
		if len(s.Deps) == 0 {
			continue
		}
		ns := s.LWS.Ref.Namespace
		old, had := s.LWS.Annotations[DependsOn]
		have := map[string]bool{}
		for _, r := range splitRefs(old) {
			have[r] = true
		}
		var missing []string
		var missingObjs []*OrderObject
		for _, d := range s.Deps {
			if r := d.Ref.dependsOnRef(ns); !have[r] {
				have[r] = true
				missing = append(missing, r)
				missingObjs = append(missingObjs, d)
			}
		}
		if len(missing) == 0 && ns != "" {
			continue
		}
		them := refList(missingObjs)
		if them == refList(s.Deps) {
			them = "them"
			if len(missing) == 1 {
				them = "it"
			}
		}
		c := cs.get(s.LWS, fmt.Sprintf("%s uses %s but does not list %s in %s", lwsName(s.LWS), refList(s.Deps), them, DependsOn))
		if ns == "" {
			c.Reason = fmt.Sprintf("%s uses %s but has no metadata.namespace", lwsName(s.LWS), refList(s.Deps))
			c.Blocked = "depends-on references need the namespace the objects are applied to: set metadata.namespace (kpt's set-namespace function also rewrites depends-on)"
			continue
		}
		value := strings.Join(missing, ",")
		if had && strings.TrimSpace(old) != "" {
			// Keep the references as they were written; append ours.
			value = strings.TrimRight(old, ", \t") + "," + value
		}
		c.Add = append(c.Add, KV{DependsOn, value})
	}
	return cs.list()
}

// SortChanges orders changes by a caller's key (file position), so that
// the result does not depend on the order objects were seen in.
func SortChanges(cs []*OrderChange, less func(a, b *OrderObject) bool) {
	sort.SliceStable(cs, func(i, j int) bool { return less(cs[i].Obj, cs[j].Obj) })
}
