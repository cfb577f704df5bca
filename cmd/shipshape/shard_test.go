package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// TestShardUnion lints the repository's render cases (shared bases, Helm
// charts, roots that do not render, remote bases) and the example GitOps
// repository whole and as n = 1, 2, 3, 5 shards (see wantShardUnion).
func TestShardUnion(t *testing.T) {
	wantShardUnion(t, []string{filepath.Join("..", "..", "testdata", "render"), filepath.Join("..", "..", "examples", "gitops-repo"), crossShardTree(t)})
}

// crossShardTree writes a tree whose Services select pods of other
// applications (another root, another plain directory), which the shards
// spread apart: a shard judges its Services with the pods of the others'
// applications (their summaries), and reports none of their findings.
func crossShardTree(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "cross")
	deployment := func(name, label string) string {
		return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\nspec:\n  selector:\n    matchLabels:\n      app: %s\n  template:\n    metadata:\n      labels:\n        app: %s\n    spec:\n      containers:\n      - name: c\n        image: nginx:1.27\n", name, label, label)
	}
	service := func(label string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata:\n  name: svc-%s\nspec:\n  selector:\n    app: %s\n  ports:\n  - port: 80\n", label, label)
	}
	files := map[string]string{}
	for i := range 8 {
		label := fmt.Sprintf("web%d", i)
		// A Service beside a workload of its own (so that it is judged),
		// selecting the pods of another root or of a plain directory;
		// the last selects pods no application has.
		if i == 7 {
			label = "nothing"
		}
		files[fmt.Sprintf("svc%d/kustomization.yaml", i)] = "resources: [service.yaml, own.yaml]\n"
		files[fmt.Sprintf("svc%d/service.yaml", i)] = service(label)
		files[fmt.Sprintf("svc%d/own.yaml", i)] = deployment(fmt.Sprintf("own%d", i), fmt.Sprintf("own%d", i))
		files[fmt.Sprintf("plainsvc%d/service.yaml", i)] = service(label)
		files[fmt.Sprintf("plainsvc%d/own.yaml", i)] = deployment(fmt.Sprintf("plainown%d", i), fmt.Sprintf("plainown%d", i))
		if i%2 == 0 {
			files[fmt.Sprintf("pods%d/kustomization.yaml", i)] = "resources: [deployment.yaml]\n"
		}
		files[fmt.Sprintf("pods%d/deployment.yaml", i)] = deployment(fmt.Sprintf("web%d", i), fmt.Sprintf("web%d", i))
	}
	testtree.Write(t, dir, files)
	return dir
}

// TestShardUnionCorpus is TestShardUnion over the corpus and each tree of
// the kustomize corpus and of the fleet corpus (GitOps repositories: Flux,
// Argo CD, Helm). The race detector would make its 48 runs of the
// larger trees take most of an hour: under it the test is skipped, and
// .ci/run runs it without the detector (its corpus step runs the tests
// named Corpus).
func TestShardUnionCorpus(t *testing.T) {
	trees := []string{corpus.Dir(t)}
	kdir := corpus.KustomizeDir(t)
	if corpus.Stride() > 1 {
		t.Skip("race detector on: the corpus shard union runs without it (.ci/run, go test -run Corpus)")
	}
	fdir := corpus.FleetDir(t)
	for _, dir := range []string{kdir, fdir} {
		more, err := filepath.Glob(filepath.Join(dir, "*"))
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, more...)
	}
	wantShardUnion(t, trees)
}

// wantShardUnion lints each tree whole and as n = 1, 2, 3, 5 shards:
// every shard's finding is one of the whole run's (as JSON: rule, place,
// message, roots), and each of the whole run's findings is reported by
// exactly one shard.
func wantShardUnion(t *testing.T, trees []string) {
	total := 0
	for _, tree := range trees {
		if st, err := os.Stat(tree); err != nil || !st.IsDir() {
			continue
		}
		t.Run(filepath.Base(tree), func(t *testing.T) {
			whole, shard := shardFindings(t, tree, "")
			if shard != "" {
				t.Errorf("a whole run's summary names shard %q", shard)
			}
			total += len(whole)
			for _, n := range []int{1, 2, 3, 5} {
				reported := map[string]int{} // finding -> by how many shards
				for k := 1; k <= n; k++ {
					part := fmt.Sprintf("%d/%d", k, n)
					got, named := shardFindings(t, tree, part)
					if named != part {
						t.Errorf("shard %s: summary names shard %q", part, named)
					}
					for f, c := range got {
						if whole[f] == 0 {
							t.Errorf("shard %s: a finding the whole run has not: %s", part, f)
						}
						reported[f] += c
					}
				}
				for f, c := range whole {
					if reported[f] != c {
						t.Errorf("%d shards report %d times (want %d): %s", n, reported[f], c, f)
					}
				}
			}
		})
	}
	if total == 0 {
		t.Fatal("no findings: the union would hold trivially")
	}
}

// shardFindings lints tree with --shard part (the whole run when part is
// empty) and counts its findings, each as its JSON; it also returns the
// shard the summary names.
func shardFindings(t *testing.T, tree, part string) (map[string]int, string) {
	t.Helper()
	args := []string{"lint", "--fail-on", "none", "--format", "json"}
	if part != "" {
		args = append(args, "--shard", part)
	}
	out := runIn(t, tree, exitOK, append(args, tree)...)
	var rep struct {
		Findings []json.RawMessage `json:"findings"`
		Summary  struct {
			Shard string `json:"shard"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("shard %q: %v", part, err)
	}
	counts := map[string]int{}
	for _, f := range rep.Findings {
		counts[string(f)]++
	}
	return counts, rep.Summary.Shard
}

// TestShardUsage: a bad --shard is a usage error naming the reason.
func TestShardUsage(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{"3/2", "0/1", "1/0", "2", "a/b", "-1/2"} {
		out := runIn(t, dir, exitUsage, "lint", "--shard", bad, dir)
		if !strings.Contains(out, `--shard "`+bad+`"`) {
			t.Errorf("--shard %s: the error does not name it: %s", bad, out)
		}
	}
}
