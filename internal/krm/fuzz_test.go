package krm_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/krm"
	"github.com/shipshape-dev/shipshape/rules"
)

// FuzzResourceList feeds arbitrary bytes to the KRM function, as kustomize
// or kpt would on stdin, in lint and in fix mode. It must not panic (the
// function has no per-file recovery: a panic kills kustomize's build), it
// must finish in bounded time, and whenever it accepts the input, what it
// writes is a ResourceList that kyaml reads back with as many items, none
// dropped or added (fix mode too), and it is what kyaml's path alone
// writes (when Run took its fast path).
//
// The seed corpus is in testdata/fuzz/FuzzResourceList. Longer runs:
// go test -run '^$' -fuzz FuzzResourceList -fuzztime 10m ./internal/krm
func FuzzResourceList(f *testing.F) {
	for _, s := range []string{
		"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a, annotations: {config.kubernetes.io/path: a.yaml, config.kubernetes.io/index: '0'}}\n  data: {on: yes, b: 1.10}\n",
		"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data: {mode: fix, failOn: none}\nitems:\n- apiVersion: apps/v1\n  kind: DaemonSet\n  metadata: {name: d}\n  spec:\n    replicas: 2\n    strategy: {type: RollingUpdate}\n    template: {metadata: {labels: {a: on}}, spec: {containers: [{name: c, image: i}]}}\n",
		"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig: {apiVersion: shipshape.dev/v1alpha1, kind: ShipshapeConfig, spec: {mode: fix}}\nitems:\n- &x {apiVersion: v1, kind: List, items: [{apiVersion: v1, kind: Secret, metadata: {name: s}, data: {k: v}, type: a, type: b}]}\n- *x\n",
		"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [{apiVersion: v1, kind: Service, metadata: {name: s}, spec: {ports: [{port: eighty}]}}]\nresults: []\n",
		// The shapes the fast path (split.go) takes.
		"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n    on: yes\n# c\n- apiVersion: apps/v1\n  kind: DaemonSet\n  metadata:\n    name: d\n  spec:\n    replicas: 2\n    template:\n      metadata:\n        labels: {a: on}\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data:\n    mode: fix\n",
		"kind: ResourceList\nitems:\n  - apiVersion: v1\n    kind: Service\n    metadata:\n      name: s\n      annotations:\n        a: |\n          - x\n    spec:\n      selector: {}\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: b}\n    data: {k: 1.10}\n",
		"kind: ResourceList\nitems: {}\n",
		"apiVersion: v1\nkind: ConfigMap\n",
		"- a\n- b\n",
		"",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		if len(data) > 64<<10 {
			return
		}
		if fix {
			// Force fix mode whatever the functionConfig says.
			data = append(data, "\nfunctionConfig: {apiVersion: v1, kind: ConfigMap, data: {mode: fix}}\n"...)
		}
		in, err := (&kio.ByteReader{Reader: bytes.NewReader(data)}).Read()
		start := time.Now()
		var out bytes.Buffer
		_, runErr := krm.Run(bytes.NewReader(data), &out, rules.All())
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%d bytes took %v", len(data), d)
		}
		var ce *config.Error
		if runErr != nil && !errors.As(runErr, &ce) || err != nil {
			return // not a ResourceList kyaml reads: kyaml's error, nothing written to judge
		}
		got, err := (&kio.ByteReader{Reader: bytes.NewReader(out.Bytes())}).Read()
		if err != nil {
			t.Fatalf("%q: output is not a ResourceList kyaml reads back: %v\n%s", data, err, out.Bytes())
		}
		if len(got) != len(in) {
			t.Fatalf("%q: %d items in, %d out\n%s", data, len(in), len(got), out.Bytes())
		}
		// The fast path (split.go) must agree with kyaml's path.
		sameAsFramework(t, data)
	})
}
