package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// lint --base REF end to end, on real repositories made with git in
// temporary directories (the tests run git; shipshape reads the objects
// itself).

// baseFinding is what these tests read of a JSON finding.
type baseFinding struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Field   string `json:"field"`
	Fixable bool   `json:"fixable"`
}

// lintIn runs `shipshape lint -f json args...` in dir and returns the exit
// code, the findings of rule (all when rule is ""), and stderr.
func lintIn(t *testing.T, dir, rule string, args ...string) (int, []baseFinding, string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"lint", "-f", "json"}, args...), strings.NewReader(""), &stdout, &stderr)
	if code == exitUsage {
		return code, nil, stderr.String()
	}
	var out struct{ Findings []baseFinding }
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("lint %v: %v\n%s\n%s", args, err, stdout.String(), stderr.String())
	}
	var found []baseFinding
	for _, f := range out.Findings {
		if rule == "" || f.Rule == rule {
			found = append(found, f)
		}
	}
	return code, found, stderr.String()
}

// TestBaseTransitionCases: every case of testdata/transition as a
// two-commit repository: lint --base HEAD~1 reports exactly the refused
// fields (each at head's line for it), and nothing for the controls.
func TestBaseTransitionCases(t *testing.T) {
	cases, err := filepath.Glob("../../testdata/transition/*/verdict.txt")
	if err != nil || len(cases) < 40 {
		t.Fatalf("transition cases: %d, %v", len(cases), err)
	}
	// Under -race every RaceStride-th case (.ci/run runs all of them once
	// more without it): each is a whole lint --base, ten times slower.
	stride := corpus.Stride()
	for i, verdictFile := range cases {
		if i%stride != 0 {
			continue
		}
		caseDir := filepath.Dir(verdictFile)
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			verdict := strings.Fields(readFile(t, verdictFile))
			base, head := readFile(t, filepath.Join(caseDir, "base.yaml")), readFile(t, filepath.Join(caseDir, "head.yaml"))
			repo := testtree.GitRepo(t)
			testtree.Write(t, repo, map[string]string{"app/objects.yaml": base})
			testtree.Commit(t, repo, "base")
			testtree.Write(t, repo, map[string]string{"app/objects.yaml": head})
			testtree.Commit(t, repo, "head")
			_, found, stderr := lintIn(t, repo, "refused-update", "--base", "HEAD~1", "app")
			var fields []string
			for _, f := range found {
				fields = append(fields, f.Field)
				if want := lineOf(t, head, f.Field); f.File != "app/objects.yaml" || f.Line != want {
					t.Errorf("%s at %s:%d; want app/objects.yaml:%d", f.Field, f.File, f.Line, want)
				}
				if !strings.Contains(f.Message, "mirrors ") {
					t.Errorf("message names no server function: %s", f.Message)
				}
			}
			want := verdict[1:]
			if verdict[0] == "accepted" {
				want = nil
			}
			slices.Sort(fields)
			slices.Sort(want)
			if !slices.Equal(fields, want) {
				t.Errorf("verdict %s: reported %v; want %v (stderr %s)", verdict[0], fields, want, stderr)
			}
		})
	}
}

// lineOf is the line of the node at path in the first document of src
// that has it, as far as the path goes.
func lineOf(t *testing.T, src, path string) int {
	t.Helper()
	docs, err := manifest.DocumentRoots([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	steps := strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == '[' })
	best, bestDepth := 0, -1
	for _, doc := range docs {
		n, depth := doc, 0
		for _, s := range steps {
			var next *yaml.Node
			if i, ok := strings.CutSuffix(s, "]"); ok {
				var idx int
				for _, c := range i {
					idx = idx*10 + int(c-'0')
				}
				if n.Kind == yaml.SequenceNode && idx < len(n.Content) {
					next = n.Content[idx]
				}
			} else {
				next = manifest.MapGet(n, s)
			}
			if next == nil {
				break
			}
			n, depth = next, depth+1
		}
		if depth > bestDepth {
			best, bestDepth = n.Line, depth
		}
	}
	return best
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

const baseDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: nginx:1.27
`

// TestBaseOverlayCommonLabels: an overlay's new commonLabels widens the
// base's selector: the finding is at the commonLabels line; labels
// without includeSelectors is the control.
func TestBaseOverlayCommonLabels(t *testing.T) {
	repo := testtree.GitRepo(t)
	testtree.Write(t, repo, map[string]string{
		"base/kustomization.yaml":    "resources:\n  - deploy.yaml\n",
		"base/deploy.yaml":           baseDeployment,
		"overlay/kustomization.yaml": "resources:\n  - ../base\nnamePrefix: prod-\n",
	})
	testtree.Commit(t, repo, "base")
	testtree.Write(t, repo, map[string]string{"overlay/kustomization.yaml": "resources:\n  - ../base\nnamePrefix: prod-\ncommonLabels:\n  tier: front\n"})
	testtree.Commit(t, repo, "overlay labels")
	code, found, stderr := lintIn(t, repo, "refused-update", "--base", "HEAD~1", ".")
	if code != 1 || len(found) != 1 {
		t.Fatalf("exit %d, %+v (%s); want one refused-update", code, found, stderr)
	}
	f := found[0]
	if f.File != "overlay/kustomization.yaml" || f.Line != 5 || f.Field != "spec.selector.matchLabels.tier" {
		t.Errorf("finding %+v; want overlay/kustomization.yaml:5 (the commonLabels entry), spec.selector.matchLabels.tier", f)
	}
	if !strings.Contains(f.Message, testtree.Git(t, repo, "rev-parse", "--short=7", "HEAD~1")) || !strings.Contains(f.Message, "base/deploy.yaml:") {
		t.Errorf("message names neither the base commit nor the base file: %s", f.Message)
	}

	// The control: labels without includeSelectors leave the selector.
	testtree.Write(t, repo, map[string]string{"overlay/kustomization.yaml": "resources:\n  - ../base\nnamePrefix: prod-\nlabels:\n  - pairs:\n      tier: front\n"})
	if _, found, _ := lintIn(t, repo, "refused-update", "--base", "HEAD~1", "."); len(found) != 0 {
		t.Errorf("labels without includeSelectors: %+v", found)
	}
}

// TestBaseWorkTreeStates: staged-only and unstaged changes are judged
// against HEAD; run from a subdirectory; packed objects; a shallow clone
// reads HEAD~1 and names the cure for what it lacks; a bad REF exits 2.
func TestBaseWorkTreeStates(t *testing.T) {
	repo := testtree.GitRepo(t)
	testtree.Write(t, repo, map[string]string{"deploy/web.yaml": baseDeployment, "deploy/other/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n"})
	testtree.Commit(t, repo, "one")
	widened := strings.Replace(baseDeployment, "      app: web\n  template", "      app: web\n      tier: front\n  template", 1)

	// Unstaged, then staged only.
	testtree.Write(t, repo, map[string]string{"deploy/web.yaml": widened})
	if _, found, _ := lintIn(t, repo, "refused-update", "--base", "HEAD", "."); len(found) != 1 || found[0].Line != 9 {
		t.Errorf("unstaged change: %+v; want one finding at deploy/web.yaml:9", found)
	}
	testtree.Git(t, repo, "add", "deploy/web.yaml")
	if _, found, _ := lintIn(t, repo, "refused-update", "--base", "HEAD", "deploy/web.yaml"); len(found) != 1 {
		t.Errorf("staged change, the file named: %+v", found)
	}
	testtree.Git(t, repo, "commit", "-q", "-m", "two")

	// Without a change there is nothing to judge: the same output as
	// without --base.
	_, plain, _ := lintIn(t, repo, "", ".")
	if _, based, _ := lintIn(t, repo, "", "--base", "HEAD", "."); !slices.Equal(plain, based) {
		t.Errorf("--base HEAD on a clean tree: %+v; without --base: %+v", based, plain)
	}

	// From a subdirectory, the repository is found upwards.
	code, found, _ := lintIn(t, filepath.Join(repo, "deploy"), "refused-update", "--base", "HEAD~1", ".")
	if code != 1 || len(found) != 1 || found[0].File != "web.yaml" {
		t.Errorf("from deploy/: exit %d, %+v", code, found)
	}

	// Packed objects.
	testtree.Git(t, repo, "gc", "-q", "--aggressive")
	if _, found, _ := lintIn(t, repo, "refused-update", "--base", "HEAD~1", "."); len(found) != 1 {
		t.Errorf("packed repository: %+v", found)
	}

	// A shallow clone of depth 2 has HEAD~1 and lacks HEAD~2.
	testtree.Write(t, repo, map[string]string{"deploy/other/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: c\n"})
	testtree.Commit(t, repo, "three")
	clone := filepath.Join(t.TempDir(), "clone")
	testtree.Git(t, repo, "clone", "-q", "--depth", "2", "file://"+repo, clone)
	testtree.Write(t, clone, map[string]string{"deploy/web.yaml": baseDeployment})
	if _, found, stderr := lintIn(t, clone, "refused-update", "--base", "HEAD~1", "."); len(found) != 1 {
		t.Errorf("shallow clone, HEAD~1: %+v (%s)", found, stderr)
	}
	code, _, stderr := lintIn(t, clone, "", "--base", "HEAD~2", ".")
	if code != exitUsage || !strings.Contains(stderr, "shallow") || !strings.Contains(stderr, "fetch-depth: 0") {
		t.Errorf("shallow clone, HEAD~2: exit %d, %q; want exit 2 naming the shallow clone and the cure", code, stderr)
	}

	code, _, stderr = lintIn(t, repo, "", "--base", "no-such-ref", ".")
	if code != exitUsage || !strings.Contains(stderr, `cannot resolve "no-such-ref"`) {
		t.Errorf("bad REF: exit %d, %q", code, stderr)
	}
	code, _, stderr = lintIn(t, t.TempDir(), "", "--base", "HEAD", ".")
	if code != exitUsage || !strings.Contains(stderr, "--base HEAD") {
		t.Errorf("outside a repository: exit %d, %q", code, stderr)
	}
}

// TestBaseEngines: the applier comes from the repository: a Flux
// Kustomization building the root's path (force: true recreates), an Argo
// CD Application whose source path it is (Replace=true,Force=true), else
// the configuration's lws.engine, else unknown.
func TestBaseEngines(t *testing.T) {
	widened := strings.Replace(baseDeployment, "      app: web\n  template", "      app: web\n      tier: front\n  template", 1)
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"flux force", map[string]string{"clusters/prod/apps.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  path: ./apps/web\n  prune: true\n  force: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"},
			"force: true deletes the object"},
		{"flux", map[string]string{"clusters/prod/apps.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  path: ./apps/web\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"},
			"dependants stall"},
		{"argo cd replace", map[string]string{"argocd/web.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\nspec:\n  source:\n    repoURL: https://example.invalid/repo.git\n    path: apps/web\n  syncPolicy:\n    automated:\n      prune: true\n    syncOptions:\n      - Replace=true\n      - Force=true\n"},
			"Replace=true,Force=true deletes the object"},
		{"configured", map[string]string{".shipshape.yaml": "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  lws:\n    engine: argocd\n"},
			"the engine named by the configuration"},
		{"unknown", nil, "kubectl and server-side apply fail (422 Invalid), Argo CD's sync fails"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := testtree.GitRepo(t)
			testtree.Write(t, repo, tc.files)
			testtree.Write(t, repo, map[string]string{"apps/web/kustomization.yaml": "resources:\n  - deploy.yaml\n", "apps/web/deploy.yaml": baseDeployment})
			testtree.Commit(t, repo, "base")
			testtree.Write(t, repo, map[string]string{"apps/web/deploy.yaml": widened})
			_, found, stderr := lintIn(t, repo, "refused-update", "--base", "HEAD", ".")
			if len(found) != 1 || !strings.Contains(found[0].Message, tc.want) {
				t.Errorf("%+v (%s); want one finding saying %q", found, stderr, tc.want)
			}
		})
	}
}

// TestBaseFix: fix --base restores what the change added, and lint --base
// is then clean.
func TestBaseFix(t *testing.T) {
	repo := testtree.GitRepo(t)
	testtree.Write(t, repo, map[string]string{"apps/web/kustomization.yaml": "resources:\n  - deploy.yaml\n", "apps/web/deploy.yaml": baseDeployment})
	testtree.Commit(t, repo, "base")
	testtree.Write(t, repo, map[string]string{"apps/web/deploy.yaml": strings.Replace(baseDeployment, "      app: web\n  template", "      app: web\n      tier: front\n  template", 1)})
	wd, _ := os.Getwd()
	if err := os.Chdir(repo); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"fix", "--base", "HEAD", "."}, strings.NewReader(""), &stdout, &stderr)
	os.Chdir(wd)
	if code != 0 || readFile(t, filepath.Join(repo, "apps/web/deploy.yaml")) != baseDeployment {
		t.Fatalf("fix --base: exit %d\n%s%s\n%s", code, stdout.String(), stderr.String(), readFile(t, filepath.Join(repo, "apps/web/deploy.yaml")))
	}
	if code, found, _ := lintIn(t, repo, "", "--base", "HEAD", "."); code != 0 || len(found) != 0 {
		t.Errorf("after the fix: exit %d, %+v", code, found)
	}
}

// TestBasePlainDirectory: a directory of plain manifests is judged file
// set to file set, a Service moved from one file to another included.
func TestBasePlainDirectory(t *testing.T) {
	repo := testtree.GitRepo(t)
	svc := "apiVersion: v1\nkind: Service\nmetadata:\n  name: db\nspec:\n  clusterIP: None\n  selector:\n    app: db\n  ports:\n    - port: 5432\n"
	testtree.Write(t, repo, map[string]string{"db/service.yaml": svc, "db/notes.txt": "x\n"})
	testtree.Commit(t, repo, "base")
	if err := os.Remove(filepath.Join(repo, "db/service.yaml")); err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, repo, map[string]string{"db/all.yaml": strings.Replace(svc, "clusterIP: None", "clusterIP: 10.0.0.10", 1)})
	_, found, stderr := lintIn(t, repo, "refused-update", "--base", "HEAD", ".")
	if len(found) != 1 || found[0].File != "db/all.yaml" || found[0].Line != 6 || !strings.Contains(found[0].Message, "db/service.yaml:6") {
		t.Errorf("%+v (%s); want one finding at db/all.yaml:6 naming db/service.yaml:6", found, stderr)
	}

	// An ignore comment on the line, or the object's opt-out annotation,
	// silences the finding as any other.
	testtree.Write(t, repo, map[string]string{"db/all.yaml": strings.Replace(svc, "clusterIP: None", "clusterIP: 10.0.0.10 # shipshape:ignore refused-update", 1)})
	if _, found, _ := lintIn(t, repo, "refused-update", "--base", "HEAD", "."); len(found) != 0 {
		t.Errorf("ignore comment: %+v", found)
	}
	testtree.Write(t, repo, map[string]string{"db/all.yaml": strings.Replace(strings.Replace(svc, "clusterIP: None", "clusterIP: 10.0.0.10", 1), "name: db\n", "name: db\n  annotations:\n    shipshape.dev/ignore: refused-update\n", 1)})
	if _, found, _ := lintIn(t, repo, "refused-update", "--base", "HEAD", "."); len(found) != 0 {
		t.Errorf("opt-out annotation: %+v", found)
	}
	testtree.Write(t, repo, map[string]string{"db/all.yaml": strings.Replace(svc, "clusterIP: None", "clusterIP: 10.0.0.10", 1)})

	// A directory defining one object in two files holds alternatives
	// (fixtures, variants), each file an application: a new variant
	// changes nothing that was applied.
	testtree.Commit(t, repo, "moved")
	testtree.Write(t, repo, map[string]string{"db/variant.yaml": svc})
	if _, found, _ := lintIn(t, repo, "refused-update", "--base", "HEAD", "."); len(found) != 0 {
		t.Errorf("a new alternative file: %+v", found)
	}
}

// TestBaseNotRendered: a changed root that does not render at the base
// (a file it lists was missing then) is said to be not judged, at its
// kustomization, and head is judged as usual.
func TestBaseNotRendered(t *testing.T) {
	repo := testtree.GitRepo(t)
	testtree.Write(t, repo, map[string]string{
		"app/kustomization.yaml": "resources:\n  - deploy.yaml\n",
	})
	testtree.Commit(t, repo, "kustomization before its file")
	testtree.Write(t, repo, map[string]string{"app/deploy.yaml": baseDeployment})
	testtree.Commit(t, repo, "the file")
	code, found, stderr := lintIn(t, repo, "", "--base", "HEAD~1", ".")
	if code != 0 || len(found) != 1 {
		t.Fatalf("exit %d, %+v (%s); want one base-not-rendered", code, found, stderr)
	}
	f := found[0]
	if f.Rule != "base-not-rendered" || f.File != "app/kustomization.yaml" || f.Line != 1 ||
		!strings.Contains(f.Message, "does not render at the base revision "+testtree.Git(t, repo, "rev-parse", "--short=7", "HEAD~1")) ||
		!strings.Contains(f.Message, "deploy.yaml") {
		t.Errorf("finding %+v; want base-not-rendered at app/kustomization.yaml:1 naming the base commit and the missing file", f)
	}
	if _, found, _ := lintIn(t, repo, "", "."); len(found) != 0 {
		t.Errorf("without --base: %+v", found)
	}
}
