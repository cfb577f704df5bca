package engine

import (
	"bytes"
	"strings"
)

const (
	ignoreMarker     = "shipshape:ignore"
	ignoreFileMarker = "shipshape:ignore-file"
)

// lineIgnores maps a 1-based line to the rules its comment suppresses
// (nil slice: all rules). Line 0 set means the whole file is ignored.
type lineIgnores map[int][]string

func fileIgnoreCheap(src []byte) bool { return bytes.Contains(src, []byte(ignoreMarker)) }

// scanIgnores finds `# shipshape:ignore rule-a,rule-b` comments. A comment
// alone on its line covers the next line; one after content covers its own
// line. Most files have none, so the scan is a single bytes.Contains.
func scanIgnores(src []byte) lineIgnores {
	if !fileIgnoreCheap(src) {
		return nil
	}
	ig := lineIgnores{}
	line := 0
	for len(src) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			l, src = src[:i], src[i+1:]
		} else {
			l, src = src, nil
		}
		at := bytes.Index(l, []byte("#"))
		for at >= 0 {
			comment := strings.TrimSpace(string(l[at+1:]))
			if strings.HasPrefix(comment, ignoreFileMarker) {
				ig[0] = nil
				return ig
			}
			if strings.HasPrefix(comment, ignoreMarker) {
				ids := parseIDs(comment[len(ignoreMarker):])
				target := line
				if len(bytes.TrimSpace(l[:at])) == 0 {
					target = line + 1
				}
				if prev, ok := ig[target]; ok && (prev == nil || ids == nil) {
					ids = nil
				} else {
					ids = append(prev, ids...)
				}
				ig[target] = ids
				break
			}
			next := bytes.Index(l[at+1:], []byte("#"))
			if next < 0 {
				break
			}
			at += 1 + next
		}
	}
	return ig
}

// parseIDs reads "rule-a,rule-b -- reason" after the marker; nil means all.
func parseIDs(s string) []string {
	s = strings.ReplaceAll(strings.TrimSpace(s), ", ", ",")
	if i := strings.Index(s, " "); i >= 0 {
		s = s[:i] // anything after the list is a free-form reason
	}
	if s == "" || s == "all" {
		return nil
	}
	var ids []string
	for _, id := range strings.Split(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

func (ig lineIgnores) all() bool {
	_, ok := ig[0]
	return ok
}

func (ig lineIgnores) suppresses(line int, rule string) bool {
	if ig.all() {
		return true // a finding placed in the file from a rendered object
	}
	ids, ok := ig[line]
	if !ok || line == 0 {
		return false
	}
	if ids == nil {
		return true
	}
	for _, id := range ids {
		if id == rule || id == "all" {
			return true
		}
	}
	return false
}
