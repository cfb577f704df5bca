package engine

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/helmrender"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// The release of testdata/render/helm-release, rendered with the values
// the engine gathers from its HelmRelease (spec.values) and ConfigMap
// (valuesFrom), equals `helm template` of the same chart given those
// values as -f files in the same order (Helm merges -f files as
// helm-controller merges valuesFrom and values: tables key by key, the
// later winning).
func TestReleaseRendersAsHelmTemplate(t *testing.T) {
	helm := testtree.Helm(t)
	tree, err := filepath.Abs("../../testdata/render/helm-release")
	if err != nil {
		t.Fatal(err)
	}
	hrs, _, _, _ := readReleaseObjects(filepath.Join(tree, "apps/agent/helmrelease.yaml"), DefaultMaxFileSize, "kind:")
	_, _, cms, _ := readReleaseObjects(filepath.Join(tree, "apps/agent/values.yaml"), DefaultMaxFileSize, "kind:")
	if len(hrs) != 1 || len(cms) != 1 {
		t.Fatalf("want one HelmRelease and one ConfigMap, got %d, %d", len(hrs), len(cms))
	}
	values, ok := releaseValues(hrs[0].file, manifest.Path(hrs[0].node, "spec"), "flux-system", cms, DefaultMaxFileSize)
	if !ok || len(values) != 2 {
		t.Fatalf("values: %v %d", ok, len(values))
	}
	if values[0].File != cms[0].file || values[1].File != hrs[0].file {
		t.Errorf("values sources out of order: %s, %s", values[0].File, values[1].File)
	}
	got := equalsHelmTemplate(t, helm, filepath.Join(tree, "charts/agent"), "monitoring-agent", "monitoring", values, nil)
	if !strings.Contains(got, "app: agent-frontend") || !strings.Contains(got, "replicas: 3") {
		t.Errorf("the release's values were not applied:\n%s", got)
	}
}

// The Application of testdata/render/argo-helm-app, rendered with the
// values the engine gathers (valueFiles, valuesObject, parameters), equals
// `helm template -f FILE -f VALUES-OBJECT --set NAME=VALUE`, which is how
// Argo CD's repo server calls it.
func TestArgoApplicationRendersAsHelmTemplate(t *testing.T) {
	helm := testtree.Helm(t)
	tree, err := filepath.Abs("../../testdata/render/argo-helm-app")
	if err != nil {
		t.Fatal(err)
	}
	_, apps, _, _ := readReleaseObjects(filepath.Join(tree, "apps/agent.yaml"), DefaultMaxFileSize, "kind:")
	if len(apps) != 1 {
		t.Fatalf("want one Application, got %d", len(apps))
	}
	chart := filepath.Join(tree, "charts/agent")
	helmNode := manifest.Path(apps[0].node, "spec", "source", "helm")
	values, ok := argoValues(apps[0].file, helmNode, func(name string) (helmrender.ValuesSource, bool, bool) {
		return valueFile(chart, name, func(string) bool { return true }, DefaultMaxFileSize)
	}, DefaultMaxFileSize)
	if !ok || len(values) != 3 {
		t.Fatalf("values: %v %d", ok, len(values))
	}
	// helm is given the value file and valuesObject as files, the
	// parameter as --set: the last source is compared, not reused.
	got := equalsHelmTemplate(t, helm, chart, "agent", "monitoring", values[:2], []string{"--set", "image=busybox:1.37"})
	ours, err := helmrender.Render(helmrender.Options{ChartDir: chart, ReleaseName: "agent", Namespace: "monitoring", Values: values})
	if err != nil {
		t.Fatal(err)
	}
	if all := renderedDocs(t, ours); all != got {
		t.Errorf("with the parameter as a values source:\n%s\nhelm template with --set:\n%s", all, got)
	}
	if !strings.Contains(got, "app: agent-frontend") || !strings.Contains(got, "replicas: 2") || !strings.Contains(got, "busybox:1.37") {
		t.Errorf("the Application's values were not applied:\n%s", got)
	}
}

// equalsHelmTemplate checks that helmrender's rendering of chart with
// values (and no more) equals helm template's given the values as -f
// files and extra flags, when extra is nil; with extra flags, it returns
// helm template's output for the caller to compare.
func equalsHelmTemplate(t *testing.T, helm, chart, release, namespace string, values []helmrender.ValuesSource, extra []string) string {
	t.Helper()
	args := []string{"template", release, chart, "--namespace", namespace}
	for i, v := range values {
		data, err := yaml.Marshal(v.Node)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), fmt.Sprintf("values-%d.yaml", i))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-f", p)
	}
	cmd := exec.Command(helm, append(args, extra...)...)
	home := t.TempDir()
	cmd.Env = []string{"HOME=" + home, "HELM_CACHE_HOME=" + home, "HELM_CONFIG_HOME=" + home, "HELM_DATA_HOME=" + home, "PATH=/usr/bin:/bin"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr.String())
	}
	var want []string
	dec := yaml.NewDecoder(&stdout)
	for {
		var v interface{}
		if dec.Decode(&v) != nil {
			break
		}
		if v != nil {
			want = append(want, canonicalYAML(t, v))
		}
	}
	sort.Strings(want)
	helmOut := strings.Join(want, "---\n")
	if extra != nil {
		return helmOut
	}
	res, err := helmrender.Render(helmrender.Options{ChartDir: chart, ReleaseName: release, Namespace: namespace, Values: values})
	if err != nil {
		t.Fatal(err)
	}
	if got := renderedDocs(t, res); got != helmOut {
		t.Errorf("rendered:\n%s\nhelm template:\n%s", got, helmOut)
	}
	return helmOut
}

// renderedDocs is helmrender's documents, canonical and sorted.
func renderedDocs(t *testing.T, res *helmrender.Result) string {
	t.Helper()
	var got []string
	for _, o := range res.Objects {
		var v interface{}
		if err := o.Node.Decode(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, canonicalYAML(t, v))
	}
	sort.Strings(got)
	return strings.Join(got, "---\n")
}

func canonicalYAML(t *testing.T, v interface{}) string {
	t.Helper()
	out, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestShortenReleaseNameAsHelmController(t *testing.T) {
	short := "monitoring-agent"
	if got := shortenReleaseName(short); got != short {
		t.Errorf("%q shortened to %q", short, got)
	}
	long := strings.Repeat("a", 30) + "-" + strings.Repeat("b", 30)
	got := shortenReleaseName(long)
	// 40 characters of the name, a hyphen, 12 hex digits of its SHA-256
	// (printf %s NAME | sha256sum)
	if want := long[:40] + "-0d5805a5e727"; got != want { // sha256sum of the name
		t.Errorf("%q shortened to %q", long, got)
	}
}

// The scans for HelmReleases, Applications and Flux objects read a file
// under --max-file-size as its lint does: one over it is not read (its
// lint says read-error), whatever it names.
func TestReleaseScanKeepsSizeLimit(t *testing.T) {
	file, err := filepath.Abs("../../testdata/render/helm-release/apps/agent/helmrelease.yaml")
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if hrs, _, _, ok := readReleaseObjects(file, st.Size(), "kind:"); !ok || len(hrs) != 1 {
		t.Fatalf("at the limit: %d releases, ok %v", len(hrs), ok)
	}
	if hrs, _, _, ok := readReleaseObjects(file, st.Size()-1, "kind:"); ok || len(hrs) != 0 {
		t.Fatalf("over the limit: %d releases read", len(hrs))
	}
}
