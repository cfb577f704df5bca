package render

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// copyTree copies testdata/<name> to a temporary directory.
func copyTree(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	src := filepath.Join("testdata", name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// The copy is a repository, as the tree is inside shipshape's: the
	// bases beside the root named are in the run's scope (see scope.Of).
	if err := os.Mkdir(filepath.Join(dst, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// renderOne renders the one root at dir and returns the object labelled
// label (nil when absent).
func renderOne(t *testing.T, dir, label string) (*Renderer, *Result, *Object) {
	t.Helper()
	g, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Roots) != 1 {
		t.Fatalf("%s: %d roots", dir, len(g.Roots))
	}
	r := NewRenderer(g)
	res := r.RenderAll(context.Background(), g.Roots)[0]
	if res.Problem != nil {
		t.Fatal(res.Problem)
	}
	for _, o := range res.Objects {
		if o.Label() == label {
			return r, res, o
		}
	}
	return r, res, nil
}

// editLines applies edit to lines ns (1-based) of file; an edit that
// returns "\x00" deletes the line.
func editLines(t *testing.T, file string, ns []int, edit func(string) string) {
	t.Helper()
	lines := strings.Split(string(mustRead(t, file)), "\n")
	for _, n := range ns {
		lines[n-1] = edit(lines[n-1])
	}
	var out []string
	for _, l := range lines {
		if l != "\x00" {
			out = append(out, l)
		}
	}
	if err := os.WriteFile(file, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// deleteLines are the lines to delete to remove the entry at l from its
// source document: its own, and those of the parents it leaves empty (a
// strategic-merge patch whose `spec:` is left null deletes the whole
// spec: the fixer must not leave one).
func deleteLines(t *testing.T, l Location) []int {
	t.Helper()
	docs, err := manifest.DocumentRoots(mustRead(t, l.File))
	if err != nil {
		t.Fatal(err)
	}
	lines := []int{l.Line}
	for i := len(l.Path) - 1; i > 0; i-- {
		key, parent := l.Path[:i].Get(docs[l.Doc])
		if key == nil || parent.Kind != yaml.MappingNode || len(parent.Content) != 2 {
			break
		}
		lines = append(lines, key.Line)
	}
	return lines
}

// without returns o's data with the field at p removed.
func without(t *testing.T, o *Object, p Path) any {
	t.Helper()
	c := deepCopy(o.Node)
	parentPath := p[:len(p)-1]
	_, parent := parentPath.Get(c)
	for i := 0; i+1 < len(parent.Content); i += 2 {
		if parent.Content[i].Value == p[len(p)-1].Key {
			parent.Content = append(parent.Content[:i], parent.Content[i+2:]...)
			break
		}
	}
	var v any
	if err := c.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestFixCarriedToSource shows that a Location carries a fix to the
// source: each case locates a rendered field, edits the source at the
// location only (a one-line edit standing in for the fixer's appliers),
// renders the root again with a new Renderer, and checks the rendered
// field changed as intended, and nothing else in the object.
func TestFixCarriedToSource(t *testing.T) {
	cases := []struct {
		tree, root, label, path string
		edit                    func(l Location, line string) string
		check                   func(o *Object) string // "" when fixed
	}{
		{"daemonset-replicas", "overlay", "DaemonSet/node-agent", "spec.replicas",
			nil, // delete the entry
			func(o *Object) string {
				if _, v := MustParsePath("spec.replicas").Get(o.Node); v != nil {
					return "spec.replicas is still rendered"
				}
				return ""
			}},
		{"component", "overlay", "DaemonSet/node-agent", "spec.progressDeadlineSeconds",
			nil,
			func(o *Object) string {
				if _, v := MustParsePath("spec.progressDeadlineSeconds").Get(o.Node); v != nil {
					return "spec.progressDeadlineSeconds is still rendered"
				}
				return ""
			}},
		{"inline-json6902", "overlay", "DaemonSet/node-agent", "spec.strategy",
			func(l Location, line string) string { // rename in the op's path
				return strings.Replace(line, "/spec/strategy", "/spec/updateStrategy", 1)
			},
			func(o *Object) string {
				_, old := MustParsePath("spec.strategy").Get(o.Node)
				_, renamed := MustParsePath("spec.updateStrategy.type").Get(o.Node)
				if old != nil || renamed == nil || renamed.Value != "RollingUpdate" {
					return "spec.strategy not renamed to spec.updateStrategy"
				}
				return ""
			}},
		{"relabel", "overlay", "Deployment/web", "spec.template.metadata.labels.app",
			func(l Location, line string) string { return strings.Replace(line, "web-v2", "web", 1) }, // set the entry
			func(o *Object) string {
				_, v := MustParsePath("spec.template.metadata.labels.app").Get(o.Node)
				_, sel := MustParsePath("spec.selector.matchLabels.app").Get(o.Node)
				if v == nil || sel == nil || v.Value != sel.Value {
					return "the template label does not match the selector"
				}
				return ""
			}},
	}
	for _, c := range cases {
		t.Run(c.tree, func(t *testing.T) {
			dir := copyTree(t, c.tree)
			root := filepath.Join(dir, c.root)
			r, res, o := renderOne(t, root, c.label)
			if o == nil {
				t.Fatalf("no %s", c.label)
			}
			before := len(o.Node.Content)
			p := MustParsePath(c.path)
			l := r.Locate(res, o, p)
			if !l.Exact {
				t.Fatalf("not exact: %v", l)
			}
			if c.edit == nil {
				editLines(t, l.File, deleteLines(t, l), func(string) string { return "\x00" })
			} else {
				editLines(t, l.File, []int{l.Line}, func(s string) string { return c.edit(l, s) })
			}
			_, _, fixed := renderOne(t, root, c.label)
			if fixed == nil {
				t.Fatalf("%s is gone after the fix", c.label)
			}
			if msg := c.check(fixed); msg != "" {
				t.Errorf("after editing %s:%d: %s", l.File, l.Line, msg)
			}
			if c.edit == nil {
				var got any
				if err := fixed.Node.Decode(&got); err != nil {
					t.Fatal(err)
				}
				if want := without(t, o, p); !reflect.DeepEqual(got, want) {
					t.Errorf("the fix changed more than %s:\n%v\nwant\n%v", p, got, want)
				}
			} else if len(fixed.Node.Content) != before {
				t.Errorf("the object's top-level fields changed: %d, was %d", len(fixed.Node.Content), before)
			}
		})
	}
}
