package transformers_test

import (
	"bytes"
	"fmt"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
	"github.com/shipshape-dev/shipshape/transformers"
)

// Run with: go test -run '^$' -bench . -benchmem ./transformers/
// The two appliers on the edits the rules make: a 50-document stream in
// which every document has a quote, two deletes and a rename, and the
// corpus files that have something to fix.

func streamSource() []byte {
	var src bytes.Buffer
	for i := range 50 {
		fmt.Fprintf(&src, "---\n# agent %d\napiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent-%d\n  labels:\n    active: yes\nspec:\n  replicas: 3 # one per node\n  paused: false\n  strategy:\n    type: RollingUpdate\n  selector:\n    matchLabels: {app: agent-%d}\n  template:\n    metadata:\n      labels: {app: agent-%d}\n    spec:\n      containers:\n      - name: agent\n        image: example/agent:1.0\n        args: [--debug, true]\n", i, i, i, i)
	}
	return src.Bytes()
}

type fixCase struct {
	name string
	src  []byte
	docs int
}

// edits parses src and returns the edits of every fixable finding, on
// freshly parsed nodes.
func edits(b *testing.B, eng *engine.Engine, c fixCase) ([]transformers.Edit, *manifest.File) {
	f := manifest.Parse(c.name, c.src, manifest.Context{})
	var es []transformers.Edit
	for _, fd := range eng.Lint(f) {
		if fd.Fix == nil {
			continue
		}
		for _, obj := range f.Objects {
			if obj.Doc != fd.Doc || obj.Item != fd.Item {
				continue
			}
			for _, e := range fd.Fix.Edits {
				r, err := transformers.Resolve(obj.Node, e)
				if err != nil {
					b.Fatal(err)
				}
				es = append(es, r)
			}
		}
	}
	return es, f
}

func cases(b *testing.B, eng *engine.Engine, withCorpus bool) []fixCase {
	cs := []fixCase{{name: "stream.yaml", src: streamSource()}}
	if withCorpus {
		for _, f := range corpus.Files(b) {
			c := fixCase{name: f.Path, src: f.Data}
			if es, _ := edits(b, eng, c); len(es) > 0 {
				cs = append(cs, c)
			}
		}
	}
	for i := range cs {
		_, f := edits(b, eng, cs[i])
		cs[i].docs = f.Docs
	}
	return cs
}

func BenchmarkApplyBytesStream(b *testing.B) { benchBytes(b, false) }
func BenchmarkApplyBytesCorpus(b *testing.B) { benchBytes(b, true) }

func benchBytes(b *testing.B, withCorpus bool) {
	eng, _ := engine.New(rules.All(), nil, nil, nil)
	cs := cases(b, eng, withCorpus)
	if withCorpus {
		cs = cs[1:]
	}
	var es [][]transformers.Edit
	var srcs [][]byte
	docs, n := 0, 0
	for _, c := range cs {
		e, f := edits(b, eng, c)
		es, srcs = append(es, e), append(srcs, f.Src)
		docs += c.docs
		n += len(e)
	}
	corpus.PerUnit(b, docs, "doc", func() {
		for i := range es {
			if _, err := transformers.ApplyBytes(srcs[i], es[i]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(n), "edits")
}

// BenchmarkApplyNodesStream applies the stream's edits to its node tree.
// The applier mutates the nodes, so every round gets a deep copy, made
// 256 rounds at a time outside the timer.
func BenchmarkApplyNodesStream(b *testing.B) {
	eng, _ := engine.New(rules.All(), nil, nil, nil)
	c := cases(b, eng, false)[0]
	es, f := edits(b, eng, c)
	var pool [][]transformers.Edit
	b.ReportAllocs()
	for b.Loop() {
		if len(pool) == 0 {
			b.StopTimer()
			for range 256 {
				pool = append(pool, cloneEdits(f, es))
			}
			b.StartTimer()
		}
		next := pool[len(pool)-1]
		pool = pool[:len(pool)-1]
		if err := transformers.ApplyNodes(next); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.docs), "ns/doc")
	b.ReportMetric(float64(len(es)), "edits")
}

// cloneEdits deep-copies the file's objects and points copies of the
// edits at the copied nodes.
func cloneEdits(f *manifest.File, es []transformers.Edit) []transformers.Edit {
	m := map[*yaml.Node]*yaml.Node{}
	var clone func(n *yaml.Node) *yaml.Node
	clone = func(n *yaml.Node) *yaml.Node {
		c := *n
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, k := range n.Content {
			c.Content[i] = clone(k)
		}
		m[n] = &c
		return &c
	}
	for _, o := range f.Objects {
		clone(o.Node)
	}
	out := make([]transformers.Edit, len(es))
	for i, e := range es {
		if e.Parent != nil {
			e.Parent = m[e.Parent]
		}
		if e.Node != nil {
			e.Node = m[e.Node]
		}
		out[i] = e
	}
	return out
}
