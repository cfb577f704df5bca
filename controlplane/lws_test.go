package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shipshape-dev/shipshape/controlplane/harness"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// The LWS manager running now: tests that need one share it, and a test that
// needs another version stops it first (one version after the other).
var currentLWS *harness.LWS

// useLWS makes version's manager the running one.
func useLWS(t *testing.T, version string) {
	t.Helper()
	if currentLWS != nil && currentLWS.Version == version {
		return
	}
	stopLWS(t)
	if lwsDirs[version] == "" {
		t.Fatalf("LWS %s: module directory unknown (CONTROLPLANE_LWS_DIRS)", version)
	}
	start := time.Now()
	l, err := cluster.StartLWS(context.Background(), version, lwsDirs[version], lwsBins[version])
	if err != nil {
		t.Fatalf("LWS manager %s: %v", version, err)
	}
	currentLWS = l
	t.Logf("LWS manager %s (pid %d) serving in %.1fs", version, l.Proc.Pid(), time.Since(start).Seconds())
}

func stopLWS(t testing.TB) {
	if currentLWS == nil {
		return
	}
	if err := currentLWS.Stop(); err != nil {
		t.Errorf("stop LWS manager %s: %v", currentLWS.Version, err)
	}
	currentLWS = nil
}

// startLatestLWS runs the newest LWS manager (the one with the lws#732 fix),
// so that LeaderWorkerSets meet their webhooks as in a cluster with LWS.
func startLatestLWS(t *testing.T) func() {
	t.Helper()
	if len(lwsOrder) == 0 {
		t.Fatal("CONTROLPLANE_LWS_VERSIONS is not set")
	}
	useLWS(t, lwsOrder[len(lwsOrder)-1])
	return func() {}
}

const demoLWS = `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: demo
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers:
        - name: worker
          image: registry.k8s.io/pause:3.10
`

const holdFinalizer = "shipshape.dev/hold-for-lws-732"

type lwsRun struct {
	t  *testing.T
	ns string
}

func (r lwsRun) create() types.UID {
	r.t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(demoLWS), &u.Object); err != nil {
		r.t.Fatal(err)
	}
	got, err := cluster.Dynamic.Resource(harness.LWSGVR).Namespace(r.ns).Create(context.Background(), u, metav1.CreateOptions{})
	if err != nil {
		r.t.Fatalf("create LWS: %v", err)
	}
	return got.GetUID()
}

// leaderSts returns the leader StatefulSet "demo", or nil.
func (r lwsRun) leaderSts() *unstructuredSts {
	r.t.Helper()
	s, err := cluster.Client.AppsV1().StatefulSets(r.ns).Get(context.Background(), "demo", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		r.t.Fatal(err)
	}
	var owners []string
	for _, o := range s.OwnerReferences {
		owners = append(owners, string(o.UID))
	}
	return &unstructuredSts{uid: s.UID, deleting: s.DeletionTimestamp != nil, owners: owners, finalizers: s.Finalizers}
}

type unstructuredSts struct {
	uid        types.UID
	deleting   bool
	owners     []string
	finalizers []string
}

func (r lwsRun) waitFor(what string, timeout time.Duration, cond func() (bool, error)) {
	r.t.Helper()
	if err := harness.Poll(context.Background(), what, timeout, currentLWS.Proc, cond); err != nil {
		r.t.Fatal(err)
	}
}

// hold adds a finalizer to the leader StatefulSet, so that its deletion
// lasts until release: the slow deletion a real cluster has while the
// pods' containers stop.
func (r lwsRun) setHold(on bool) {
	r.t.Helper()
	ctx := context.Background()
	var fins []string
	if on {
		fins = []string{holdFinalizer}
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": fins}})
	if _, err := cluster.Client.AppsV1().StatefulSets(r.ns).Patch(ctx, "demo", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		r.t.Fatalf("finalizer on the leader StatefulSet: %v", err)
	}
}

func (r lwsRun) deleteLWS(policy metav1.DeletionPropagation) {
	r.t.Helper()
	err := cluster.Dynamic.Resource(harness.LWSGVR).Namespace(r.ns).Delete(context.Background(), "demo", metav1.DeleteOptions{PropagationPolicy: &policy})
	if err != nil {
		r.t.Fatalf("delete LWS: %v", err)
	}
}

func (r lwsRun) lwsGone() (bool, error) {
	_, err := cluster.Dynamic.Resource(harness.LWSGVR).Namespace(r.ns).Get(context.Background(), "demo", metav1.GetOptions{})
	return apierrors.IsNotFound(err), err
}

// revisions lists the ControllerRevisions of LWS demo (those a
// LeaderWorkerSet owns): name, hash label and owner uids.
func (r lwsRun) revisions() []string {
	r.t.Helper()
	list, err := cluster.Client.AppsV1().ControllerRevisions(r.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "leaderworkerset.sigs.k8s.io/name=demo"})
	if err != nil {
		r.t.Fatal(err)
	}
	var out []string
	for _, cr := range list.Items {
		// The StatefulSet controller keeps revisions of its own for the
		// StatefulSets, with the pods' labels: only the LWS's count.
		var owners []string
		lws := false
		for _, o := range cr.OwnerReferences {
			owners = append(owners, string(o.UID))
			lws = lws || o.Kind == "LeaderWorkerSet"
		}
		if !lws {
			continue
		}
		out = append(out, fmt.Sprintf("%s hash=%s owners=%v", cr.Name, cr.Labels["leaderworkerset.sigs.k8s.io/template-revision-hash"], owners))
	}
	return out
}

// events lists the messages of the events about the object with uid.
func (r lwsRun) events(uid types.UID) []string {
	r.t.Helper()
	list, err := cluster.Client.CoreV1().Events(r.ns).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.uid=" + string(uid)})
	if err != nil {
		r.t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		out = append(out, e.Reason+": "+e.Message)
	}
	return out
}

// eventsAll lists the messages of every event in the namespace.
func (r lwsRun) eventsAll() []string {
	list, err := cluster.Client.CoreV1().Events(r.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	for _, e := range list.Items {
		out = append(out, e.InvolvedObject.Kind+"/"+e.InvolvedObject.Name+" "+e.Reason+": "+e.Message)
	}
	return out
}

func has(list []string, sub string) bool {
	for _, l := range list {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// sameHashes counts the distinct template hashes among revisions.
func sameHashes(revs []string) int {
	set := map[string]bool{}
	for _, r := range revs {
		for _, f := range strings.Fields(r) {
			if strings.HasPrefix(f, "hash=") {
				set[f] = true
			}
		}
	}
	return len(set)
}

func ownedOnlyBy(revs []string, uid types.UID) bool {
	for _, r := range revs {
		if !strings.Contains(r, "owners=["+string(uid)+"]") {
			return false
		}
	}
	return len(revs) > 0
}

// leftovers names the StatefulSets, pods and LWS revisions of demo still there.
func (r lwsRun) leftovers() string {
	ctx := context.Background()
	sel := metav1.ListOptions{LabelSelector: "leaderworkerset.sigs.k8s.io/name=demo"}
	var left []string
	if s := r.leaderSts(); s != nil {
		left = append(left, "leader StatefulSet")
	}
	if l, err := cluster.Client.AppsV1().StatefulSets(r.ns).List(ctx, sel); err == nil {
		for _, s := range l.Items {
			left = append(left, "StatefulSet "+s.Name)
		}
	}
	if l, err := cluster.Client.CoreV1().Pods(r.ns).List(ctx, sel); err == nil {
		for _, p := range l.Items {
			left = append(left, "Pod "+p.Name)
		}
	}
	if revs := r.revisions(); len(revs) > 0 {
		left = append(left, fmt.Sprint("revisions ", revs))
	}
	return strings.Join(left, ", ")
}

// cleanup deletes the LWS and everything it owns, releasing any hold, and
// waits until all of it is gone.
func (r lwsRun) cleanup() {
	r.t.Helper()
	if s := r.leaderSts(); s != nil && len(s.finalizers) > 0 {
		r.setHold(false)
	}
	if gone, _ := r.lwsGone(); !gone {
		r.deleteLWS(metav1.DeletePropagationForeground)
	}
	r.waitFor("LWS, its StatefulSets, pods and revisions gone", 90*time.Second, func() (bool, error) {
		gone, err := r.lwsGone()
		left := r.leftovers()
		if err == nil && left != "" {
			err = fmt.Errorf("left: %s", left)
		}
		return gone && left == "", err
	})
}

// observeWindow is how long a release with the fix is watched for doing
// nothing while the old leader StatefulSet terminates: longer than v0.8.0's
// 5-second requeue, so that it reconciles the new LWS at least once in it.
// It bounds what is observed, not what passes: whatever the fixed release
// did in it is also checked in the end state, after the hold is released.
const observeWindow = 8 * time.Second

// TestLWS732 reproduces lws#732 on each LWS release, one after the other: the
// old leader StatefulSet is held in Terminating by a finalizer (as a slow
// deletion holds it), the LeaderWorkerSet is deleted and created again at
// once. Then the safe sequence: foreground delete, wait until gone, create.
func TestLWS732(t *testing.T) {
	for _, version := range lwsOrder {
		t.Run(version, func(t *testing.T) {
			useLWS(t, version)
			ns := "lws732-" + strings.ReplaceAll(version, ".", "-")
			if err := cluster.EnsureNamespace(context.Background(), ns); err != nil {
				t.Fatal(err)
			}
			r := lwsRun{t: t, ns: ns}
			defer r.cleanup()
			fixed := version != "v0.7.0"

			// Unsafe: delete, then create while the old StatefulSet terminates.
			// (v0.7.0 sometimes makes two revisions of one template even on a
			// first create, from its informer cache lagging behind its own
			// create: the waits take one or more.)
			oldUID := r.create()
			r.waitFor("leader StatefulSet and first revision", 60*time.Second, func() (bool, error) {
				revs := r.revisions()
				return r.leaderSts() != nil && len(revs) >= 1, fmt.Errorf("leader StatefulSet %v, revisions %v, events %q", r.leaderSts() != nil, revs, r.eventsAll())
			})
			oldRevs := r.revisions()
			r.setHold(true)
			r.deleteLWS(metav1.DeletePropagationBackground)
			r.waitFor("old LWS gone and its leader StatefulSet Terminating", 60*time.Second, func() (bool, error) {
				gone, _ := r.lwsGone()
				s := r.leaderSts()
				return gone && s != nil && s.deleting, nil
			})
			newUID := r.create()
			t.Logf("old LWS %s (revisions %v) deleted; leader StatefulSet held in Terminating; new LWS %s created", oldUID, oldRevs, newUID)
			if !fixed {
				r.waitFor("v0.7.0 reconciles the new LWS against the terminating StatefulSet", 60*time.Second, func() (bool, error) {
					return has(r.events(newUID), "Creating missing revision"), nil
				})
				// The event comes first; the StatefulSet's new owner
				// follows in the same reconcile, which a loaded machine
				// can see half done: wait for it rather than read it at
				// once (the check below says what was expected).
				_ = harness.Poll(context.Background(), "v0.7.0 adopts the terminating leader StatefulSet", 30*time.Second, currentLWS.Proc, func() (bool, error) {
					s := r.leaderSts()
					return s != nil && len(s.owners) == 1 && s.owners[0] == string(newUID) && ownedOnlyBy(r.revisions(), newUID), nil
				})
			} else {
				time.Sleep(observeWindow)
				if ev := r.events(newUID); has(ev, "revision") {
					t.Errorf("%s acted on the new LWS while the old leader StatefulSet was terminating: %v", version, ev)
				}
			}
			during := r.revisions()
			duringSts := r.leaderSts()
			r.setHold(false)
			r.waitFor("the old leader StatefulSet replaced by the new LWS's", 90*time.Second, func() (bool, error) {
				s := r.leaderSts()
				return s != nil && !s.deleting && s.uid != duringSts.uid && len(s.owners) == 1 && s.owners[0] == string(newUID), nil
			})
			r.waitFor("revisions settle", 30*time.Second, func() (bool, error) { return len(r.revisions()) > 0, nil })
			ev, revs := r.events(newUID), r.revisions()
			t.Logf("%s, unsafe recreate: while held: revisions %v, leader StatefulSet owners %v; after release: events on the new LWS %q; revisions %v", version, during, duringSts.owners, ev, revs)
			if fixed {
				if !has(ev, "for a newly created LeaderWorkerSet") || has(ev, "Creating missing revision") || len(during) != 0 || !ownedOnlyBy(revs, newUID) {
					t.Errorf("%s: the new LWS should get one fresh revision once the old StatefulSet is gone; events %q, revisions %v", version, ev, revs)
				}
			} else {
				// lws#732: the new LWS took the terminating StatefulSet's
				// revision hash ("missing revision ... for existing
				// LeaderWorkerSet") while it was still held.
				if !has(ev, "Creating missing revision") || len(during) == 0 {
					t.Errorf("lws#732 not reproduced on %s: events %q, revisions while held %v", version, ev, during)
				}
				// It adopted the terminating StatefulSet and the old
				// revision, and ends with two revisions of one template.
				if len(duringSts.owners) != 1 || duringSts.owners[0] != string(newUID) || !ownedOnlyBy(during, newUID) {
					t.Errorf("%s: expected the new LWS to adopt the terminating leader StatefulSet and its revision; StatefulSet owners %v, revisions %v", version, duringSts.owners, during)
				}
				// A second revision of the same template after the release
				// was seen in some runs, not all (it depends on the informer
				// cache): reported, not required.
				if len(revs) >= 2 && sameHashes(revs) == 1 {
					t.Logf("%s: %d revisions of one template after the release", version, len(revs))
				}
			}
			r.cleanup()

			// Safe: foreground delete, wait until gone, then create.
			r.create()
			r.waitFor("leader StatefulSet and first revision", 60*time.Second, func() (bool, error) {
				revs := r.revisions()
				return r.leaderSts() != nil && len(revs) >= 1, fmt.Errorf("leader StatefulSet %v, revisions %v, events %q", r.leaderSts() != nil, revs, r.eventsAll())
			})
			r.setHold(true)
			r.deleteLWS(metav1.DeletePropagationForeground)
			r.waitFor("foreground deletion under way (LWS waits for its StatefulSet)", 60*time.Second, func() (bool, error) {
				u, err := cluster.Dynamic.Resource(harness.LWSGVR).Namespace(ns).Get(context.Background(), "demo", metav1.GetOptions{})
				return err == nil && u.GetDeletionTimestamp() != nil, err
			})
			if gone, _ := r.lwsGone(); gone {
				t.Fatal("foreground deletion: the LWS was gone while its leader StatefulSet was held")
			}
			r.setHold(false)
			r.waitFor("LWS gone after its StatefulSet", 90*time.Second, func() (bool, error) {
				gone, err := r.lwsGone()
				return gone && r.leaderSts() == nil, err
			})
			safeUID := r.create()
			r.waitFor("new leader StatefulSet and revision", 60*time.Second, func() (bool, error) {
				s := r.leaderSts()
				return s != nil && len(s.owners) == 1 && s.owners[0] == string(safeUID) && len(r.revisions()) >= 1, nil
			})
			ev, revs = r.events(safeUID), r.revisions()
			t.Logf("%s, safe sequence: events on the new LWS %q; revisions %v", version, ev, revs)
			if has(ev, "Creating missing revision") || !ownedOnlyBy(revs, safeUID) {
				t.Errorf("%s: the safe sequence was not clean: events %q, revisions %v", version, ev, revs)
			}
		})
	}
	stopLWS(t)
}
