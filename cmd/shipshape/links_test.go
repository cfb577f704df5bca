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

// TestLinkedFiles: a link to a YAML file in a directory is read, as
// kubectl apply -f DIR and Argo CD read it, once however many names reach
// the file: its objects belong to the directory of the link.
func TestLinkedFiles(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	deploy := func(name, labels string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\n  labels: {" + labels + "}\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: c\n        image: nginx:1.27\n"
	}
	for name, content := range map[string]string{
		"app/web.yaml":      deploy("web", "tier: front"),
		"shared/agent.yaml": deploy("agent", "active: yes"),
	} {
		p := filepath.Join(top, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../shared/agent.yaml", filepath.Join(top, "app/agent.yaml")); err != nil {
		t.Fatal(err)
	}
	os.Symlink("missing.yaml", filepath.Join(top, "app/dangling.yaml")) // skipped
	t.Chdir(top)
	for _, arg := range []string{".", "app"} {
		out := runIn(t, top, exitOK, "lint", "--fail-on", "none", arg)
		want := []string{
			"app/agent.yaml:5:20: error ambiguous-scalar",
			"app/agent.yaml:7:3: warning workload-selector-overlap: Deployment/agent",
			"app/web.yaml:7:3: warning workload-selector-overlap: Deployment/web",
			"1 error, 2 warnings",
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != len(want) {
			t.Fatalf("lint %s:\n%s", arg, out)
		}
		for i, w := range want {
			if !strings.HasPrefix(lines[i], w) {
				t.Errorf("lint %s, line %d: %s\nwant %s...", arg, i+1, lines[i], w)
			}
		}
	}
	// fix writes through the link to a target inside the run's scope: the
	// working directory here (in a repository, the repository), so
	// naming app alone is enough. hostile_scope_test.go has the targets
	// outside it.
	runIn(t, top, exitOK, "fix", "--fail-on", "none", "app")
	if got, _ := os.ReadFile(filepath.Join(top, "shared/agent.yaml")); !strings.Contains(string(got), `active: "yes"`) {
		t.Errorf("shared/agent.yaml after fix .:\n%s", got)
	}
	if st, err := os.Lstat(filepath.Join(top, "app/agent.yaml")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("app/agent.yaml is no longer a link: %v %v", st, err)
	}
}
