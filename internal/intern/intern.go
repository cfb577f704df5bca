// Package intern keeps one copy of each distinct string a run keeps for
// long: the label keys and values, namespaces and names of the
// cross-resource summaries, which a large tree repeats thousands of
// times (every copy of a common label, every object of a namespace).
// Interned, a summary holds no reference into the text its file was
// parsed from, and each distinct text is stored once.
package intern

import (
	"strings"
	"sync"
)

// table is the run's strings. It only grows: what goes in is the
// distinct label and namespace texts of one run, which the summaries
// keep until the run ends anyway.
var table = struct {
	sync.RWMutex
	m map[string]string
}{m: map[string]string{}}

// String returns the one copy of s's text (a copy of s the first time).
func String(s string) string {
	if s == "" {
		return ""
	}
	table.RLock()
	v, ok := table.m[s]
	table.RUnlock()
	if ok {
		return v
	}
	table.Lock()
	defer table.Unlock()
	if v, ok := table.m[s]; ok {
		return v
	}
	// A copy: s may be a slice of a larger text (a file's bytes) that
	// the table would otherwise keep.
	s = strings.Clone(s)
	table.m[s] = s
	return s
}
