package controlplane

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// kapp runs the kapp CLI built from carvel.dev/kapp (CONTROLPLANE_KAPP)
// against the cluster, bounded to three minutes, and returns its output.
func kapp(t *testing.T, args ...string) string {
	t.Helper()
	bin := os.Getenv("CONTROLPLANE_KAPP")
	if bin == "" {
		t.Fatal("CONTROLPLANE_KAPP is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--kubeconfig", cluster.Kubeconfig, "--color=false", "--tty=true", "-y")...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kapp %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// kappDeployDelete deploys objs as one kapp app, then deletes the app, and
// returns kapp's progress lines of both (timestamps cut), in order.
func kappDeployDelete(t *testing.T, objs []*unstructured.Unstructured, app string) []string {
	t.Helper()
	var b strings.Builder
	for _, o := range objs {
		if o.GetKind() == "PersistentVolumeClaim" {
			storageFor(t, o)
		}
		if ns := o.GetNamespace(); ns != "" {
			if err := cluster.EnsureNamespace(context.Background(), ns); err != nil {
				t.Fatal(err)
			}
		}
		y, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	file := filepath.Join(t.TempDir(), "app.yaml")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines []string
	stamp := regexp.MustCompile(`^\d{1,2}:\d{2}:\d{2}[AP]M: `)
	for _, phase := range []struct{ name, out string }{
		{"deploy", kapp(t, "deploy", "-a", app, "-n", "default", "-f", file, "--wait-timeout=90s")},
		{"delete", kapp(t, "delete", "-a", app, "-n", "default", "--wait-timeout=90s")},
	} {
		t.Logf("kapp %s:\n%s", phase.name, phase.out)
		for _, l := range strings.Split(phase.out, "\n") {
			if stamp.MatchString(l) {
				lines = append(lines, phase.name+" "+stamp.ReplaceAllString(l, ""))
			}
		}
	}
	return lines
}

// kappOrderProblems: on deploy, the LWS is created after kapp reported each
// thing it uses reconciled ("ok: reconcile"); on delete, each of them is
// deleted only after kapp reported the LWS deleted ("ok: delete").
func kappOrderProblems(objs []*unstructured.Unstructured, lines []string) []string {
	index := func(re string) int { return firstMatch(lines, re) }
	var problems []string
	for _, o := range objs {
		if o.GetKind() != "LeaderWorkerSet" {
			continue
		}
		lws := "leaderworkerset/" + regexp.QuoteMeta(o.GetName())
		created := index(`^deploy create ` + lws + ` `)
		deleted := index(`^delete ok: delete ` + lws + ` `)
		if created < 0 {
			problems = append(problems, "kapp did not create the LeaderWorkerSet")
		}
		if deleted < 0 {
			problems = append(problems, "kapp did not report the LeaderWorkerSet deleted")
		}
		deps := usedBy(o)
		if len(deps) == 0 {
			problems = append(problems, "the LeaderWorkerSet uses nothing: the test input is wrong")
		}
		for _, d := range deps {
			kind, name, _ := strings.Cut(d, "/")
			dep := strings.ToLower(kind) + "/" + regexp.QuoteMeta(name)
			ready := index(`^deploy ok: reconcile ` + dep + ` `)
			switch {
			case ready < 0:
				problems = append(problems, d+": no 'ok: reconcile' on deploy")
			case created >= 0 && created < ready:
				problems = append(problems, fmt.Sprintf("LeaderWorkerSet created (line %d) before %s was reconciled (line %d)", created, d, ready))
			}
			del := index(`^delete delete ` + dep + ` `)
			switch {
			case del < 0:
				problems = append(problems, d+": not deleted")
			case deleted >= 0 && del < deleted:
				problems = append(problems, fmt.Sprintf("%s deleted (line %d) before the LeaderWorkerSet was gone (line %d)", d, del, deleted))
			}
		}
	}
	return problems
}

// TestLWSOrderKapp deploys shipshape's kapp output with kapp (change groups
// and change rules) and deletes it: the LeaderWorkerSet must be created after
// what it uses is reconciled, and deleted before any of it.
func TestLWSOrderKapp(t *testing.T) {
	useLWS(t, lwsOrder[len(lwsOrder)-1])
	objs := shipshapeFix(t, "kapp")
	lines := kappDeployDelete(t, objs, "shipshape-kapp")
	if problems := kappOrderProblems(objs, lines); len(problems) > 0 {
		t.Errorf("kapp did not order the LeaderWorkerSet after what it uses:\n  %s\nkapp:\n  %s", strings.Join(problems, "\n  "), strings.Join(lines, "\n  "))
	} else {
		t.Logf("kapp, in order:\n  %s", strings.Join(lines, "\n  "))
	}
}

// TestLWSOrderKappDetects shows that TestLWSOrderKapp's check can fail:
// without shipshape's change groups and rules kapp creates and deletes the
// LeaderWorkerSet together with what it uses.
func TestLWSOrderKappDetects(t *testing.T) {
	useLWS(t, lwsOrder[len(lwsOrder)-1])
	objs := shipshapeFix(t, "kapp")
	for _, o := range objs {
		a := o.GetAnnotations()
		for k := range a {
			if shipshapeAnnotation(k) {
				delete(a, k)
			}
		}
		o.SetAnnotations(a)
	}
	lines := kappDeployDelete(t, objs, "shipshape-kapp-stripped")
	if problems := kappOrderProblems(objs, lines); !onlyOrderProblems(problems) {
		t.Errorf("without shipshape's annotations the kapp order check should find the LWS out of order, and only that; it found %q\nkapp:\n  %s", problems, strings.Join(lines, "\n  "))
	} else {
		t.Logf("without shipshape's change groups and rules, as expected:\n  %s", strings.Join(problems, "\n  "))
	}
}
