package engine

import (
	"slices"
	"testing"
)

// TestTrimObserved: a file's summaries, origins and identities keep an
// array of their own length, with the same elements.
func TestTrimObserved(t *testing.T) {
	fr := &FileResult{}
	for i := range 5 {
		fr.summaries = append(fr.summaries, summary{doc: int32(i)})
		fr.ids = append(fr.ids, objectID{hash: uint64(i)})
	}
	fr.origins = append(make([]summaryOrigin, 0, 4), summaryOrigin{file: objectFile{path: "a.yaml"}})
	want := slices.Clone(fr.summaries)
	if cap(fr.summaries) == len(fr.summaries) {
		t.Fatalf("appending 5 left no room (cap %d): the test needs some", cap(fr.summaries))
	}
	fr.trimObserved()
	for name, lc := range map[string][2]int{
		"summaries": {len(fr.summaries), cap(fr.summaries)},
		"ids":       {len(fr.ids), cap(fr.ids)},
		"origins":   {len(fr.origins), cap(fr.origins)},
	} {
		if lc[0] != lc[1] {
			t.Errorf("%s: length %d, capacity %d", name, lc[0], lc[1])
		}
	}
	if !slices.Equal(fr.summaries, want) || len(fr.ids) != 5 || fr.ids[4].hash != 4 || fr.origins[0].file.path != "a.yaml" {
		t.Errorf("trimming changed the elements: %v, %v, %v", fr.summaries, fr.ids, fr.origins)
	}
	empty := &FileResult{summaries: make([]summary, 0, 3)}
	if empty.trimObserved(); empty.summaries != nil {
		t.Errorf("an empty list keeps its array (cap %d)", cap(empty.summaries))
	}
}
