package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/report"
)

// The kustomize goldens: testdata/render/<case>/ is a tree with
// kustomizations (and, beside them, plain files), and
//
//	expected.txt  `shipshape lint` of the tree: findings on rendered
//	              objects placed at the source line, with their roots
//	expected.FMT  `shipshape lint --format FMT` (json, sarif, github),
//	              where the file exists: the shape of rendered findings
//	              and of render failures in the other formats
//	fix.diff      `shipshape fix --diff` of the tree, where it fixes
//
// with the tree's .shipshape.yaml, when it has one.
//
// These are the CLI's cases: how lint prints rendered trees, roots that
// fail or are refused, and what fix writes. What a rule finds on a
// rendered tree is tested beside the rule, with `# want` comments, in
// rules/testdata/<rule-id>/render/ (see rules/README.md).
//
// Run `go test ./cmd/shipshape -run Render -update` to rewrite them, then
// read every one by eye.
func TestRenderGolden(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	dirs, err := filepath.Glob("../../testdata/render/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no render cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			// withConfig is args with the config of the tree at root.
			withConfig := func(root string, args ...string) []string {
				cfg := filepath.Join(root, ".shipshape.yaml")
				if _, err := os.Stat(cfg); err != nil {
					return args
				}
				return append([]string{args[0], "-c", cfg}, args[1:]...)
			}
			lint := runIn(t, dir, exitOK, withConfig(dir, "lint", "--fail-on", "none", dir)...)
			golden(t, filepath.Join(dir, "expected.txt"), []byte(lint))
			for _, format := range []string{report.FormatJSON, report.FormatSARIF, report.FormatGitHub} {
				path := filepath.Join(dir, "expected."+format)
				if _, err := os.Stat(path); err != nil {
					continue
				}
				out := runIn(t, dir, exitOK, withConfig(dir, "lint", "--fail-on", "none", "--format", format, dir)...)
				golden(t, path, []byte(out))
			}

			// --render none judges every file as written: round 1.
			plain := runIn(t, dir, exitOK, withConfig(dir, "lint", "--fail-on", "none", "--render", "none", dir)...)
			if strings.Contains(plain, "kustomize root") {
				t.Errorf("--render none still rendered:\n%s", plain)
			}

			diff := runIn(t, dir, exitOK, withConfig(dir, "fix", "--diff", "--fail-on", "none", dir)...)
			if diff == "" {
				if _, err := os.Stat(filepath.Join(dir, "fix.diff")); err == nil && !*update {
					t.Errorf("fix.diff exists, but fix --diff prints nothing")
				}
				return
			}
			golden(t, filepath.Join(dir, "fix.diff"), []byte(diff))

			// fix writes what --diff shows, only in the files it names, and
			// rendering again shows the fixed findings gone.
			work := t.TempDir()
			copyTree(t, dir, work)
			before := readTree(t, work)
			runIn(t, work, exitOK, withConfig(work, "fix", "--fail-on", "none", work)...)
			after := readTree(t, work)
			for name, data := range after {
				if changed := !bytes.Equal(data, before[name]); changed != strings.Contains(diff, "+++ b/"+filepath.ToSlash(name)) {
					t.Errorf("%s: changed %v, but fix --diff says otherwise", name, changed)
				}
			}
			var out bytes.Buffer
			run(withConfig(work, "lint", "--fail-on", "none", "--format", "json", work), strings.NewReader(""), &out, &out)
			if strings.Contains(out.String(), `"fixable": true`) {
				t.Errorf("fixable findings left after fix:\n%s", out.String())
			}
		})
	}
}

// A file beside a kustomization that does not list it is applied with
// none of what that kustomization builds: named alone (pre-commit), with
// its repository as context, it is not compared with the files the
// kustomization lists, as it is not when the repository is linted.
func TestNamedFileBesideBase(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	repo := t.TempDir()
	copyTree(t, "../../testdata/render/unlisted-beside-root", repo)
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The base is rendered by an overlay, into another namespace.
	if err := os.MkdirAll(filepath.Join(repo, "overlay"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "overlay", "kustomization.yaml"), []byte("namespace: kube-system\nresources:\n  - ../base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(repo, "base")
	for _, named := range [][]string{
		{repo},
		{filepath.Join(base, "node-windows.yaml")},
		{filepath.Join(base, "node.yaml")},
		{filepath.Join(base, "node.yaml"), filepath.Join(base, "node-windows.yaml")},
		{base},
	} {
		for _, mode := range []string{"auto", "none"} {
			out := runIn(t, repo, exitOK, append([]string{"lint", "--render", mode}, named...)...)
			if !strings.HasPrefix(out, "no problems") {
				t.Errorf("lint --render %s %v:\n%s", mode, named, out)
			}
		}
	}
}

// A root's render-error that a base's kustomization caused is gone once
// fix quotes the base's value: what fix reports left is what the fixed
// tree gets, for the files it did not rewrite too.
func TestFixLeavesNoStaleRenderError(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	work := t.TempDir()
	copyTree(t, "../../rules/testdata/ambiguous-scalar/render/base-undecoded", work)
	if out := runIn(t, work, exitFindings, "fix", "--check", work); !strings.HasSuffix(out, "would fix 1 finding in 1 file; 0 left\n") {
		t.Errorf("fix --check:\n%s", out)
	}
	if out := runIn(t, work, exitOK, "fix", work); !strings.HasSuffix(out, "fixed 1 finding in 1 file; 0 left\n") {
		t.Errorf("fix:\n%s", out)
	}
	if out := runIn(t, work, exitOK, "lint", work); !strings.HasPrefix(out, "no problems") {
		t.Errorf("lint after fix:\n%s", out)
	}
}
