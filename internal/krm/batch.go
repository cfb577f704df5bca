package krm

// Lint mode on the fast path, batch by batch. The node trees of a
// ResourceList's items take about 17 times its bytes; a lint needs them
// only while the per-object rules run and the cross-resource rules take
// their summaries. Each batch of items is parsed, judged and dropped: what
// is kept is the ResourceList's bytes (written back as they came), each
// item's place (place.go) and the rules' summaries and findings, so that
// memory is a small multiple of the input however many items it holds.

import (
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/gcpace"
)

// batchBytes is about how much of the items block one batch parses:
// enough for every core to have pieces to parse (parseEntries), small
// enough that its trees are a small part of memory beside the input.
var batchBytes = 4 << 20

// heapPerInputByte bounds fn's heap in lint mode, by a soft memory limit
// (gcpace.Cap), at this many times the ResourceList's bytes. What is kept
// is about 7 times the input (the input itself, the rules' summaries, the
// places) and the cross-resource rules' groupings reach about 12 at the
// end; 16 leaves room enough that the collector does not run much more
// often than at its usual pace (measured on 100,000 generated
// Deployments, ConfigMaps and Services, 40 MB: integration/fnmemory_test.go).
const heapPerInputByte = 16

// lintBatches lints the items of src, whose items block is b, batch by
// batch, and records the results in out. It returns false, with out
// unfinished, when a batch does not parse as the fast path reads it:
// kyaml's path then reads the whole list.
func lintBatches(out *Outcome, eng *engine.Engine, src []byte, b *itemsBlock) bool {
	// Only when the collector is paced by gcpace (the shipshape command
	// with neither GOGC nor GOMEMLIMIT set), and never under its budget.
	gcpace.Cap(heapPerInputByte * int64(len(src)))
	lint := eng.NewObjectLint()
	itemPlaces := make([]itemPlace, 0, len(b.entries))
	for lo := 0; lo < len(b.entries); {
		hi := nextBatch(src, b, lo)
		nodes, err := parseEntries(src, b, lo, hi)
		if err != nil {
			return false
		}
		items := rnodes(nodes)
		lint.Add(objects(items, lo))
		itemPlaces = append(itemPlaces, places(items)...)
		lo = hi
	}
	out.results = out.record(nil, itemPlaces, lint.Finish(), itemPlaces)
	return true
}

// nextBatch is where the batch that starts at entry lo ends: the first
// entry a piece may start at (see findItems) at least batchBytes further
// on, or the end of the items.
func nextBatch(src []byte, b *itemsBlock, lo int) int {
	start := b.entryOffset(src, lo)
	for i := lo + 1; i < len(b.entries); i++ {
		if b.cuttable[i] && b.entryOffset(src, i)-start >= batchBytes {
			return i
		}
	}
	return len(b.entries)
}
