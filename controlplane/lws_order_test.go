package controlplane

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shipshape-dev/shipshape/controlplane/harness"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"sigs.k8s.io/cli-utils/pkg/apply"
	"sigs.k8s.io/cli-utils/pkg/apply/event"
	"sigs.k8s.io/cli-utils/pkg/common"
	"sigs.k8s.io/cli-utils/pkg/inventory"
	"sigs.k8s.io/cli-utils/pkg/object"
)

// shipshapeFix copies testdata/lws/ENGINE/input to a temporary directory and
// runs `shipshape fix` there with that engine's config, as a user would.
// CONTROLPLANE_LWS_ANNOTATIONS=strip removes the annotations shipshape wrote
// afterwards, and =malformed garbles their references: the LWS tests must
// then fail (INTEGRATION.md shows such a run).
func shipshapeFix(t *testing.T, engine string) []*unstructured.Unstructured {
	t.Helper()
	src, _ := filepath.Abs(filepath.Join("..", "testdata", "lws", engine))
	dir := t.TempDir()
	for _, f := range []string{"deps.yaml", "lws.yaml"} {
		b, err := os.ReadFile(filepath.Join(src, "input", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, shipshape, "fix", "--config", filepath.Join(src, "config.yaml"), "--fail-on", "none", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("shipshape fix: %v\n%s", err, out)
	} else {
		t.Logf("shipshape fix (%s): %s", engine, strings.TrimSpace(string(out)))
	}
	var objs []*unstructured.Unstructured
	for _, f := range []string{"deps.yaml", "lws.yaml"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		us, err := harness.DecodeAll(b)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, us...)
	}
	mode := os.Getenv("CONTROLPLANE_LWS_ANNOTATIONS")
	for _, o := range objs {
		a := o.GetAnnotations()
		for k, v := range a {
			if !shipshapeAnnotation(k) {
				continue
			}
			switch mode {
			case "strip":
				delete(a, k)
			case "malformed":
				// depends-on: a reference cli-utils cannot parse; kapp: change
				// rules that name a group no object is in.
				a[k] = strings.NewReplacer("/namespaces/", "/namespace/", "upserting shipshape.dev/", "upserting shipshape.dev/typo-", "deleting shipshape.dev/", "deleting shipshape.dev/typo-").Replace(v)
			}
		}
		if mode != "" {
			o.SetAnnotations(a)
		}
	}
	if mode != "" {
		t.Logf("CONTROLPLANE_LWS_ANNOTATIONS=%s: shipshape's ordering annotations changed after the fix", mode)
	}
	return objs
}

// shipshapeAnnotation says whether an annotation is one lws-recreate-order
// writes (cli-utils' depends-on, kapp's change groups and rules).
func shipshapeAnnotation(k string) bool {
	return k == "config.kubernetes.io/depends-on" || strings.HasPrefix(k, "kapp.k14s.io/change-group.shipshape") || strings.HasPrefix(k, "kapp.k14s.io/change-rule.shipshape")
}

// usedBy lists what a LeaderWorkerSet's pod templates use, read from the
// spec itself (not from any annotation): "Kind/name" for each ConfigMap,
// Secret, ServiceAccount and PersistentVolumeClaim.
func usedBy(lws *unstructured.Unstructured) []string {
	set := map[string]bool{}
	var walk func(any, string)
	walk = func(v any, key string) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if s, ok := c.(string); ok {
					switch {
					case k == "serviceAccountName":
						set["ServiceAccount/"+s] = true
					case k == "claimName":
						set["PersistentVolumeClaim/"+s] = true
					case k == "name" && (key == "configMapRef" || key == "configMapKeyRef" || key == "configMap"):
						set["ConfigMap/"+s] = true
					case k == "name" && (key == "secretRef" || key == "secretKeyRef"):
						set["Secret/"+s] = true
					case k == "secretName" && key == "secret":
						set["Secret/"+s] = true
					}
				}
				walk(c, k)
			}
		case []any:
			for _, c := range v {
				walk(c, key)
			}
		}
	}
	walk(lws.Object["spec"], "spec")
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// storageFor makes the claim of the test bind as it would in the cluster the
// manifests are written for: a StorageClass of that name (no provisioner,
// immediate binding) and a PersistentVolume that fits the claim. cli-utils
// waits for a claim to be Bound before it applies what depends on it.
func storageFor(t *testing.T, pvc *unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	class, _, _ := unstructured.NestedString(pvc.Object, "spec", "storageClassName")
	size, _, _ := unstructured.NestedString(pvc.Object, "spec", "resources", "requests", "storage")
	modes, _, _ := unstructured.NestedStringSlice(pvc.Object, "spec", "accessModes")
	immediate := storagev1.VolumeBindingImmediate
	_, err := cluster.Client.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: class},
		Provisioner:       "kubernetes.io/no-provisioner",
		VolumeBindingMode: &immediate,
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	var am []corev1.PersistentVolumeAccessMode
	for _, m := range modes {
		am = append(am, corev1.PersistentVolumeAccessMode(m))
	}
	name := "pv-" + pvc.GetNamespace() + "-" + pvc.GetName()
	_ = cluster.Client.CoreV1().PersistentVolumes().Delete(ctx, name, metav1.DeleteOptions{})
	if err := harness.Poll(ctx, "old PersistentVolume "+name+" gone", 60*time.Second, nil, func() (bool, error) {
		_, err := cluster.Client.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), err
	}); err != nil {
		t.Fatal(err)
	}
	_, err = cluster.Client.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   am,
			StorageClassName:              class,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/" + name}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLWSOrderCliUtils applies shipshape's cli-utils output with
// sigs.k8s.io/cli-utils' applier (the library behind kpt live and Config
// Sync), then prunes it, and reads the order of events off the applier's
// event channel: the LeaderWorkerSet must be applied only after every
// ConfigMap, Secret, ServiceAccount and PersistentVolumeClaim it uses has
// been applied and reconciled, and pruned (and gone) before any of them is
// pruned.
func TestLWSOrderCliUtils(t *testing.T) {
	stopLWS := startLatestLWS(t)
	defer stopLWS()
	objs := shipshapeFix(t, "cli-utils")
	events := applyAndPrune(t, objs, "shipshape-cli-utils")
	if problems := orderProblems(objs, events); len(problems) > 0 {
		t.Errorf("cli-utils did not order the LeaderWorkerSet after what it uses:\n  %s\nevents:\n  %s", strings.Join(problems, "\n  "), strings.Join(events, "\n  "))
	} else {
		t.Logf("cli-utils events in order:\n  %s", strings.Join(events, "\n  "))
	}
}

// TestLWSOrderCliUtilsDetects shows that the order check of
// TestLWSOrderCliUtils can fail: the same input without shipshape's
// depends-on annotation is applied in one group, the LeaderWorkerSet with
// its dependencies, and the check must report it.
func TestLWSOrderCliUtilsDetects(t *testing.T) {
	stopLWS := startLatestLWS(t)
	defer stopLWS()
	objs := shipshapeFix(t, "cli-utils")
	for _, o := range objs {
		a := o.GetAnnotations()
		delete(a, "config.kubernetes.io/depends-on")
		o.SetAnnotations(a)
	}
	events := applyAndPrune(t, objs, "shipshape-cli-utils-stripped")
	if problems := orderProblems(objs, events); !onlyOrderProblems(problems) {
		t.Errorf("without depends-on the order check should find the LWS out of order, and only that; it found %q\nevents:\n  %s", problems, strings.Join(events, "\n  "))
	} else {
		t.Logf("without shipshape's depends-on, as expected:\n  %s", strings.Join(problems, "\n  "))
	}
}

// applyAndPrune applies objs with a ConfigMap inventory in namespace default,
// waits for reconciliation, then applies an empty set with the same
// inventory (pruning everything) and returns the events of both runs, one
// line each: "apply|prune EVENT Kind/name STATUS" in channel order.
func applyAndPrune(t *testing.T, objs []*unstructured.Unstructured, inv string) []string {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == "PersistentVolumeClaim" {
			storageFor(t, o)
		}
	}
	f := factory(cluster.Config)
	invClient, err := inventory.ClusterClientFactory{StatusPolicy: inventory.StatusPolicyNone}.NewClient(f)
	if err != nil {
		t.Fatal(err)
	}
	applier, err := apply.NewApplierBuilder().WithFactory(f).WithInventoryClient(invClient).Build()
	if err != nil {
		t.Fatal(err)
	}
	invObj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": inv, "namespace": "default",
			"labels": map[string]any{common.InventoryLabel: inv}},
	}}
	invInfo := inventory.WrapInventoryInfoObj(invObj)
	var lines []string
	run := func(phase string, set object.UnstructuredSet) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		for e := range applier.Run(ctx, invInfo, set, apply.ApplierOptions{
			ReconcileTimeout: 90 * time.Second,
			PruneTimeout:     90 * time.Second,
			InventoryPolicy:  inventory.PolicyAdoptIfNoInventory,
		}) {
			if l := eventLine(phase, e); l != "" {
				lines = append(lines, l)
			}
			if e.Type == event.ErrorType {
				t.Errorf("%s: %v", phase, e.ErrorEvent.Err)
			}
		}
	}
	var set object.UnstructuredSet
	for _, o := range objs {
		set = append(set, o.DeepCopy())
	}
	run("apply", set)
	run("prune", nil)
	return lines
}

func eventLine(phase string, e event.Event) string {
	id := func(m object.ObjMetadata) string { return m.GroupKind.Kind + "/" + m.Name }
	switch e.Type {
	case event.ApplyType:
		s := fmt.Sprintf("%s apply %s %s", phase, id(e.ApplyEvent.Identifier), e.ApplyEvent.Status)
		if e.ApplyEvent.Error != nil {
			s += ": " + e.ApplyEvent.Error.Error()
		}
		return s
	case event.PruneType:
		s := fmt.Sprintf("%s prune %s %s", phase, id(e.PruneEvent.Identifier), e.PruneEvent.Status)
		if e.PruneEvent.Error != nil {
			s += ": " + e.PruneEvent.Error.Error()
		}
		return s
	case event.WaitType:
		return fmt.Sprintf("%s wait %s %s", phase, id(e.WaitEvent.Identifier), e.WaitEvent.Status)
	case event.ValidationType:
		return fmt.Sprintf("%s validation %v: %v", phase, e.ValidationEvent.Identifiers, e.ValidationEvent.Error)
	case event.ActionGroupType:
		return fmt.Sprintf("%s group %s %s %s", phase, e.ActionGroupEvent.GroupName, e.ActionGroupEvent.Action, e.ActionGroupEvent.Status)
	}
	return ""
}

// orderProblems checks the event lines against what the LeaderWorkerSets
// use. Apply: the LWS's successful apply comes after every dependency's
// successful reconcile wait. Prune: every dependency's successful prune
// comes after the LWS's reconcile wait (its deletion observed).
func orderProblems(objs []*unstructured.Unstructured, lines []string) []string {
	index := func(re string) int { return firstMatch(lines, re) }
	var problems []string
	for _, o := range objs {
		if o.GetKind() != "LeaderWorkerSet" {
			continue
		}
		lws := "LeaderWorkerSet/" + regexp.QuoteMeta(o.GetName())
		applied := index(`^apply apply ` + lws + ` Successful$`)
		gone := index(`^prune wait ` + lws + ` Successful$`)
		if applied < 0 {
			problems = append(problems, "the LeaderWorkerSet was not applied")
		}
		if gone < 0 {
			problems = append(problems, "the LeaderWorkerSet's deletion was not observed")
		}
		deps := usedBy(o)
		if len(deps) == 0 {
			problems = append(problems, "the LeaderWorkerSet uses nothing: the test input is wrong")
		}
		for _, d := range deps {
			d = regexp.QuoteMeta(d)
			ready := index(`^apply wait ` + d + ` Successful$`)
			switch {
			case ready < 0:
				problems = append(problems, d+" was not reconciled during apply")
			case applied >= 0 && applied < ready:
				problems = append(problems, fmt.Sprintf("LeaderWorkerSet applied (event %d) before %s was reconciled (event %d)", applied, d, ready))
			}
			pruned := index(`^prune prune ` + d + ` Successful$`)
			switch {
			case pruned < 0:
				problems = append(problems, d+" was not pruned")
			case gone >= 0 && pruned < gone:
				problems = append(problems, fmt.Sprintf("%s pruned (event %d) before the LeaderWorkerSet was gone (event %d)", d, pruned, gone))
			}
		}
	}
	return problems
}

// onlyOrderProblems says whether problems are all, and at least one, about
// order ("X before Y"): everything was applied and deleted, out of order.
func onlyOrderProblems(problems []string) bool {
	for _, p := range problems {
		if !strings.Contains(p, ") before ") {
			return false
		}
	}
	return len(problems) > 0
}

// factory is a kubectl factory for the cluster, as cli-utils' own e2e tests
// build one from a rest.Config.
func factory(cfg *rest.Config) cmdutil.Factory {
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig = &cluster.Kubeconfig
	flags.WrapConfigFn = func(c *rest.Config) *rest.Config {
		c.QPS, c.Burst = cfg.QPS, cfg.Burst
		return c
	}
	return cmdutil.NewFactory(cmdutil.NewMatchVersionFlags(flags))
}
