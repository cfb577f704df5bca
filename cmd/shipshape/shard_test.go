package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/corpus"
)

// TestShardUnion lints the repository's render cases (shared bases, Helm
// charts, roots that do not render, remote bases) and the example GitOps
// repository whole and as n = 1, 2, 3, 5 shards (see wantShardUnion).
func TestShardUnion(t *testing.T) {
	wantShardUnion(t, []string{filepath.Join("..", "..", "testdata", "render"), filepath.Join("..", "..", "examples", "gitops-repo")})
}

// TestShardUnionCorpus is TestShardUnion over the corpus and each tree of
// the kustomize corpus. The race detector would make its 48 runs of the
// larger trees take most of an hour: under it the test is skipped, and
// .ci/run runs it without the detector (its corpus step runs the tests
// named Corpus).
func TestShardUnionCorpus(t *testing.T) {
	trees := []string{corpus.Dir(t)}
	kdir := corpus.KustomizeDir(t)
	if corpus.Stride() > 1 {
		t.Skip("race detector on: the corpus shard union runs without it (.ci/run, go test -run Corpus)")
	}
	more, err := filepath.Glob(filepath.Join(kdir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	wantShardUnion(t, append(trees, more...))
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
