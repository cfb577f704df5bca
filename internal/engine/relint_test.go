package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

// TestRelintTree checks Relint's shortcut for a tree (the files a fix
// changed linted again, the rendered roots kept) against linting and
// rendering the whole tree again with the new bytes, which is what it
// stands for; and that the shortcut is taken only when no kustomization
// reads a changed file.
func TestRelintTree(t *testing.T) {
	dir := filepath.Join("testdata", "relint")
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	daemonset, service, deploy := read("plain/daemonset.yaml"), read("plain/service.yaml"), read("app/deploy.yaml")
	edit := func(src, old, new string) string {
		if !strings.Contains(src, old) {
			t.Fatalf("%q not in the fixture", old)
		}
		return strings.Replace(src, old, new, 1)
	}
	tests := []struct {
		name     string
		changed  map[string]string // file under dir -> new bytes
		shortcut bool
	}{
		{"plain file fixed", map[string]string{
			"plain/daemonset.yaml": edit(daemonset, "  replicas: 1\n", ""),
		}, true},
		{"plain Service now selects nothing", map[string]string{
			"plain/service.yaml": edit(service, "{app: agent}", "{app: agent, active: \"no\"}"),
		}, true},
		// The closest template is the rendered Deployment, with the label
		// the root's `labels` adds.
		{"plain Service next to the rendered pods", map[string]string{
			"plain/service.yaml": edit(service, "{app: agent}", "{team: web, tier: x}"),
		}, true},
		{"two plain files", map[string]string{
			"plain/daemonset.yaml": edit(daemonset, "active: yes", "active: \"yes\""),
			"plain/service.yaml":   edit(service, "{app: agent}", "{app: agent, tier: x}"),
		}, true},
		{"a file the root reads", map[string]string{
			"app/deploy.yaml": edit(deploy, "version: 1.10", "version: \"1.10\""),
		}, false},
		{"both", map[string]string{
			"app/deploy.yaml":      edit(deploy, "{app: web, version: 1.10}", "{app: api, version: 1.10}"),
			"plain/daemonset.yaml": edit(daemonset, "  replicas: 1\n", ""),
		}, false},
	}
	e, err := New(rules.All(), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.KeepSource = true
	paths := []string{dir}
	inputs, _ := manifest.Collect(paths)
	res := e.RunTree(paths, slices.Values(inputs))
	before := describe(res)
	if !strings.Contains(before, "daemonset-replicas") {
		t.Fatalf("the fixture should give findings, got:\n%s", before)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			changed := map[string][]byte{}
			for name, data := range tc.changed {
				changed[filepath.Join(dir, name)] = []byte(data)
			}
			if got := res.tree.unread(changed); got != tc.shortcut {
				t.Fatalf("shortcut taken: %v, want %v", got, tc.shortcut)
			}
			got := describe(e.Relint(res, changed))
			want := describe(e.runTree(res.tree.paths, res.tree.inputs, changed, e.discover(res.tree.paths)))
			if got != want {
				t.Errorf("Relint:\n%s\nlinting the whole tree again:\n%s", got, want)
			}
			if got == before {
				t.Errorf("the change changed no finding: the case tests nothing")
			}
			if after := describe(res); after != before {
				t.Errorf("Relint changed the result it was given:\n%s\nwas:\n%s", after, before)
			}
		})
	}
}

// describe writes what a run reports, file by file.
func describe(res *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d resources\n", res.Resources)
	for _, fr := range res.Files {
		fmt.Fprintf(&b, "%s:\n", fr.Input.Path)
		for _, f := range fr.Findings {
			fmt.Fprintf(&b, "  %d:%d %s %s %s roots=%v fixable=%v\n", f.Line, f.Column, f.Severity, f.Rule, f.Message, f.Roots, f.Fixable())
		}
	}
	fmt.Fprintf(&b, "%d findings\n", len(res.Findings))
	return b.String()
}
