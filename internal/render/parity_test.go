package render

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/corpus"
)

// TestCorpusParity renders every root of every kustomize-corpus tree
// in-process and compares each with `kustomize build` (the v5.8.2 binary):
// the same objects in the same order, each equal as YAML data; roots the
// binary cannot build offline must fail here too, for the same reason
// (the refused remote entry, or kustomize's own message). Under -race it
// samples every corpus.Stride()-th root (.ci/run runs the rest without).
func TestCorpusParity(t *testing.T) {
	dir := corpus.KustomizeDir(t)
	bin := kustomizeBinary(t)
	offline := unshareWorks()
	if !offline {
		t.Log("unshare -n is not available: roots refused for remote entries are not built with the binary (it would reach the network)")
	}
	var equal, failBoth, total int
	for _, tree := range corpusTrees(t, dir) {
		g, err := Discover([]string{tree})
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Roots) == 0 {
			t.Errorf("%s: no roots found", tree)
		}
		var roots []*Kustomization
		for i, r := range g.Roots {
			if i%corpus.Stride() == 0 {
				roots = append(roots, r)
			}
		}
		results := NewRenderer(g).RenderAll(context.Background(), roots)
		for _, res := range results {
			total++
			name := strings.TrimPrefix(res.Root.Dir, dir+"/")
			p := res.Problem
			if p != nil && p.Refused && !offline {
				t.Logf("%s: refused (%s), not built with the binary", name, p.Message)
				continue
			}
			b := kustomizeBuild(bin, res.Root.Dir, offline)
			switch {
			case p != nil && b.err == nil:
				t.Errorf("%s: kustomize builds it, shipshape does not: %v", name, p)
			case p == nil && b.err != nil:
				t.Errorf("%s: shipshape renders it, kustomize fails: %v\n%s", name, b.err, b.stderr)
			case p != nil && p.Refused:
				if !bytes.Contains(b.stderr, []byte(p.Entry)) {
					t.Errorf("%s: refused for %q, but kustomize fails for another reason:\n%s", name, p.Entry, b.stderr)
					continue
				}
				failBoth++
			case p != nil:
				if !bytes.Contains(b.stderr, []byte("Error: "+p.Message)) {
					t.Errorf("%s: shipshape fails with\n%s\nkustomize with\n%s", name, p.Message, b.stderr)
					continue
				}
				failBoth++
			default:
				if compareObjects(t, name, res.Objects, b.stdout) {
					equal++
				}
			}
		}
	}
	t.Logf("%d roots: %d render equal to kustomize build, %d fail in both for the same reason", total, equal, failBoth)
	if equal == 0 {
		t.Error("no root rendered equal to kustomize build")
	}
}

// TestLoadRestrictorParity renders a root that lists a file outside its
// directory both ways and compares with the binary run with the same
// --load-restrictor: RootOnly fails with kustomize's message, None (as
// Flux builds) renders the same objects.
func TestLoadRestrictorParity(t *testing.T) {
	bin := kustomizeBinary(t)
	tree, err := filepath.Abs("../../rules/testdata/daemonset-replicas/render/load-restrictor-none")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Discover([]string{tree})
	if err != nil || len(g.Roots) != 1 {
		t.Fatalf("want one root in %s: %v", tree, err)
	}
	for _, none := range []bool{false, true} {
		r := NewRenderer(g)
		r.LoadRestrictionsNone = none
		res := r.RenderAll(context.Background(), g.Roots)[0]
		flag := "LoadRestrictionsRootOnly"
		if none {
			flag = "LoadRestrictionsNone"
		}
		b := kustomizeBuild(bin, g.Roots[0].Dir, false, "--load-restrictor", flag)
		switch {
		case none && (res.Problem != nil || b.err != nil):
			t.Errorf("%s: shipshape: %v; kustomize: %v\n%s", flag, res.Problem, b.err, b.stderr)
		case none:
			if len(res.Objects) != 1 || !compareObjects(t, flag, res.Objects, b.stdout) {
				t.Errorf("%s: %d objects", flag, len(res.Objects))
			}
		case res.Problem == nil || b.err == nil:
			t.Errorf("%s: want both to fail on the file outside the root; shipshape: %v; kustomize: %v", flag, res.Problem, b.err)
		case !bytes.Contains(b.stderr, []byte("Error: "+res.Problem.Message)):
			t.Errorf("%s: shipshape fails with\n%s\nkustomize with\n%s", flag, res.Problem.Message, b.stderr)
		}
	}
}

// compareObjects compares rendered objects with the binary's output, in
// order, each decoded as YAML data.
func compareObjects(t *testing.T, name string, objs []*Object, out []byte) bool {
	t.Helper()
	var want []any
	dec := yaml.NewDecoder(bytes.NewReader(out))
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Errorf("%s: kustomize output does not parse: %v", name, err)
			return false
		}
		want = append(want, v)
	}
	if len(want) != len(objs) {
		t.Errorf("%s: %d objects, kustomize build gives %d", name, len(objs), len(want))
		return false
	}
	for i, o := range objs {
		var got any
		if err := o.Node.Decode(&got); err != nil {
			t.Errorf("%s: object %d: %v", name, i, err)
			return false
		}
		if !reflect.DeepEqual(got, want[i]) {
			g, _ := yaml.Marshal(got)
			w, _ := yaml.Marshal(want[i])
			t.Errorf("%s: object %d (%s) differs from kustomize build's:\n--- shipshape\n%s--- kustomize\n%s", name, i, o.Label(), g, w)
			return false
		}
	}
	return true
}
