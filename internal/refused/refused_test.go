package refused

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// casesDir holds one directory per case: base.yaml, head.yaml (one object
// each) and verdict.txt: "refused", "accepted" or "controller-refuses"
// on its first line, then the refused field paths. The control-plane
// suite (controlplane/transition_test.go) applies the same cases to a
// real API server and holds the verdicts to it.
const casesDir = "../../testdata/transition"

type transitionCase struct {
	name       string
	base, head *manifest.Object
	verdict    string
	paths      []string
}

func loadObject(t *testing.T, path string) *manifest.Object {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := manifest.Parse(path, data, manifest.Context{})
	if len(f.Objects) != 1 {
		t.Fatalf("%s: %d objects, want 1", path, len(f.Objects))
	}
	return f.Objects[0]
}

func loadCases(t *testing.T) []transitionCase {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(casesDir, "*", "verdict.txt"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases in %s: %v", casesDir, err)
	}
	var out []transitionCase
	for _, v := range dirs {
		dir := filepath.Dir(v)
		data, err := os.ReadFile(v)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Fields(string(data))
		out = append(out, transitionCase{
			name:    filepath.Base(dir),
			base:    loadObject(t, filepath.Join(dir, "base.yaml")),
			head:    loadObject(t, filepath.Join(dir, "head.yaml")),
			verdict: lines[0],
			paths:   lines[1:],
		})
	}
	return out
}

// Every case's verdict: the refused paths and where they are refused; the
// controls (image bump, template change, CronJob jobTemplate, defaults
// written out, LWS size) give nothing.
func TestCases(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			if !Checked(c.head.Resource) {
				if c.verdict != "accepted" {
					t.Fatalf("%s has no check", c.head.Kind)
				}
			}
			got := Check(c.base, c.head)
			var paths []string
			for _, r := range got {
				paths = append(paths, r.Path.String())
				wantStage := AtApply
				if c.verdict == "controller-refuses" {
					wantStage = ByController
				}
				if r.Stage != wantStage || r.Reason == "" || !strings.Contains(r.Mirrors, "Validate") {
					t.Errorf("%s: stage %v reason %q mirrors %q", r.Path, r.Stage, r.Reason, r.Mirrors)
				}
			}
			sort.Strings(paths)
			want := append([]string(nil), c.paths...)
			sort.Strings(want)
			if !reflect.DeepEqual(paths, want) {
				t.Errorf("refused %v, want %v (verdict %s)", paths, want, c.verdict)
			}
			if (c.verdict == "accepted") != (len(got) == 0) {
				t.Errorf("verdict %s but %d refusals", c.verdict, len(got))
			}
			// Nothing changes, nothing is refused.
			if same := Check(c.base, c.base); len(same) != 0 {
				t.Errorf("base against itself: %v", same)
			}
		})
	}
}

func TestPullPolicyFor(t *testing.T) {
	for image, want := range map[string]string{
		"nginx": "Always", "nginx:latest": "Always", "nginx:1.25": "IfNotPresent",
		"localhost:5000/app": "Always", "localhost:5000/app:v1": "IfNotPresent",
		"nginx@sha256:abc": "IfNotPresent",
	} {
		if got := pullPolicyFor(image); got != want {
			t.Errorf("%s: %s, want %s", image, got, want)
		}
	}
}

// YAML 1.1 as kubectl reads it: `immutable: yes` is true.
func TestYAML11Immutable(t *testing.T) {
	dir := t.TempDir()
	write := func(name, value string) *manifest.Object {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nimmutable: yes\ndata:\n  k: "+value+"\n"), 0o644)
		return loadObject(t, p)
	}
	got := Check(write("a.yaml", "one"), write("b.yaml", "two"))
	if len(got) != 1 || got[0].Path.String() != "data.k" {
		t.Errorf("got %v", got)
	}
}

// Kinds without a check, patches and a kind change give nothing.
func TestNotChecked(t *testing.T) {
	c := loadCases(t)[0]
	other := *c.head
	other.Kind = "Widget"
	if got := Check(c.base, &other); got != nil {
		t.Errorf("kind change: %v", got)
	}
	partial := *c.head
	partial.Partial = true
	if got := Check(c.base, &partial); got != nil {
		t.Errorf("patch: %v", got)
	}
}
