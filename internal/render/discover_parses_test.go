package render

import (
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/cache"
)

// A kept parse is the tree yaml.Unmarshal builds, field for field and
// alias for anchor, whether parsed this run or read back in the next.
func TestKeptParses(t *testing.T) {
	srcs := []string{
		"# head\nresources:\n- a.yaml # line\n- ../base\n\n# foot\n",
		"labels: &l {app: web}\ncommonLabels: *l\npatches:\n- path: p.yaml\n  target: {kind: Deployment}\n",
		"resources: [\"quoted\", 'single', plain]\nimages:\n- name: x\n  newTag: \"1.10\"\n",
		"",
	}
	store := cache.Open(t.TempDir())
	for run := range 2 {
		kept := openParses(store, "/scope")
		for _, src := range srcs {
			var want yaml.Node
			if err := yaml.Unmarshal([]byte(src), &want); err != nil {
				t.Fatal(err)
			}
			got, err := kept.parse([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, &want) {
				t.Fatalf("run %d: the kept parse of %q differs", run, src)
			}
			if alias := findAlias(got); alias != nil && alias.Alias != got.Content[0].Content[1] {
				t.Fatalf("run %d: the alias does not point at its anchor", run)
			}
		}
		if run == 1 && kept.pack.Changed() {
			t.Fatal("the second run parsed again")
		}
		kept.save()
	}
	// A file that does not parse says why, as yaml.Unmarshal does.
	if _, err := openParses(store, "/scope").parse([]byte("resources: [unclosed\n")); err == nil {
		t.Fatal("broken YAML parsed")
	}
}

func findAlias(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.AliasNode {
		return n
	}
	for _, c := range n.Content {
		if a := findAlias(c); a != nil {
			return a
		}
	}
	return nil
}
