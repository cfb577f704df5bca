package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/testtree"
	"github.com/shipshape-dev/shipshape/rules"
)

// argoGlobMatch is held to Argo CD's behaviour: the repo server matches
// directory.include and exclude with util/glob.Match (gobwas/glob
// compiled with no separators) over the path relative to the source path
// (reposerver/repository/repository.go, getPotentiallyValidManifestFile:
// `if exclude != "" && glob.Match(exclude, relPath)`). The first cases are
// Argo CD's own TestFindResources (repository_test.go) over its
// testdata/app-include-exclude (deployment.yaml, subdir/deploymentSub.yaml),
// then its `{*.yaml.sealed,*.yaml}` include (TestFindManifests_...).
func TestArgoGlobMatch(t *testing.T) {
	files := []string{"deployment.yaml", "subdir/deploymentSub.yaml"}
	for _, c := range []struct {
		pattern string
		want    []string
	}{
		{"subdir/deploymentSub.yaml", []string{"subdir/deploymentSub.yaml"}},
		{"*.yaml", files}, // `*` crosses `/`: no separators
		{"**/*.yaml", []string{"subdir/deploymentSub.yaml"}},
		{"nothing.yaml", nil},
		{"{deployment,other}.yaml", []string{"deployment.yaml"}},
		{"{subdir/*,nothing}", []string{"subdir/deploymentSub.yaml"}},
		{"deploymen?.yaml", []string{"deployment.yaml"}},
		{"[!d]*", []string{"subdir/deploymentSub.yaml"}},
		{"[a-e]*", []string{"deployment.yaml"}},
		{"[", nil}, // does not compile: matches nothing (glob.Match logs and returns false)
	} {
		var got []string
		for _, f := range files {
			if argoGlobMatch(c.pattern, f) {
				got = append(got, f)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q matches %q, want %q", c.pattern, got, c.want)
		}
	}
	for _, name := range []string{"secret.yaml", "secret.yaml.sealed"} {
		if !argoGlobMatch("{*.yaml.sealed,*.yaml}", name) {
			t.Errorf("{*.yaml.sealed,*.yaml} does not match %s", name)
		}
	}
	if argoGlobMatch("{*.yaml.sealed,*.yaml}", "secret.json") {
		t.Error("{*.yaml.sealed,*.yaml} matches secret.json")
	}
}

// The repo server's extension filter: yaml, yml, json, jsonnet, by the
// exact (case-sensitive) suffix.
func TestArgoManifestName(t *testing.T) {
	for name, want := range map[string]bool{"a.yaml": true, "a.yml": true, "a.json": true, "a.jsonnet": true,
		"a.YAML": false, "a.txt": false, "yaml": false, "a.yaml.bak": false} {
		if got := argoManifestName.MatchString(name); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

const argoDirService = `apiVersion: v1
kind: Service
metadata:
  name: worker
  namespace: jobs
spec:
  selector:
    app: %s
  ports:
  - port: 80
`

const argoDirDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: worker
  namespace: jobs
spec:
  selector:
    matchLabels: {app: worker}
  template:
    metadata:
      labels: {app: worker}
    spec:
      containers:
      - name: worker
        image: worker:1.0
`

// argoDirApp is an Application applying path with directory options.
func argoDirApp(name, path, directory string) string {
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: %s
spec:
  destination:
    namespace: jobs
  source:
    repoURL: https://example.com/fleet.git
    path: %s
    directory:
%s
`, name, path, directory)
}

// lintArgoTree lints files written into a new directory; the findings of
// rule service-no-matching-pods, one a line.
func lintArgoTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testtree.Write(t, dir, files)
	e, err := New(rules.All(), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{dir}
	inputs, _ := manifest.Collect(paths)
	res := e.RunTree(paths, slices.Values(inputs))
	var b strings.Builder
	for _, f := range res.Findings {
		if f.Rule == "service-no-matching-pods" {
			fmt.Fprintf(&b, "%s:%d %s\n", strings.TrimPrefix(f.File, dir+"/"), f.Line, f.Message)
		}
	}
	return b.String()
}

// recurse: true makes the Service of jobs/ and the Deployment of
// jobs/worker/ one application: a selector that misses its pods is
// reported there, and not when the Application applies the top only
// (the directory alone makes no pods: its Service may front others').
func TestArgoDirectoryRecurse(t *testing.T) {
	tree := func(recurse string) map[string]string {
		return map[string]string{
			"apps/jobs.yaml":           argoDirApp("jobs", "jobs", "      recurse: "+recurse),
			"jobs/service.yaml":        fmt.Sprintf(argoDirService, "wroker"),
			"jobs/worker/deploy.yaml":  argoDirDeployment,
			"other/unrelated-app.yaml": argoDirApp("other", "other", "      recurse: true"),
		}
	}
	if got := lintArgoTree(t, tree("true")); !strings.Contains(got, "jobs/service.yaml:8 ") || !strings.Contains(got, "Deployment/worker has app=worker") {
		t.Errorf("recurse: true, want the Service's finding naming the Deployment below, got:\n%s", got)
	}
	if got := lintArgoTree(t, tree("false")); got != "" {
		t.Errorf("recurse: false, want nothing, got:\n%s", got)
	}
}

// A file an Application excludes is said to be left out only when
// nothing else applies it: not when a Flux Kustomization builds its
// directory, nor when the tree has an ApplicationSet (whose generated
// Applications may apply it), nor for a Service of another Application.
func TestArgoDirectoryLeftOutOnlyWhenNothingApplies(t *testing.T) {
	base := func() map[string]string {
		return map[string]string{
			"apps/jobs.yaml":          argoDirApp("jobs", "jobs", "      recurse: true\n      exclude: 'worker/*'"),
			"jobs/service.yaml":       fmt.Sprintf(argoDirService, "worker"),
			"jobs/worker/deploy.yaml": argoDirDeployment,
		}
	}
	if got := lintArgoTree(t, base()); !strings.Contains(got, `its directory.exclude "worker/*" leaves it out`) {
		t.Errorf("want the left-out finding, got:\n%s", got)
	}
	flux := base()
	flux["clusters/worker.yaml"] = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: worker
  namespace: flux-system
spec:
  path: ./jobs/worker
  sourceRef:
    kind: GitRepository
    name: flux-system
`
	set := base()
	set["apps/set.yaml"] = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: all
spec:
  generators:
  - git:
      repoURL: https://example.com/fleet.git
      directories:
      - path: '*/*'
`
	other := base()
	other["apps/jobs.yaml"] = argoDirApp("jobs", "jobs", "      include: service.yaml")
	other["apps/worker.yaml"] = argoDirApp("worker", "jobs/worker", "      exclude: deploy.yaml")
	for name, files := range map[string]map[string]string{"flux": flux, "applicationset": set, "another Application's exclude": other} {
		if got := lintArgoTree(t, files); got != "" {
			t.Errorf("%s: want nothing, got:\n%s", name, got)
		}
	}
}

// A JSON manifest the Application applies is not read by shipshape: what
// the Application makes is not known whole, so a Service whose pods are
// not in its YAML is not reported.
func TestArgoDirectoryJSONKeepsAbsenceQuiet(t *testing.T) {
	got := lintArgoTree(t, map[string]string{
		"apps/jobs.yaml":          argoDirApp("jobs", "jobs", "      recurse: true"),
		"jobs/service.yaml":       fmt.Sprintf(argoDirService, "wroker"),
		"jobs/worker/deploy.yaml": argoDirDeployment,
		"jobs/extra/pods.json":    `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "labels": {"app": "wroker"}}}`,
	})
	if got != "" {
		t.Errorf("want nothing, got:\n%s", got)
	}
}
