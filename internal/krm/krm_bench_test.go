package krm_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/krm"
)

// Run with: go test -run '^$' -bench . -benchmem ./internal/krm/
// `shipshape fn` on a 1000-item ResourceList (issue 6: at most 100 ms per
// process; scripts/bench measures the process, this the function itself).

const items = 1000

// resourceList builds a ResourceList of n items taken evenly from the
// corpus objects (CRDs left out, as scripts/bench does), with the given
// functionConfig text appended.
func resourceList(b *testing.B, n int, functionConfig string) []byte {
	var objs []*yaml.Node
	for _, f := range corpus.Files(b) {
		dec := yaml.NewDecoder(bytes.NewReader(f.Data))
		for {
			var doc yaml.Node
			if dec.Decode(&doc) != nil {
				break
			}
			if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
				continue
			}
			m := doc.Content[0]
			kind := ""
			for i := 0; i+1 < len(m.Content); i += 2 {
				if m.Content[i].Value == "kind" {
					kind = m.Content[i+1].Value
				}
			}
			if kind != "" && kind != "CustomResourceDefinition" && !strings.HasSuffix(kind, "List") {
				objs = append(objs, m)
			}
		}
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for i := range n {
		seq.Content = append(seq.Content, objs[i*len(objs)/n%len(objs)])
	}
	var buf bytes.Buffer
	buf.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "items"}, seq,
	}}); err != nil {
		b.Fatal(err)
	}
	buf.WriteString(functionConfig)
	return buf.Bytes()
}

func benchRun(b *testing.B, functionConfig string) {
	in := resourceList(b, items, functionConfig)
	b.SetBytes(int64(len(in)))
	corpus.PerUnit(b, items, "item", func() {
		if _, err := krm.Run(bytes.NewReader(in), io.Discard); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkFnLint(b *testing.B) { benchRun(b, "") }

func BenchmarkFnFix(b *testing.B) {
	benchRun(b, fmt.Sprintf("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: shipshape\n  data:\n    mode: fix\n"))
}
