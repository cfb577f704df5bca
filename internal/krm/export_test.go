package krm

import (
	"io"

	"github.com/shipshape-dev/shipshape/rules"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
)

// RunFramework is the reference the tests hold Run to: kyaml's own
// framework.Execute around the same processing (execute.go copies
// framework.Execute so that shipshape need not link fn/framework). Its
// reader adds no index annotations, as execute's does not: by default it
// adds them to a plain stream's objects (not a ResourceList's items), and
// they would come back in the output.
func RunFramework(r io.Reader, w io.Writer) (*Outcome, error) {
	out := &Outcome{Mode: "lint"}
	rw := &kio.ByteReadWriter{Reader: r, Writer: w, KeepReaderAnnotations: true, OmitReaderAnnotations: true}
	err := framework.Execute(framework.ResourceListProcessorFunc(func(frl *framework.ResourceList) error {
		rl := &resourceList{Items: frl.Items, FunctionConfig: frl.FunctionConfig}
		err := process(rl, out, rules.All())
		frl.Items = rl.Items
		for _, r := range rl.Results {
			fr := &framework.Result{Message: r.Message, Severity: framework.Severity(r.Severity), ResourceRef: r.ResourceRef, Tags: r.Tags}
			if r.Field != nil {
				fr.Field = &framework.Field{Path: r.Field.Path}
			}
			if r.File != nil {
				fr.File = &framework.File{Path: r.File.Path, Index: r.File.Index}
			}
			frl.Results = append(frl.Results, fr)
		}
		return err
	}), rw)
	return out, err
}

// FastPath says whether Run takes the fast path for src.
func FastPath(src []byte) bool {
	_, ok := runSplit(src, rules.All())
	return ok
}

// RunGeneral is Run's path for what the fast path does not take.
var RunGeneral = runGeneral

// SetBatchBytes makes the lint batches about n bytes of items (see
// batchBytes) until the returned func restores them.
func SetBatchBytes(n int) (restore func()) {
	old := batchBytes
	batchBytes = n
	return func() { batchBytes = old }
}

// Batches is how many batches the fast path lints src in (0: it does not
// read src).
func Batches(src []byte) int {
	b, ok := findItems(src)
	if !ok {
		return 0
	}
	n := 0
	for lo := 0; lo < len(b.entries); lo = nextBatch(src, b, lo) {
		n++
	}
	return n
}
