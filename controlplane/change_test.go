package controlplane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shipshape-dev/shipshape/controlplane/harness"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// The change rules of issue 33 (../rules/testdata/<rule>/<case>/:
// base.yaml, head.yaml, applier.yaml) on the real control plane. The
// rules' verdicts are the `# want <rule>` comments of head.yaml, which
// TestRules (package rules) holds the rules to; here each case is applied
// as its engine applies it, and what the server then holds must agree:
//   - change-old-controller-kept: base, then head without pruning (kubectl
//     apply) or with it (kubectl apply --prune --all); claimed exactly when
//     a workload the change removed still runs its pods and a workload the
//     change added selects them;
//   - change-recreates (change_recreate_test.go): head applied as the
//     engine setting does; claimed exactly when the object was deleted and
//     created again (a new uid), and for a LeaderWorkerSet the old leader
//     StatefulSet is still there, terminating, when the new LWS exists.
const changeRuleCases = "../rules/testdata"

type changeCase struct {
	name, dir string
	applier   struct {
		Engine   string `json:"engine"`
		Prune    bool   `json:"prune"`
		Recreate bool   `json:"recreate"`
	}
	claimed bool // head.yaml has a # want of the rule
}

// changeCases reads the cases of rule.
func changeCases(t *testing.T, rule string) []changeCase {
	t.Helper()
	heads, err := filepath.Glob(filepath.Join(changeRuleCases, rule, "*", "head.yaml"))
	if err != nil || len(heads) == 0 {
		t.Fatalf("no cases of %s in %s", rule, changeRuleCases)
	}
	want := regexp.MustCompile(`#\s*want\s+` + regexp.QuoteMeta(rule) + `\b`)
	var out []changeCase
	for _, h := range heads {
		c := changeCase{dir: filepath.Dir(h), name: filepath.Base(filepath.Dir(h))}
		data, err := os.ReadFile(h)
		if err != nil {
			t.Fatal(err)
		}
		c.claimed = want.Match(data)
		if ap, err := os.ReadFile(filepath.Join(c.dir, "applier.yaml")); err == nil {
			if err := yaml.UnmarshalStrict(ap, &c.applier); err != nil {
				t.Fatalf("%s: %v", c.dir, err)
			}
		}
		out = append(out, c)
	}
	return out
}

// caseNamespace is a namespace name of at most 63 characters for a case.
func caseNamespace(prefix, name string) string {
	ns := prefix + name
	if len(ns) > 63 {
		ns = ns[:63]
	}
	return strings.TrimRight(ns, "-")
}

// inNamespace reads a case file, puts each object in ns (the cases name
// their own, or none) and writes them to a file of the test's.
func inNamespace(t *testing.T, path, ns string) (string, []*unstructured.Unstructured) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := harness.DecodeAll(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var b strings.Builder
	for _, o := range objs {
		o.SetNamespace(ns)
		y, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	file := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, objs
}

// gvrs are the resources of the kinds the change cases hold.
var gvrs = map[string]schema.GroupVersionResource{
	"Deployment":            {Group: "apps", Version: "v1", Resource: "deployments"},
	"ReplicaSet":            {Group: "apps", Version: "v1", Resource: "replicasets"},
	"StatefulSet":           {Group: "apps", Version: "v1", Resource: "statefulsets"},
	"DaemonSet":             {Group: "apps", Version: "v1", Resource: "daemonsets"},
	"ReplicationController": {Version: "v1", Resource: "replicationcontrollers"},
	"Job":                   {Group: "batch", Version: "v1", Resource: "jobs"},
	"CronJob":               {Group: "batch", Version: "v1", Resource: "cronjobs"},
	"Service":               {Version: "v1", Resource: "services"},
	"PersistentVolumeClaim": {Version: "v1", Resource: "persistentvolumeclaims"},
	"LeaderWorkerSet":       harness.LWSGVR,
}

// live is the object of kind and name in ns, or nil when there is none.
func live(t *testing.T, ns, kind, name string) *unstructured.Unstructured {
	t.Helper()
	gvr, ok := gvrs[kind]
	if !ok {
		t.Fatalf("no resource known for kind %s", kind)
	}
	u, err := cluster.Dynamic.Resource(gvr).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return u
}

var podControllers = map[string]bool{"Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true, "ReplicationController": true}

// workloads names the pod controllers among objs, "Kind/name".
func workloads(objs []*unstructured.Unstructured) map[string]bool {
	out := map[string]bool{}
	for _, o := range objs {
		if podControllers[o.GetKind()] {
			out[o.GetKind()+"/"+o.GetName()] = true
		}
	}
	return out
}

// podsByController is the labels of the pods in ns, by the workload that
// controls them ("Kind/name"; a Deployment's through its ReplicaSet).
func podsByController(t *testing.T, ns string) map[string][]map[string]string {
	t.Helper()
	ctx := context.Background()
	pods, err := cluster.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]map[string]string{}
	for _, p := range pods.Items {
		ref := metav1.GetControllerOf(&p)
		if ref == nil || p.DeletionTimestamp != nil {
			continue
		}
		owner := ref.Kind + "/" + ref.Name
		if ref.Kind == "ReplicaSet" {
			if rs, err := cluster.Client.AppsV1().ReplicaSets(ns).Get(ctx, ref.Name, metav1.GetOptions{}); err == nil {
				if d := metav1.GetControllerOf(rs); d != nil {
					owner = d.Kind + "/" + d.Name
				}
			}
		}
		out[owner] = append(out[owner], p.Labels)
	}
	return out
}

// ensureNode creates a Node object, with no kubelet behind it, so that
// the DaemonSet controller makes a pod for it. The API server's
// TaintNodesByCondition admission gives a new node the
// node.kubernetes.io/not-ready:NoSchedule taint, which DaemonSet pods do
// not tolerate, and no node lifecycle controller runs to lift it: the
// test lifts it.
func ensureNode(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "shipshape-node-1", Labels: map[string]string{"kubernetes.io/hostname": "shipshape-node-1"}}}
	if _, err := cluster.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	patch := []byte(`{"spec":{"taints":null}}`)
	if _, err := cluster.Client.CoreV1().Nodes().Patch(ctx, node.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitPods waits until each workload named has pods.
func waitPods(t *testing.T, ns string, names map[string]bool) {
	t.Helper()
	var missing []string
	err := harness.Poll(context.Background(), "pods of "+strings.Join(sortedNames(names), ", "), 90*time.Second, nil, func() (bool, error) {
		pods := podsByController(t, ns)
		missing = missing[:0]
		for n := range names {
			if len(pods[n]) == 0 {
				missing = append(missing, n)
			}
		}
		return len(missing) == 0, nil
	})
	if err != nil {
		t.Fatalf("%v (no pods for %v)", err, missing)
	}
}

func sortedNames(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// keptBeside lists the workloads the change removed that still run pods
// which a workload the change added selects, as "old (n pods) beside new".
func keptBeside(t *testing.T, ns string, base, head map[string]bool) []string {
	t.Helper()
	pods := podsByController(t, ns)
	var out []string
	for old := range base {
		kind, name, _ := strings.Cut(old, "/")
		if head[old] || len(pods[old]) == 0 || live(t, ns, kind, name) == nil {
			continue
		}
		for added := range head {
			if base[added] {
				continue
			}
			k, n, _ := strings.Cut(added, "/")
			obj := live(t, ns, k, n)
			if obj == nil {
				continue
			}
			raw, _, _ := unstructured.NestedMap(obj.Object, "spec", "selector")
			var ls metav1.LabelSelector
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &ls); err != nil {
				t.Fatal(err)
			}
			sel, err := metav1.LabelSelectorAsSelector(&ls)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range pods[old] {
				if sel.Matches(labels.Set(l)) && len(pods[added]) > 0 {
					out = append(out, fmt.Sprintf("%s (%d pods) beside %s (%d pods)", old, len(pods[old]), added, len(pods[added])))
					break
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestChangeOldControllerKept: the container.training Deployment turned
// DaemonSet (and the other cases of change-old-controller-kept), applied
// with kubectl apply, with --prune --all when the case's engine prunes.
func TestChangeOldControllerKept(t *testing.T) {
	ensureNode(t)
	for _, c := range changeCases(t, "change-old-controller-kept") {
		t.Run(c.name, func(t *testing.T) {
			ns := caseNamespace("okept-", c.name)
			if err := cluster.EnsureNamespace(context.Background(), ns); err != nil {
				t.Fatal(err)
			}
			defer func() { _, _ = kubectl(t, "delete", "namespace", ns, "--wait=false") }()
			baseFile, baseObjs := inNamespace(t, filepath.Join(c.dir, "base.yaml"), ns)
			headFile, headObjs := inNamespace(t, filepath.Join(c.dir, "head.yaml"), ns)
			if out, err := kubectl(t, "apply", "-n", ns, "-f", baseFile); err != nil {
				t.Fatalf("base: %v\n%s", err, out)
			}
			baseW, headW := workloads(baseObjs), workloads(headObjs)
			waitPods(t, ns, baseW)
			args := []string{"apply", "-n", ns, "-f", headFile}
			if c.applier.Prune {
				args = append(args, "--prune", "--all")
			}
			if out, err := kubectl(t, args...); err != nil {
				t.Fatalf("head: %v\n%s", err, out)
			}
			waitPods(t, ns, headW)
			kept := keptBeside(t, ns, baseW, headW)
			t.Logf("kubectl %s: %v", strings.Join(args, " "), kept)
			switch {
			case c.claimed && len(kept) == 0:
				t.Errorf("the rule claims the old controller keeps running beside the new one; the server shows none (pods %v)", podsByController(t, ns))
			case !c.claimed && len(kept) > 0:
				t.Errorf("the rule is silent, but the server shows %v", kept)
			}
		})
	}
	if err := cluster.Client.CoreV1().Nodes().Delete(context.Background(), "shipshape-node-1", metav1.DeleteOptions{}); err != nil {
		t.Errorf("delete node: %v", err)
	}
}
