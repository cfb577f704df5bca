package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// yamlBlocks returns the ```yaml blocks of a Markdown file.
func yamlBlocks(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// The workflow of docs/ci.md: it runs once per change (pull_request, and
// push to main only), and its Action step, run as the runner runs it on a
// workspace with a deploy/ directory, lints and writes the SARIF report it
// uploads. The pre-commit example names hooks .pre-commit-hooks.yaml has.
func TestDocsCIExamples(t *testing.T) {
	t.Parallel()
	need(t, "go", "Go is on the machine image")
	var workflow, precommit, gitlab map[string]any
	for _, block := range yamlBlocks(t, filepath.Join(root, "docs", "ci.md")) {
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
			t.Fatalf("docs/ci.md: a yaml block does not parse: %v\n%s", err, block)
		}
		switch {
		case strings.Contains(block, "--shard"):
			// The shard examples: TestDocsCIShards.
		case doc["jobs"] != nil:
			workflow = doc
		case doc["repos"] != nil:
			precommit = doc
		case doc["shipshape"] != nil:
			gitlab = doc
		}
	}
	if workflow == nil || precommit == nil || gitlab == nil {
		t.Fatalf("docs/ci.md: want a GitHub workflow, a GitLab job and a pre-commit config")
	}

	on, _ := workflow["on"].(map[string]any)
	push, _ := on["push"].(map[string]any)
	if _, ok := on["pull_request"]; !ok || push == nil || strings.Join(toStrings(push["branches"]), ",") != "main" {
		t.Errorf("workflow on: %v; want pull_request and push to main", on)
	}
	var with map[string]string
	for _, job := range workflow["jobs"].(map[string]any) {
		for _, s := range job.(map[string]any)["steps"].([]any) {
			step := s.(map[string]any)
			uses, _ := step["uses"].(string)
			if !strings.HasPrefix(uses, "shipshape-dev/shipshape@") {
				continue
			}
			if !regexp.MustCompile(`@(<commit>|[0-9a-f]{40}|v[0-9][0-9.]*)$`).MatchString(uses) {
				t.Errorf("the workflow uses %s: want @<commit> (a placeholder), a commit or a tag", uses)
			}
			with = map[string]string{}
			for k, v := range step["with"].(map[string]any) {
				with[k] = v.(string)
			}
		}
	}
	if with == nil {
		t.Fatal("the workflow has no shipshape-dev/shipshape step")
	}

	workspace := t.TempDir()
	testtree.Copy(t, example("base"), filepath.Join(workspace, "deploy"))
	run := runAction(t, workspace, with)
	lint := run.step(t, "shipshape lint")
	if lint.result.code != 1 {
		t.Fatalf("the docs' workflow on deploy/ with findings: %v", lint.result)
	}
	wantAll(t, "annotations", lint.result.stdout, "::error file=deploy/node-agent.yaml,line=7,col=3,title=daemonset-replicas::")
	upload := run.step(t, "upload SARIF to code scanning")
	if upload.skipped {
		t.Fatal("the docs' workflow asks for SARIF; the upload was skipped")
	}
	if _, err := os.Stat(filepath.Join(workspace, upload.with["sarif_file"])); err != nil {
		t.Errorf("the SARIF report the upload reads: %v", err)
	}

	hooksData, err := os.ReadFile(filepath.Join(root, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID string `yaml:"id"`
	}
	if err := yaml.Unmarshal(hooksData, &hooks); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, h := range hooks {
		ids[h.ID] = true
	}
	for _, r := range precommit["repos"].([]any) {
		for _, h := range r.(map[string]any)["hooks"].([]any) {
			if id := h.(map[string]any)["id"].(string); !ids[id] {
				t.Errorf("docs/ci.md's pre-commit config names hook %q, which .pre-commit-hooks.yaml does not have", id)
			}
		}
	}
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
