package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkedDirectories: kustomize loads a base listed through a linked
// directory from the directory the link points at, and so does shipshape:
// the finding is reported once, at the file, and fixed there, whether the
// tree is named directly or through a link, the working directory is a
// link, or the file is named through the linked directory.
func TestLinkedDirectories(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(top, "repo")
	ds := "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: ds\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: ds}\n  template:\n    metadata:\n      labels: {app: ds}\n    spec:\n      containers:\n      - name: c\n        image: nginx:1.25\n"
	for name, content := range map[string]string{
		"real/base/kustomization.yaml": "resources:\n- ds.yaml\n",
		"real/base/ds.yaml":            ds,
		"app/kustomization.yaml":       "resources:\n- base\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(top, "link")
	for from, to := range map[string]string{filepath.Join(dir, "app/base"): "../real/base", link: "repo"} {
		if err := os.Symlink(to, from); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, cwd, arg, at, root string
	}{
		{"tree", dir, ".", "real/base/ds.yaml", "app"},
		{"file through the link", dir, "app/base/ds.yaml", "app/base/ds.yaml", "app"},
		{"tree named through a link", top, "link", "link/real/base/ds.yaml", "link/app"},
		{"working directory a link", link, ".", "real/base/ds.yaml", "app"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(c.cwd)
			out := runIn(t, c.cwd, exitOK, "lint", "--fail-on", "none", c.arg)
			var got []string
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, "daemonset-replicas") {
					got = append(got, line)
				}
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], c.at+":6:3: error daemonset-replicas:") || !strings.HasSuffix(got[0], "(kustomize root "+c.root+")") {
				t.Errorf("want one daemonset-replicas at %s:6:3 from root %s; got:\n%s", c.at, c.root, out)
			}
		})
	}

	// fix removes the field from the file itself, and verifies it by
	// rendering the fixed bytes again.
	t.Chdir(link)
	out := runIn(t, link, exitOK, "fix", ".")
	if !strings.Contains(out, "fixed 1 finding in 1 file") {
		t.Errorf("fix through the linked working directory:\n%s", out)
	}
	got, err := os.ReadFile(filepath.Join(dir, "real/base/ds.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(ds, "  replicas: 2\n", "", 1); string(got) != want {
		t.Errorf("real/base/ds.yaml after fix:\n%s\nwant:\n%s", got, want)
	}
	if st, err := os.Lstat(filepath.Join(dir, "app/base")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("app/base is no longer a link: %v %v", st, err)
	}
}
