package krm_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/krm"
	"github.com/shipshape-dev/shipshape/rules"
)

// Run with: go test -run '^$' -bench . -benchmem ./internal/krm/
// `shipshape fn` on a 1000-item ResourceList (issue 6: at most 100 ms per
// process; scripts/bench measures the process, this the function itself).

const items = 1000

// resourceList is a ResourceList of n corpus objects (as scripts/bench
// builds it) with the given functionConfig text appended.
func resourceList(b *testing.B, n int, functionConfig string) []byte {
	rl, err := corpus.ResourceList(corpus.Files(b), n, false)
	if err != nil {
		b.Fatal(err)
	}
	return append(rl, functionConfig...)
}

func benchRun(b *testing.B, functionConfig string) {
	in := resourceList(b, items, functionConfig)
	b.SetBytes(int64(len(in)))
	corpus.PerUnit(b, items, "item", func() {
		if _, err := krm.Run(bytes.NewReader(in), io.Discard, rules.All()); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkFnLint(b *testing.B) { benchRun(b, "") }

func BenchmarkFnFix(b *testing.B) {
	benchRun(b, fmt.Sprintf("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: shipshape\n  data:\n    mode: fix\n"))
}
