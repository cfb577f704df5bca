package render

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Step is one step of a Path: a mapping key, or a sequence index.
type Step struct {
	Key     string
	Index   int
	IsIndex bool
}

// Path addresses a node inside a YAML document: a field path in an object
// (spec.template.metadata.labels.app), or the place of a source node in
// its own document (a patch, a JSON-patch op list, a kustomization).
type Path []Step

// ParsePath reads a path written as rules write them: dot-separated keys,
// `[N]` for sequence indexes, and `["key.with.dots"]` (or ['…']) for keys
// that contain dots or brackets:
//
//	spec.selector.matchLabels["app.kubernetes.io/name"]
//	spec.template.spec.containers[0].image
func ParsePath(s string) (Path, error) {
	var p Path
	for i := 0; i < len(s); {
		switch s[i] {
		case '.':
			i++
		case '[':
			if i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\'') {
				// A quoted key may hold dots and brackets.
				q := s[i+1]
				close := strings.IndexByte(s[i+2:], q)
				if close < 0 || !strings.HasPrefix(s[i+2+close+1:], "]") {
					return nil, fmt.Errorf("path %q: unclosed quoted key", s)
				}
				p = append(p, Step{Key: s[i+2 : i+2+close]})
				i += 2 + close + 2
				continue
			}
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("path %q: unclosed [", s)
			}
			n, err := strconv.Atoi(s[i+1 : i+end])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("path %q: bad index %s", s, s[i:i+end+1])
			}
			p = append(p, Step{Index: n, IsIndex: true})
			i += end + 1
		default:
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			p = append(p, Step{Key: s[i:j]})
			i = j
		}
	}
	if len(p) == 0 {
		return nil, fmt.Errorf("empty path")
	}
	return p, nil
}

// MustParsePath is ParsePath for paths written in code.
func MustParsePath(s string) Path {
	p, err := ParsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}

// String writes p back in ParsePath's syntax.
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case s.IsIndex:
			fmt.Fprintf(&b, "[%d]", s.Index)
		case strings.ContainsAny(s.Key, ".[]") || s.Key == "":
			fmt.Fprintf(&b, "[%q]", s.Key)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Key)
		}
	}
	return b.String()
}

// Key returns a copy of p with a key step appended.
func (p Path) Key(k string) Path { return append(p[:len(p):len(p)], Step{Key: k}) }

// Idx returns a copy of p with an index step appended.
func (p Path) Idx(i int) Path { return append(p[:len(p):len(p)], Step{Index: i, IsIndex: true}) }

// Get returns the key node (nil for an index step or the root) and the
// value node at p below n, or nils when a step is missing.
func (p Path) Get(n *yaml.Node) (key, val *yaml.Node) {
	val = n
	for _, s := range p {
		if val != nil && val.Kind == yaml.DocumentNode && len(val.Content) > 0 {
			val = val.Content[0]
		}
		if val == nil {
			return nil, nil
		}
		if s.IsIndex {
			if val.Kind != yaml.SequenceNode || s.Index >= len(val.Content) {
				return nil, nil
			}
			key, val = nil, val.Content[s.Index]
			continue
		}
		if val.Kind != yaml.MappingNode {
			return nil, nil
		}
		// The last of a key written twice, as kubectl reads it.
		var found bool
		for i := len(val.Content)&^1 - 2; i >= 0; i -= 2 {
			if val.Content[i].Value == s.Key {
				key, val, found = val.Content[i], val.Content[i+1], true
				break
			}
		}
		if !found {
			return nil, nil
		}
	}
	return key, val
}
