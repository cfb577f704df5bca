package controlplane

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shipshape-dev/shipshape/controlplane/harness"
)

// The refused-update cases of issue 33 (../testdata/transition/<case>/:
// base.yaml, head.yaml, verdict.txt), applied to the real API server as
// GitOps applies them: server-side apply of base, then of head, by one
// field manager. The same verdict.txt files hold internal/refused's
// Check to its answers (internal/refused TestCases), so the package and
// the server agree on every case through them:
//   - refused: the head apply fails, and every field the server names is
//     one of the refused paths (or contains it, or is inside it), and every
//     refused path is named;
//   - accepted: the head apply succeeds (the controls: image bump,
//     StatefulSet template change, CronJob jobTemplate change, defaults
//     written out, LWS size change, ...);
//   - controller-refuses: the head apply succeeds, and the LWS controller
//     is then refused when it applies the change to its leader StatefulSet
//     (read in the LWS manager's log).
const transitionCases = "../testdata/transition"

// serverField matches the field paths of the server's messages:
// `spec.selector: Invalid value: ...`, `spec: Forbidden: ...`.
var serverField = regexp.MustCompile(`(?:^|: |\* )([A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*|\[[0-9]+\])*): (?:Invalid value|Forbidden|Required value|Unsupported value)`)

// clusterScoped kinds are deleted after their case (their names repeat).
var clusterScoped = map[string]bool{"ClusterRoleBinding": true, "StorageClass": true}

func TestTransitionRefusals(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(transitionCases, "*", "verdict.txt"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases in %s", transitionCases)
	}
	for _, v := range dirs {
		dir := filepath.Dir(v)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(v)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Fields(string(data))
			verdict, paths := want[0], want[1:]
			base, head := filepath.Join(dir, "base.yaml"), filepath.Join(dir, "head.yaml")
			baseYAML, _ := os.ReadFile(base)
			kind := kindOf(string(baseYAML))
			if kind == "LeaderWorkerSet" {
				startLatestLWS(t)
			}
			ns := "tr-" + name
			if len(ns) > 63 {
				ns = ns[:63]
			}
			ns = strings.TrimRight(ns, "-")
			if err := cluster.EnsureNamespace(context.Background(), ns); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if clusterScoped[kind] {
					_, _ = kubectl(t, "delete", "-f", base, "--ignore-not-found", "--wait=true")
				}
				_, _ = kubectl(t, "delete", "namespace", ns, "--wait=false")
			}()
			apply := func(file string) ([]byte, error) {
				return kubectl(t, "apply", "--server-side", "--field-manager=shipshape-transition", "-n", ns, "-f", file)
			}
			if out, err := apply(base); err != nil {
				t.Fatalf("base refused: %v\n%s", err, out)
			}
			if verdict == "controller-refuses" {
				waitLeaderStatefulSet(t, ns)
			}
			out, err := apply(head)
			switch verdict {
			case "accepted":
				if err != nil {
					t.Errorf("a control was refused: %v\n%s", err, out)
				}
			case "controller-refuses":
				if err != nil {
					t.Fatalf("the apply was refused (the verdict says the controller is): %v\n%s", err, out)
				}
				waitControllerRefusal(t, ns)
			case "refused":
				if err == nil {
					t.Fatalf("the server accepted the change; refused.Check says %v is refused\n%s", paths, out)
				}
				checkFields(t, string(out), paths)
				t.Logf("refused as claimed: %s", firstLine(string(out)))
			default:
				t.Fatalf("unknown verdict %q", verdict)
			}
		})
	}
}

// checkFields holds the server's message to the refused paths: each field
// it names relates to one of them (one is inside the other), and each of
// them is covered by a field it names.
func checkFields(t *testing.T, msg string, paths []string) {
	t.Helper()
	var named []string
	for _, m := range serverField.FindAllStringSubmatch(msg, -1) {
		named = append(named, m[1])
	}
	if len(named) == 0 {
		t.Fatalf("the refusal names no field:\n%s", msg)
	}
	related := func(a, b string) bool {
		a, b = normalizeField(a), normalizeField(b)
		return a == b || strings.HasPrefix(a, b+".") || strings.HasPrefix(b, a+".") || strings.HasPrefix(a, b+"[") || strings.HasPrefix(b, a+"[")
	}
	for _, n := range named {
		ok := false
		for _, p := range paths {
			ok = ok || related(n, p)
		}
		if !ok {
			t.Errorf("the server refuses %s, which refused.Check does not name (it names %v):\n%s", n, paths, msg)
		}
	}
	for _, p := range paths {
		ok := false
		for _, n := range named {
			ok = ok || related(n, p)
		}
		if !ok {
			t.Errorf("refused.Check names %s, which the server's refusal does not (it names %v):\n%s", p, named, msg)
		}
	}
}

// normalizeField folds the server's spellings onto the manifest's: the LWS
// webhook writes SubGroupPolicy, the Service validation clusterIPs[0] for
// the primary clusterIP.
func normalizeField(f string) string {
	f = strings.ToLower(f)
	return strings.ReplaceAll(f, "spec.clusterips[0]", "spec.clusterip")
}

func kindOf(doc string) string {
	m := regexp.MustCompile(`(?m)^kind: *(\S+)`).FindStringSubmatch(doc)
	if m == nil {
		return ""
	}
	return m[1]
}

// waitLeaderStatefulSet waits until the LWS controller made the leader
// StatefulSet of the base (the change must meet it).
func waitLeaderStatefulSet(t *testing.T, ns string) {
	t.Helper()
	err := harness.Poll(context.Background(), "leader StatefulSet of the base", 90*time.Second, nil, func() (bool, error) {
		out, err := kubectl(t, "get", "statefulsets", "-n", ns, "-o", "name")
		return err == nil && strings.Contains(string(out), "statefulset.apps/"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// waitControllerRefusal waits until the LWS manager's log shows the
// StatefulSet validation refusing the controller's apply in ns.
func waitControllerRefusal(t *testing.T, ns string) {
	t.Helper()
	logFile := filepath.Join(cluster.Dir, "logs", "lws-manager-"+currentLWS.Version+".log")
	const refusal = "updates to statefulset spec for fields other than"
	err := harness.Poll(context.Background(), "the LWS controller refused on its StatefulSet", 90*time.Second, nil, func() (bool, error) {
		data, err := os.ReadFile(logFile)
		if err != nil {
			return false, err
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, refusal) && strings.Contains(line, ns) {
				t.Logf("controller refused: %.300s", line)
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
