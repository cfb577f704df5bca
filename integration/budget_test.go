package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAliasBombUnderMemoryCap: a lint of a tree whose kustomization lists
// the 10-level alias bomb (600 bytes, 10^9 strings once expanded) finishes
// with one finding for it under a 512 MB cap on the process's data (sh's
// ulimit -d, RLIMIT_DATA: address space cannot be capped that low for a Go
// program, which reserves more than it uses), and every other file is
// judged. Before the render budget, kustomize's library expanded it and
// the run ended in "fatal error: runtime: out of memory" with no output.
func TestAliasBombUnderMemoryCap(t *testing.T) {
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	shipshape := filepath.Join(binDir, "shipshape")
	sh := need(t, "sh", "a POSIX shell")
	dir := t.TempDir()
	var bomb strings.Builder
	bomb.WriteString("apiVersion: example.com/v1\nkind: Bomb\nmetadata:\n  name: bomb\nspec:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for i := range 9 {
		name := fmt.Sprintf("b%d", i)
		fmt.Fprintf(&bomb, "  %s: &%s [%s]\n", name, name, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", "))
		prev = name
	}
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  enabled: yes\n"
	files := map[string]string{
		"app/kustomization.yaml":   "resources:\n  - cm.yaml\n  - bomb.yaml\n",
		"app/cm.yaml":              fmt.Sprintf(cm, "app"),
		"app/bomb.yaml":            bomb.String(),
		"other/kustomization.yaml": "resources: [cm.yaml]\n",
		"other/cm.yaml":            fmt.Sprintf(cm, "other"),
		"plain.yaml":               fmt.Sprintf(cm, "plain"),
	}
	for p, src := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := run(t, dir, nil, sh, "-c", `ulimit -d 524288 && exec "$@"`, "sh", shipshape, "lint", "--format", "json", "--fail-on", "none", ".")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %.2000s", r.code, r.stderr)
	}
	var out struct {
		Findings []struct {
			Rule, File   string
			Line, Column int
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	got := map[string][]string{}
	for _, f := range out.Findings {
		got[f.File] = append(got[f.File], fmt.Sprintf("%s@%d:%d", f.Rule, f.Line, f.Column))
	}
	want := map[string]string{
		"app/bomb.yaml": "render-budget@9:32",
		"app/cm.yaml":   "ambiguous-scalar@6:12",
		"other/cm.yaml": "ambiguous-scalar@6:12",
		"plain.yaml":    "ambiguous-scalar@6:12",
	}
	for file, w := range want {
		if g := got[file]; len(g) != 1 || g[0] != w {
			t.Errorf("%s: %v, want [%s]", file, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("findings: %v", got)
	}
}
