package krm_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/krm"
)

// A ResourceList linted batch by batch, each batch's nodes dropped before
// the next is parsed, comes out as kyaml's framework.Execute writes it
// from the whole list: the same results at the same lines, cross-resource
// findings between items of different batches included. Batches of one
// byte cut the list at every entry a batch may start at.
func TestBatchesMatchFramework(t *testing.T) {
	defer krm.SetBatchBytes(1)()
	const head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
	// A Deployment and its Service apart, with a Service that selects
	// nothing (service-no-matching-pods, cross-resource) and a ConfigMap
	// with an ambiguous value (per object) in between; two of the items
	// have a comment above them, so no batch may start there.
	const deployment = "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web%[1]d\n    annotations:\n      config.kubernetes.io/path: 'apps/web%[1]d/deploy.yaml'\n      config.kubernetes.io/index: '0'\n  spec:\n    selector:\n      matchLabels: {app: web%[1]d}\n    template:\n      metadata:\n        labels: {app: web%[1]d}\n      spec:\n        containers:\n        - name: web\n          image: web:1\n"
	const service = "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: web%[1]d\n    annotations:\n      config.kubernetes.io/path: 'apps/web%[1]d/svc.yaml'\n  spec:\n    selector: {app: %[2]s}\n    ports:\n    - port: 80\n"
	const configMap = "# the config of %[1]d\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: web%[1]d\n    annotations:\n      config.kubernetes.io/path: 'apps/web%[1]d/cm.yaml'\n      config.kubernetes.io/index: '1'\n  data:\n    on: yes\n"
	var b strings.Builder
	b.WriteString(head)
	for i := range 4 {
		fmt.Fprintf(&b, deployment, i)
	}
	for i := range 4 {
		fmt.Fprintf(&b, configMap, i)
		selects := fmt.Sprintf("web%d", i)
		if i%2 == 1 {
			selects += "-typo"
		}
		fmt.Fprintf(&b, service, i, selects)
	}
	cross := []byte(b.String())
	if !krm.FastPath(cross) {
		t.Fatal("the cross-resource list does not take the fast path")
	}
	t.Run("cross-resource across batches", func(t *testing.T) { sameInBatches(t, cross, true) })
	// The goldens' inputs (some hold one item: one batch).
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sameInBatches(t, in, false)
		})
	}
	t.Run("corpus", func(t *testing.T) {
		rl, err := corpus.ResourceList(corpus.Sample(t, corpus.Files(t), nil), 200/corpus.Stride(), true)
		if err != nil {
			t.Fatal(err)
		}
		sameInBatches(t, rl, true)
	})
}

// sameInBatches is sameAsFramework for in, which must be cut into
// batches when cut is true.
func sameInBatches(t *testing.T, in []byte, cut bool) {
	t.Helper()
	if cut {
		if n := krm.Batches(in); n < 2 {
			t.Fatalf("%d batch: the test cuts no list", n)
		}
	}
	sameAsFramework(t, in)
}
