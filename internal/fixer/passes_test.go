package fixer

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

// A fix that lets a root render uncovers what the root's patch adds; the
// next pass fixes that, so one `fix` leaves nothing fixable.
func TestFilesFixesWhatAFixUncovers(t *testing.T) {
	for _, dry := range []bool{false, true} {
		dir := t.TempDir()
		src := filepath.Join("..", "..", "rules", "testdata", "ambiguous-scalar", "render", "fix-unmasks")
		if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		orig := readAll(t, dir)
		res, fixed := fixTree(t, dir, dry)
		var applied []string
		outs := map[string]*FileFix{}
		for _, o := range fixed {
			if o.Err != nil {
				t.Fatalf("dry %v: %s: %v", dry, o.Path, o.Err)
			}
			outs[filepath.Base(o.Path)] = o
			for _, fd := range o.Applied {
				applied = append(applied, filepath.Base(o.Path)+" "+fd.Rule)
			}
		}
		slices.Sort(applied)
		if want := []string{"kustomization.yaml ambiguous-scalar", "patch.yaml daemonset-max-surge"}; !slices.Equal(applied, want) {
			t.Errorf("dry %v: applied %q, want %q", dry, applied, want)
		}
		for _, fd := range res.Findings {
			t.Errorf("dry %v: left %s:%d: %s %s", dry, fd.File, fd.Line, fd.Rule, fd.Message)
		}
		patch := outs["patch.yaml"]
		if patch == nil || strings.Contains(string(patch.Out), "maxSurge") || string(patch.Orig) != orig["prod/patch.yaml"] {
			t.Fatalf("dry %v: patch.yaml outcome %+v", dry, patch)
		}
		after := readAll(t, dir)
		for name, data := range orig {
			path := filepath.Join(dir, name)
			want := data
			if o := outs[filepath.Base(name)]; !dry && o != nil && o.Path == path {
				want = string(o.Out)
			}
			if after[name] != want {
				t.Errorf("dry %v: %s on disk:\n%s", dry, name, after[name])
			}
		}
	}
}

// fixTree does what `shipshape fix` does to the tree at dir: lint it,
// rendering its kustomize roots, then the fix driver.
func fixTree(t *testing.T, dir string, dry bool) (*engine.Result, []*FileFix) {
	t.Helper()
	eng, err := engine.New(rules.All(), &config.Config{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng.KeepSource = true
	var werrs []manifest.WalkError
	res := eng.RunTree([]string{dir}, manifest.Walk([]string{dir}, &werrs))
	return res, Files(eng, res, Options{DryRun: dry, Roots: []string{dir}})
}

func readAll(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// What a fix uncovers and cannot fix is left, written or not: --check and
// --diff count it as fix does.
func TestFilesLeavesWhatAFixUncovers(t *testing.T) {
	files := map[string]string{
		"kustomization.yaml": "resources:\n- deploy.yaml\ncommonLabels:\n  active: yes\npatches:\n- target:\n    kind: Deployment\n  patch: |\n    - op: add\n      path: /spec/template/metadata/labels/version\n      value: 1.10\n",
		"deploy.yaml":        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n",
	}
	for _, dry := range []bool{false, true} {
		dir := t.TempDir()
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, _ := fixTree(t, dir, dry)
		var left []string
		for _, fd := range res.Findings {
			left = append(left, fmt.Sprintf("%s:%d:%d %s fixable=%v", filepath.Base(fd.File), fd.Line, fd.Column, fd.Rule, fd.Fixable()))
		}
		if want := []string{"kustomization.yaml:11:14 ambiguous-scalar fixable=false"}; !slices.Equal(left, want) {
			t.Errorf("dry %v: left %q, want %q", dry, left, want)
		}
	}
}
