package krm

// The general path's protocol: kyaml's framework.Execute, step by step,
// on kyaml's kio reader and writer. The fn/framework package itself is not
// linked: its imports (kube-openapi's validators and string formats,
// kyaml's embedded OpenAPI schema) cost about 1.5 ms of package init in
// every shipshape process, pre-commit's lint of one file included, for
// types and a 40-line function. The tests run kyaml's own
// framework.Execute beside this one and compare what they write.

import (
	"bytes"
	"fmt"
	"io"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Result is one entry of a ResourceList's results: framework.Result's
// fields under the same YAML names (Field's current and proposed values
// are not used).
type Result struct {
	Message     string                   `yaml:"message,omitempty" json:"message,omitempty"`
	Severity    Severity                 `yaml:"severity,omitempty" json:"severity,omitempty"`
	ResourceRef *yaml.ResourceIdentifier `yaml:"resourceRef,omitempty" json:"resourceRef,omitempty"`
	Field       *Field                   `yaml:"field,omitempty" json:"field,omitempty"`
	File        *File                    `yaml:"file,omitempty" json:"file,omitempty"`
	Tags        map[string]string        `yaml:"tags,omitempty" json:"tags,omitempty"`
}

// Severity is a result's severity, as the KRM functions specification
// spells it.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Field is the field of the resource a result is about.
type Field struct {
	Path string `yaml:"path,omitempty" json:"path,omitempty"`
}

// File is the file the resource came from, and its index there.
type File struct {
	Path  string `yaml:"path,omitempty" json:"path,omitempty"`
	Index int    `yaml:"index,omitempty" json:"index,omitempty"`
}

// resourceList is what the function works on.
type resourceList struct {
	Items          []*yaml.RNode
	FunctionConfig *yaml.RNode
	Results        []*Result
}

// execute reads a ResourceList from r, runs process on it and writes it to
// w, as framework.Execute does: kustomize's and kpt's tracking annotations
// are migrated before and reconciled after, results are written when there
// are any, and the list is written even when process fails (its error is
// returned after).
//
// Unlike framework.Execute, it writes nothing when kyaml cannot read back
// what its encoder wrote: yaml.v3 reads the tag `!%21` as `!!` and writes
// it so, which no reader accepts, and kustomize would fail on the output
// with a message about shipshape's YAML rather than the input's.
func execute(r io.Reader, w io.Writer, process func(*resourceList) error) error {
	var buf bytes.Buffer
	err := executeTo(r, &buf, process)
	if buf.Len() == 0 {
		return err
	}
	if _, rerr := (&kio.ByteReader{Reader: bytes.NewReader(buf.Bytes())}).Read(); rerr != nil {
		return fmt.Errorf("cannot write the ResourceList back: kyaml's encoder wrote YAML that kyaml cannot read (%w); nothing was written", rerr)
	}
	if _, werr := w.Write(buf.Bytes()); werr != nil {
		return werr
	}
	return err
}

func executeTo(r io.Reader, w io.Writer, process func(*resourceList) error) error {
	// Unlike framework.Execute, the reader adds no index annotations: on a
	// ResourceList they would go on the list itself, which is dropped, but
	// a plain stream of objects (not a ResourceList) would come back with
	// config.kubernetes.io/index annotations it did not have. For the same
	// reason a plain stream skips the annotation migration, which copies
	// legacy annotations to their new names and back: its objects come
	// back with the annotations they had.
	rw := &kio.ByteReadWriter{Reader: r, Writer: w, KeepReaderAnnotations: true, OmitReaderAnnotations: true}
	var rl resourceList
	var err error
	if rl.Items, err = rw.Read(); err != nil {
		return fmt.Errorf("failed to read ResourceList input: %w", err)
	}
	rl.FunctionConfig = rw.FunctionConfig
	plain := rw.WrappingKind == ""
	var annotations map[string]map[string]string
	if !plain {
		if annotations, err = kio.PreprocessResourcesForInternalAnnotationMigration(rl.Items); err != nil {
			return err
		}
	}
	processErr := process(&rl)
	if !plain {
		if err := kio.ReconcileInternalAnnotations(rl.Items, annotations); err != nil {
			return err
		}
	}
	if len(rl.Results) > 0 {
		b, err := yaml.Marshal(rl.Results)
		if err != nil {
			return err
		}
		if rw.Results, err = yaml.Parse(string(b)); err != nil {
			return err
		}
	}
	if err := rw.Write(rl.Items); err != nil {
		return err
	}
	return processErr
}
