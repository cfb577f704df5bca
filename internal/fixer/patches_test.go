package fixer

import (
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/transformers"
)

// collapseEmptied removes the mappings a deletion empties in a patch, up
// to the entries that name the patch's target, and no further than a
// list item or a mapping another edit changes.
func TestCollapseEmptied(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
		paths           []manifest.FieldPath
	}{{
		name:  "spec emptied",
		src:   "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: a\nspec:\n  updateStrategy:\n    rollingUpdate:\n      maxSurge: 1\n",
		paths: []manifest.FieldPath{manifest.Keys("spec", "updateStrategy", "rollingUpdate", "maxSurge")},
		want:  "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: a\n",
	}, {
		name:  "a sibling stays",
		src:   "kind: DaemonSet\nmetadata:\n  name: a\nspec:\n  replicas: 2\n  paused: true\n",
		paths: []manifest.FieldPath{manifest.Keys("spec", "replicas")},
		want:  "kind: DaemonSet\nmetadata:\n  name: a\nspec:\n  paused: true\n",
	}, {
		name:  "metadata is never removed",
		src:   "kind: DaemonSet\nmetadata:\n  labels:\n    a: b\n",
		paths: []manifest.FieldPath{manifest.Keys("metadata", "labels", "a")},
		want:  "kind: DaemonSet\nmetadata:\n  {}\n",
	}, {
		name:  "inside a list item",
		src:   "kind: DaemonSet\nspec:\n  containers:\n    - name: a\n      env:\n        x: 1\n",
		paths: []manifest.FieldPath{manifest.Keys("spec", "containers").Index(0).Key("env").Key("x")},
		want:  "kind: DaemonSet\nspec:\n  containers:\n    - name: a\n",
	}, {
		name:  "a list item is not removed",
		src:   "kind: DaemonSet\nspec:\n  tolerations:\n    - key: a\n",
		paths: []manifest.FieldPath{manifest.Keys("spec", "tolerations").Index(0).Key("key")},
		want:  "kind: DaemonSet\nspec:\n  tolerations:\n    - {}\n",
	}, {
		name:  "two edits of one mapping are left as they are",
		src:   "kind: DaemonSet\nspec:\n  replicas: 2\n  paused: true\n",
		paths: []manifest.FieldPath{manifest.Keys("spec", "replicas"), manifest.Keys("spec", "paused")},
		want:  "kind: DaemonSet\nspec:\n  {}\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			roots, err := manifest.DocumentRoots([]byte(tc.src))
			if err != nil || len(roots) != 1 {
				t.Fatalf("parse: %v", err)
			}
			var edits []transformers.Edit
			for _, p := range tc.paths {
				e, err := transformers.Resolve(roots[0], analysis.Edit{Op: analysis.Delete, Path: p})
				if err != nil {
					t.Fatal(err)
				}
				edits = append(edits, e)
			}
			out, err := transformers.ApplyBytes([]byte(tc.src), collapseEmptied(roots[0], edits))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out, tc.want)
			}
		})
	}
}
