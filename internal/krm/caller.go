package krm

import "github.com/shipshape-dev/shipshape/internal/lazyregexp"

// kptSeqIndent matches the annotation key kpt's package reader puts on
// every item (and on a --fn-config functionConfig) to keep each file's
// sequence indentation. kustomize build and kustomize fn run read with
// kyaml without that option, so their ResourceLists lack it (checked with
// kpt 1.0 and kustomize v5.8.2; integration/kpt_test.go and
// kustomize_test.go hold both sides).
var kptSeqIndent = lazyregexp.New(`(?m)^\s+internal\.config\.kubernetes\.io/seqindent:`)

// ShowsResults reports whether the ResourceList src comes from a caller
// that prints its results itself: kpt prints every result and then the
// function's stderr, so findings printed on stderr as well would be shown
// twice. kustomize discards results: there stderr is all the user sees.
// Only where stderr goes depends on it, never what the function returns.
func ShowsResults(src []byte) bool { return kptSeqIndent.Match(src) }
