package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// TestDocsCIShards runs the shard examples of docs/ci.md as written (the
// lint command of each, with the values the CI system gives it) over the
// repository's render cases: the GitHub matrix lists shards 1..N of the
// N its command names, and its jobs' annotations together are the
// unsharded run's, each once; the GitLab jobs' JUnit reports together hold
// the unsharded run's test cases.
func TestDocsCIShards(t *testing.T) {
	t.Parallel()
	need(t, "bash", "bash is on the machine image")
	var github, gitlab map[string]any
	for _, block := range yamlBlocks(t, filepath.Join(root, "docs", "ci.md")) {
		if !strings.Contains(block, "--shard") {
			continue
		}
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
			t.Fatalf("docs/ci.md: a yaml block does not parse: %v\n%s", err, block)
		}
		if doc["jobs"] != nil {
			github = doc
		} else {
			gitlab = doc
		}
	}
	if github == nil || gitlab == nil {
		t.Fatal("docs/ci.md: want a GitHub matrix and a GitLab parallel job using --shard")
	}
	workspace := t.TempDir()
	testtree.Copy(t, filepath.Join(root, "testdata", "render"), workspace)

	t.Run("github", func(t *testing.T) {
		job := onlyValue(t, github["jobs"]).(map[string]any)
		matrix := job["strategy"].(map[string]any)["matrix"].(map[string]any)
		var command string
		for _, s := range job["steps"].([]any) {
			if r, _ := s.(map[string]any)["run"].(string); strings.HasPrefix(r, "shipshape lint") {
				command = r
			}
		}
		m := regexp.MustCompile(`--shard \$\{\{ matrix\.shard \}\}/(\d+) `).FindStringSubmatch(command)
		if m == nil {
			t.Fatalf("the matrix job's lint step %q: want --shard ${{ matrix.shard }}/N", command)
		}
		n, _ := strconv.Atoi(m[1])
		var shards []int
		for _, v := range matrix["shard"].([]any) {
			shards = append(shards, v.(int))
		}
		if want := shardsUpTo(n); !slices.Equal(shards, want) {
			t.Fatalf("matrix.shard %v, want %v for /%d", shards, want, n)
		}
		// The github format puts the findings past GitHub's annotation
		// limit in the log: the union is compared in the json format.
		asJSON := func(c string) string { return strings.Replace(c, "--format github", "--format json", 1) }
		whole := jsonFindings(t, run(t, workspace, nil, "bash", "-c", asJSON(strings.Replace(command, m[0], "", 1))))
		union := map[string]int{}
		for _, k := range shards {
			shardCmd := strings.ReplaceAll(command, "${{ matrix.shard }}", strconv.Itoa(k))
			r := run(t, workspace, nil, "bash", "-c", shardCmd)
			if r.code > 1 || !strings.Contains(r.stdout, fmt.Sprintf("::notice title=shipshape::shard %d/%d: ", k, n)) {
				t.Errorf("shard %d: the run fails or its summary does not name it:\n%s", k, r)
			}
			for f, c := range jsonFindings(t, run(t, workspace, nil, "bash", "-c", asJSON(shardCmd))) {
				union[f] += c
			}
		}
		if len(whole) == 0 {
			t.Fatal("the unsharded run has no findings: the union would hold trivially")
		}
		for f, c := range whole {
			if union[f] != c {
				t.Errorf("the shards report %d times (want %d): %s", union[f], c, f)
			}
		}
		for f := range union {
			if whole[f] == 0 {
				t.Errorf("a shard's finding the unsharded run has not: %s", f)
			}
		}
	})

	t.Run("gitlab", func(t *testing.T) {
		job := onlyValue(t, gitlab).(map[string]any)
		n := job["parallel"].(int)
		var command string
		for _, s := range job["script"].([]any) {
			if strings.HasPrefix(s.(string), "shipshape lint") {
				command = s.(string)
			}
		}
		wholeCmd := strings.Replace(command, `--shard "$CI_NODE_INDEX/$CI_NODE_TOTAL" `, "", 1)
		if wholeCmd == command {
			t.Fatalf("the parallel job's lint %q: want --shard \"$CI_NODE_INDEX/$CI_NODE_TOTAL\"", command)
		}
		run(t, workspace, []string{"CI_NODE_INDEX=whole"}, "bash", "-c", wholeCmd)
		whole := testCases(t, filepath.Join(workspace, "shipshape-junit-whole.xml"))
		sum := 0
		for k := 1; k <= n; k++ {
			r := run(t, workspace, []string{fmt.Sprintf("CI_NODE_INDEX=%d", k), fmt.Sprintf("CI_NODE_TOTAL=%d", n)}, "bash", "-c", command)
			if r.code > 1 {
				t.Fatalf("shard %d/%d: %v", k, n, r)
			}
			sum += testCases(t, filepath.Join(workspace, fmt.Sprintf("shipshape-junit-%d.xml", k)))
		}
		if whole == 0 || sum != whole {
			t.Errorf("the %d jobs report %d test cases, the unsharded run %d", n, sum, whole)
		}
	})
}

// onlyValue is the one value of a one-key mapping (a workflow's job).
func onlyValue(t *testing.T, v any) any {
	t.Helper()
	m := v.(map[string]any)
	if len(m) != 1 {
		t.Fatalf("want one job, got %d", len(m))
	}
	for _, x := range m {
		return x
	}
	return nil
}

func shardsUpTo(n int) []int {
	var out []int
	for k := 1; k <= n; k++ {
		out = append(out, k)
	}
	return out
}

// jsonFindings counts a json-format run's findings, each as its JSON.
func jsonFindings(t *testing.T, r result) map[string]int {
	t.Helper()
	if r.code > 1 {
		t.Fatalf("lint: %v", r)
	}
	var rep struct {
		Findings []json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("lint --format json: %v\n%s", err, r)
	}
	out := map[string]int{}
	for _, f := range rep.Findings {
		out[string(f)]++
	}
	return out
}

// testCases counts the test cases of a JUnit report.
func testCases(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "<testcase ")
}
