package controlplane

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shipshape-dev/shipshape/controlplane/harness"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// recreateEngine is how a case's head is applied: the engine setting of
// its applier.yaml, or the annotation its object carries.
type recreateEngine string

const (
	// argoReplace: Argo CD Replace=true,Force=true runs kubectl's
	// replace --force (gitops-engine calls kubectl's own code).
	argoReplace recreateEngine = "kubectl replace --force (Argo CD Replace=true,Force=true)"
	// argoForce: Argo CD Force=true alone applies with kubectl apply --force.
	argoForce recreateEngine = "kubectl apply --force (Argo CD Force=true)"
	// fluxForce: Flux force: server-side apply; on an error fluxcd/pkg/ssa
	// calls immutable, delete in the background and apply again.
	fluxForce recreateEngine = "server-side apply, on an immutable error delete (background) and apply again (Flux force)"
	// kappReplace: kapp with always-replace.
	kappReplace recreateEngine = "kapp deploy, always-replace"
	// plainApply: server-side apply, nothing more.
	plainApply recreateEngine = "server-side apply"
)

func engineOf(c changeCase, obj *unstructured.Unstructured) recreateEngine {
	ann := obj.GetAnnotations()
	opts := ann["argocd.argoproj.io/sync-options"]
	switch {
	case strings.Contains(opts, "Replace=true") && strings.Contains(opts, "Force=true"):
		return argoReplace
	case strings.EqualFold(ann["kustomize.toolkit.fluxcd.io/force"], "enabled"):
		return fluxForce
	case ann["kapp.k14s.io/update-strategy"] == "always-replace":
		return kappReplace
	case strings.Contains(opts, "Force=true"):
		return argoForce
	case !c.applier.Recreate:
		return plainApply
	}
	switch c.applier.Engine {
	case "argocd":
		return argoReplace
	case "flux":
		return fluxForce
	case "kapp":
		return kappReplace
	}
	return argoForce
}

// fluxImmutable is what fluxcd/pkg/ssa's IsImmutableError accepts besides
// 422 Invalid and 409 Conflict.
var fluxImmutable = regexp.MustCompile(`is\simmutable|immutable\sfield`)

// TestChangeRecreates applies each update case of change-recreates as its
// engine setting does: recreated (a new uid) exactly when the rule claims
// it. A LeaderWorkerSet's leader StatefulSet is held in Terminating by a
// finalizer (as the slow deletion of its pods holds it in a cluster): when
// the LWS is recreated, the new LWS must meet it there. Kind changes and
// renames are skipped: their claim is the engine's order of create and
// prune, which the server does not decide.
func TestChangeRecreates(t *testing.T) {
	for _, c := range changeCases(t, "change-recreates") {
		t.Run(c.name, func(t *testing.T) {
			ns := caseNamespace("recr-", c.name)
			baseFile, baseObjs := inNamespace(t, filepath.Join(c.dir, "base.yaml"), ns)
			headFile, headObjs := inNamespace(t, filepath.Join(c.dir, "head.yaml"), ns)
			if len(baseObjs) != 1 || len(headObjs) != 1 || baseObjs[0].GetKind() != headObjs[0].GetKind() || baseObjs[0].GetName() != headObjs[0].GetName() {
				t.Skip("a kind change or a rename: the claim is the engine's order of create and prune")
			}
			obj := headObjs[0]
			kind, name := obj.GetKind(), obj.GetName()
			if kind == "LeaderWorkerSet" {
				startLatestLWS(t)
			}
			if err := cluster.EnsureNamespace(context.Background(), ns); err != nil {
				t.Fatal(err)
			}
			engine := engineOf(c, obj)
			held := false
			defer func() {
				if held {
					holdLeader(t, ns, name, false)
				}
				_, _ = kubectl(t, "delete", "namespace", ns, "--wait=false")
			}()
			applyBase(t, engine, ns, baseFile, baseObjs[0])
			if kind == "LeaderWorkerSet" {
				waitLeaderStatefulSet(t, ns)
				holdLeader(t, ns, name, true)
				held = true
			}
			oldUID := live(t, ns, kind, name).GetUID()
			var oldLeader types.UID
			if kind == "LeaderWorkerSet" {
				oldLeader = live(t, ns, "StatefulSet", name).GetUID()
			}
			out := applyHead(t, engine, ns, headFile, obj, oldUID)
			now := live(t, ns, kind, name)
			recreated := now != nil && now.GetUID() != oldUID
			t.Logf("%s: recreated %v (%s)", engine, recreated, firstLine(out))
			if recreated != c.claimed {
				t.Fatalf("the rule claims recreated=%v; %s gave recreated=%v:\n%s", c.claimed, engine, recreated, out)
			}
			if kind == "LeaderWorkerSet" && recreated {
				checkOldLeaderMet(t, ns, name, oldUID, now.GetUID(), oldLeader)
			}
		})
	}
}

func applyBase(t *testing.T, engine recreateEngine, ns, file string, obj *unstructured.Unstructured) {
	t.Helper()
	var out []byte
	var err error
	switch engine {
	case argoReplace, argoForce:
		out, err = kubectl(t, "apply", "-n", ns, "-f", file)
	case kappReplace:
		out = []byte(kapp(t, "deploy", "-a", ns, "-n", ns, "-f", file, "--wait=false"))
	default:
		err = cluster.ServerSideApply(context.Background(), gvrs[obj.GetKind()], obj)
	}
	if err != nil {
		t.Fatalf("base: %v\n%s", err, out)
	}
}

// applyHead applies head as engine does and returns what it said.
func applyHead(t *testing.T, engine recreateEngine, ns, file string, obj *unstructured.Unstructured, oldUID types.UID) string {
	t.Helper()
	switch engine {
	case argoReplace:
		out, err := kubectl(t, "replace", "--force", "-n", ns, "-f", file)
		return describe(out, err)
	case argoForce:
		out, err := kubectl(t, "apply", "--force", "-n", ns, "-f", file)
		return describe(out, err)
	case kappReplace:
		args := []string{"deploy", "-a", ns, "-n", ns, "-f", file, "--wait=false"}
		if obj.GetAnnotations()["kapp.k14s.io/update-strategy"] == "" {
			args = append(args, "--apply-default-update-strategy=always-replace")
		}
		return kapp(t, args...)
	case plainApply:
		return describe(nil, cluster.ServerSideApply(context.Background(), gvrs[obj.GetKind()], obj))
	}
	// Flux force.
	err := cluster.ServerSideApply(context.Background(), gvrs[obj.GetKind()], obj)
	if err == nil || !(apierrors.IsInvalid(err) || apierrors.IsConflict(err) || fluxImmutable.MatchString(err.Error())) {
		return describe(nil, err)
	}
	bg := metav1.DeletePropagationBackground
	r := cluster.Dynamic.Resource(gvrs[obj.GetKind()]).Namespace(ns)
	if derr := r.Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{PropagationPolicy: &bg}); derr != nil {
		t.Fatalf("delete: %v", derr)
	}
	// Applied again at once; a claim still terminating (pvc-protection)
	// takes the next reconciliations.
	perr := harness.Poll(context.Background(), "applied again after the delete", 60*time.Second, nil, func() (bool, error) {
		if err := cluster.ServerSideApply(context.Background(), gvrs[obj.GetKind()], obj); err != nil {
			return false, err
		}
		u := live(t, ns, obj.GetKind(), obj.GetName())
		return u != nil && u.GetUID() != oldUID && u.GetDeletionTimestamp() == nil, nil
	})
	if perr != nil {
		t.Fatal(perr)
	}
	return "refused (" + firstLine(err.Error()) + "), deleted and applied again"
}

func describe(out []byte, err error) string {
	s := strings.TrimSpace(string(out))
	if err != nil {
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			s += " " + string(status.Status().Reason)
		}
		s += " " + err.Error()
	}
	return strings.TrimSpace(s)
}

// holdLeader puts a finalizer on (or takes it off) the leader StatefulSet
// of LWS name, so that its deletion lasts until released.
func holdLeader(t *testing.T, ns, name string, on bool) {
	t.Helper()
	var fins []string
	if on {
		fins = []string{holdFinalizer}
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": fins}})
	_, err := cluster.Client.AppsV1().StatefulSets(ns).Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !(apierrors.IsNotFound(err) && !on) {
		t.Fatalf("finalizer on the leader StatefulSet: %v", err)
	}
}

// checkOldLeaderMet: the new LWS exists while the old LWS's leader
// StatefulSet (the same object, its uid) is still there: the window of
// kubernetes-sigs/lws#732 that the rule names. The engines delete in the
// background and create at once, so the garbage collector may not even
// have marked it for deletion yet; then the new LWS can take it over.
func checkOldLeaderMet(t *testing.T, ns, name string, oldLWS, newLWS, oldLeader types.UID) {
	t.Helper()
	s, err := cluster.Client.AppsV1().StatefulSets(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("no leader StatefulSet when the new LWS exists: %v", err)
	}
	if s.UID != oldLeader {
		t.Fatalf("the leader StatefulSet is a new one (%s, the old one was %s) when the new LWS %s exists: the old one was gone", s.UID, oldLeader, newLWS)
	}
	owner := "none"
	for _, o := range s.OwnerReferences {
		switch o.UID {
		case oldLWS:
			owner = "the old LWS (deleted)"
		case newLWS:
			owner = "the new LWS (taken over)"
		}
	}
	ev, _ := cluster.Client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.uid=" + string(newLWS)})
	var msgs []string
	for _, e := range ev.Items {
		msgs = append(msgs, e.Reason+": "+e.Message)
	}
	t.Logf("new LWS %s meets the old leader StatefulSet %s: terminating %v, owned by %s (LWS manager %s); events on the new LWS so far: %q",
		newLWS, s.UID, s.DeletionTimestamp != nil, owner, currentLWS.Version, msgs)
}
