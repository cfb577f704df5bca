package rules

import (
	"strconv"
	"strings"
)

// fieldPath is a dotted path built as a stack while walking, so that the
// string is only made for nodes that are reported.
type fieldPath []pathSeg

type pathSeg struct {
	key   string
	index int // -1 for a mapping key
}

func (p fieldPath) key(k string) fieldPath { return append(p, pathSeg{k, -1}) }
func (p fieldPath) index(i int) fieldPath  { return append(p, pathSeg{"", i}) }

// String renders spec.template.metadata.labels.active, containers[0].args[1]
// and labels["app.kubernetes.io/name"] for keys that contain dots.
func (p fieldPath) String() string {
	var b strings.Builder
	for _, s := range p {
		if s.index >= 0 {
			b.WriteString("[")
			b.WriteString(strconv.Itoa(s.index))
			b.WriteString("]")
			continue
		}
		if strings.ContainsAny(s.key, ".[]\" ") || s.key == "" {
			b.WriteString("[")
			b.WriteString(strconv.Quote(s.key))
			b.WriteString("]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

// join appends a relative path such as "matchLabels.app" to a prefix.
func join(prefix, rel string) string {
	switch {
	case prefix == "":
		return rel
	case rel == "" || rel[0] == '[':
		return prefix + rel
	}
	return prefix + "." + rel
}
