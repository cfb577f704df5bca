package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFixGolden copies each testdata/fix/<case>/in.yaml to a temporary
// directory, runs `shipshape fix` on it and compares the result byte for
// byte with out.yaml. A second run must change nothing.
func TestFixGolden(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	dirs, _ := filepath.Glob("../../testdata/fix/*")
	if len(dirs) == 0 {
		t.Fatal("no fix cases")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(dir, "in.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			path := filepath.Join(tmp, "in.yaml")
			if err := os.WriteFile(path, in, 0o640); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			run([]string{"fix", "--fail-on", "none", path}, strings.NewReader(""), &stdout, &stderr)
			if stderr.Len() > 0 {
				t.Fatalf("stderr: %s", stderr.String())
			}
			got, _ := os.ReadFile(path)
			golden(t, filepath.Join(dir, "out.yaml"), got)

			st, _ := os.Stat(path)
			if st.Mode().Perm() != 0o640 {
				t.Errorf("mode changed to %v", st.Mode().Perm())
			}
			stdout.Reset()
			run([]string{"fix", "--check", "--fail-on", "none", path}, strings.NewReader(""), &stdout, &stderr)
			if again, _ := os.ReadFile(path); !bytes.Equal(again, got) {
				t.Errorf("second fix changed the file")
			}
			if code := run([]string{"fix", "--check", "--fail-on", "none", path}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
				t.Errorf("fix --check after fix: exit %d, want 0: %s", code, stdout.String())
			}
		})
	}
}

func TestFixLeavesCleanFilesAlone(t *testing.T) {
	tmp := t.TempDir()
	path := filepath.Join(tmp, "clean.yaml")
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: clean\ndata:\n  a: \"yes\"\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"fix", path}, strings.NewReader(""), &out, &out); code != exitOK {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	st, _ := os.Stat(path)
	if !st.ModTime().Equal(old) {
		t.Errorf("clean file was rewritten (mtime %v, want %v)", st.ModTime(), old)
	}
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestFixCheckAndDiff(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	tmp := t.TempDir()
	path := filepath.Join(tmp, "web.yaml")
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: yes\n"
	os.WriteFile(path, []byte(src), 0o644)

	var out, errb bytes.Buffer
	if code := run([]string{"fix", "--check", path}, strings.NewReader(""), &out, &errb); code != exitFindings {
		t.Errorf("--check with a fix to make: exit %d, want 1", code)
	}
	if !strings.Contains(out.String(), "would fix "+path+":6: ambiguous-scalar") {
		t.Errorf("--check output: %s", out.String())
	}
	out.Reset()
	if code := run([]string{"fix", "--diff", path}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Errorf("--diff: exit %d, want 0", code)
	}
	name := strings.TrimPrefix(filepath.ToSlash(path), "/")
	wantDiff := "--- a/" + name + "\n+++ b/" + name + "\n@@ -3,4 +3,4 @@\n metadata:\n   name: web\n data:\n-  a: yes\n+  a: \"yes\"\n"
	if out.String() != wantDiff {
		t.Errorf("--diff output:\n%s\nwant:\n%s", out.String(), wantDiff)
	}
	if got, _ := os.ReadFile(path); string(got) != src {
		t.Errorf("--check/--diff wrote the file")
	}
}

// TestFixDiffPaths: the headers of fix --diff name each file as git diff
// --no-index does, so that git apply -p1 takes the diff: a relative path
// as it was given, an absolute one without its leading slash (run from /),
// which git apply would otherwise reject as an invalid path.
func TestFixDiffPaths(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir, other := filepath.Join(top, "w"), filepath.Join(top, "other")
	for _, d := range []string{dir, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "cm.yaml")
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  ver: 1.10\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	abs := strings.TrimPrefix(filepath.ToSlash(path), "/")
	for _, c := range []struct {
		name, cwd, arg, want string
	}{
		{"relative", dir, "cm.yaml", "cm.yaml"},
		{"dot slash", dir, "./cm.yaml", "./cm.yaml"},
		{"dot dot", other, "../w/cm.yaml", "../w/cm.yaml"},
		{"directory", dir, ".", "cm.yaml"},
		{"absolute", other, path, abs},
		{"absolute directory", other, dir, abs},
		{"absolute, two leading slashes", other, "/" + path, abs},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(c.cwd)
			var out, errb bytes.Buffer
			if code := run([]string{"fix", "--diff", c.arg}, strings.NewReader(""), &out, &errb); code != exitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if want := "--- a/" + c.want + "\n+++ b/" + c.want + "\n@@ "; !strings.HasPrefix(out.String(), want) {
				t.Errorf("fix --diff %s:\n%s\nwant headers:\n%s", c.arg, out.String(), want)
			}
		})
	}
}

func TestFixStdin(t *testing.T) {
	var out, errb bytes.Buffer
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: on # keep\n"
	code := run([]string{"fix", "-"}, strings.NewReader(src), &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if want := strings.Replace(src, "a: on", "a: \"on\"", 1); out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
	if !strings.Contains(errb.String(), "fixed 1 finding") {
		t.Errorf("stderr: %s", errb.String())
	}
}

// fix --diff prints the patch alone on stdout; when findings it cannot
// fix make it exit 1, stderr says so.
func TestFixDiffSaysWhatIsLeft(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	dir := t.TempDir()
	src := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  selector:\n    matchLabels: {app: a}\n  template:\n    metadata:\n      labels: {app: b}\n    spec:\n      containers: [{name: app, image: nginx:1.27}]\n"
	if err := os.WriteFile(filepath.Join(dir, "deploy.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"fix", "--diff", dir}, strings.NewReader(""), &stdout, &stderr)
	if code != exitFindings || stdout.Len() != 0 || stderr.String() != "1 finding left that this diff does not fix (shipshape lint lists them)\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"fix", "--diff", "--fail-on", "none", dir}, strings.NewReader(""), &stdout, &stderr); code != exitOK || stderr.Len() != 0 {
		t.Errorf("--fail-on none: exit %d, stderr %q", code, stderr.String())
	}
	// A warning left too: the count is lint's, and says which fail.
	warned := strings.Replace(src, "  name: app\n", "  name: app\n  name: app\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "deploy.yaml"), []byte(warned), 0o644); err != nil {
		t.Fatal(err)
	}
	for failOn, want := range map[string]string{
		"error":   "2 findings left that this diff does not fix, 1 at --fail-on error or above (shipshape lint lists them)\n",
		"warning": "2 findings left that this diff does not fix (shipshape lint lists them)\n",
	} {
		stderr.Reset()
		if code := run([]string{"fix", "--diff", "--fail-on", failOn, dir}, strings.NewReader(""), &stdout, &stderr); code != exitFindings || stderr.String() != want {
			t.Errorf("--fail-on %s: exit %d, stderr %q", failOn, code, stderr.String())
		}
	}
}
