// Package apidiff holds shipshape's differential test against the
// Kubernetes API machinery: every built-in object of the corpus and of the
// repository's testdata is decoded the way kubectl and the API server do
// (YAML 1.1 to JSON with sigs.k8s.io/yaml, then strict decoding into the
// typed object from k8s.io/client-go's scheme), and what the API rejects
// is compared, field by field, with the findings of the rules
// ambiguous-scalar, type-mismatch, unknown-field and duplicate-key.
//
// The package has no code of its own; the Kubernetes libraries it uses are
// test-only dependencies of shipshape.
package apidiff
