package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"

	"go.yaml.in/yaml/v3"
)

// kustomize's library copies every alias in full (kyaml's RNode.DeAnchor,
// run by kio.ByteReader on every file it reads) and never bounds the
// copy: ten levels of nine aliases, 600 bytes, make 10^9 nodes. So a file
// is measured before kustomize reads it: its alias expansion, with the
// guard kubectl's decoder applies (go-yaml's allowedAliasRatio: kubectl
// refuses such a document with "document contains excessive aliasing"),
// the nodes it expands to (the memory estimate of budget.go) and its
// widest mappings (the time estimate). All of it is linear in the file:
// the expansion is counted, never done.

// ExpansionReason says why a file's aliases are refused.
type ExpansionReason int

const (
	// ExcessiveAliasing is go-yaml's guard, which kubectl applies: more
	// of a document's decoded nodes come from aliases than its size
	// allows.
	ExcessiveAliasing ExpansionReason = iota + 1
	// AliasCycle is an alias inside the node it names: expanding it never
	// ends (kyaml recurses until the stack overflows, a fatal error).
	AliasCycle
)

// ExpansionError is a file whose aliases kustomize's library would expand
// past any bound. Line and Column are the alias's.
type ExpansionError struct {
	File         string
	Line, Column int
	Alias        string // the alias's anchor name
	Reason       ExpansionReason
	// Nodes is what the document expands to (saturated at math.MaxInt64).
	Nodes int64
}

func (e *ExpansionError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Reason.say(e))
}

// say is what is wrong, without the position (a finding has it).
func (r ExpansionReason) say(e *ExpansionError) string {
	if r == AliasCycle {
		return fmt.Sprintf("the alias *%s is inside the node it names: kustomize's library would expand it without end", e.Alias)
	}
	return fmt.Sprintf("the alias *%s makes the document expand to %s nodes, most of them copies made by aliases: kustomize's library would copy every one (kubectl refuses the document: \"document contains excessive aliasing\")",
		e.Alias, countText(e.Nodes))
}

func countText(n int64) string {
	if n == math.MaxInt64 {
		return "more than 9.2e18"
	}
	if n >= 1e6 {
		return fmt.Sprintf("%.3g", float64(n))
	}
	return fmt.Sprint(n)
}

// fileCost is what reading one file costs kustomize's library, measured
// from its bytes.
type fileCost struct {
	size int64
	// growth is the ratio of the nodes the file expands to over the nodes
	// it holds (1 without aliases).
	growth float64
	// keySquares is the sum over the file's mappings of their key count
	// squared (kyaml finds a mapping's keys one by one, so building a
	// mapping of n keys takes time in n²); an upper bound when exact is
	// false.
	keySquares float64
	exact      bool
	// widest is the mapping with the most keys (when exact), where a time
	// budget finding points.
	widest                   int
	widestLine, widestColumn int
	// refused is set for a file whose aliases expand past any bound.
	refused *ExpansionError
}

// measureCheap bounds what measure would find without parsing: a mapping
// of n keys takes n lines (block style) or n-1 commas (flow style), so
// no mapping, and no sum of mappings, has more keys than lines+commas.
func measureCheap(data []byte) fileCost {
	spread := float64(bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte(",")) + 1)
	return fileCost{size: int64(len(data)), growth: 1, keySquares: spread * spread}
}

// mayAlias reports whether data may hold an alias: an alias names an
// anchor of its own document.
func mayAlias(data []byte) bool {
	return bytes.IndexByte(data, '&') >= 0 && bytes.IndexByte(data, '*') >= 0
}

// measure parses data (as yaml.v3 does for kyaml: nodes, aliases not
// expanded) and counts. A file that does not parse is measured cheaply:
// kustomize reports its syntax error before it expands anything of it.
func measure(path string, data []byte) fileCost {
	c := measureCheap(data)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		doc := new(yaml.Node)
		if err := dec.Decode(doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return c
		}
		docs = append(docs, doc)
	}
	c.exact, c.keySquares = true, 0
	aliases := mayAlias(data)
	var held, expanded float64
	for _, doc := range docs {
		keySquares(doc, &c)
		if !aliases {
			continue
		}
		m := &expansion{size: map[*yaml.Node]int64{}}
		n := m.nodes(doc)
		if m.cycle != nil {
			c.refused = &ExpansionError{File: path, Line: m.cycle.Line, Column: m.cycle.Column, Alias: m.cycle.Value, Reason: AliasCycle}
			return c
		}
		if at := m.excessive(doc); at != nil {
			c.refused = &ExpansionError{File: path, Line: at.Line, Column: at.Column, Alias: at.Value, Reason: ExcessiveAliasing, Nodes: n}
			return c
		}
		expanded += float64(n)
		held += float64(m.held)
	}
	if held > 0 {
		c.growth = max(1, expanded/held)
	}
	return c
}

// keySquares adds the key counts squared of the mappings under n, aliases
// not followed: an alias names a mapping kyaml builds once, then copies.
func keySquares(n *yaml.Node, c *fileCost) {
	if n == nil || n.Kind == yaml.AliasNode {
		return
	}
	if n.Kind == yaml.MappingNode {
		k := len(n.Content) / 2
		c.keySquares += float64(k) * float64(k)
		if k > c.widest {
			c.widest, c.widestLine, c.widestColumn = k, n.Line, n.Column
		}
	}
	for _, ch := range n.Content {
		keySquares(ch, c)
	}
}

// expansion counts one document's nodes as go-yaml's decoder visits them
// when it decodes into Go values (aliases followed), without following
// them: each node's count is computed once. Only anchored nodes are kept
// in size: no other node is reached twice, and a cycle passes through an
// anchor.
type expansion struct {
	size  map[*yaml.Node]int64 // anchored node -> nodes decoded for it; -1 while counting it
	held  int64                // nodes in the document as written
	cycle *yaml.Node           // an alias inside what it names
}

// nodes is how many nodes go-yaml's decoder visits for n: n, its
// content, and for an alias what it names.
func (e *expansion) nodes(n *yaml.Node) int64 {
	if n == nil || e.cycle != nil {
		return 0
	}
	anchored := n.Anchor != ""
	if s, ok := e.size[n]; ok {
		if s < 0 {
			return 0 // reported by the alias that re-entered n
		}
		return s
	}
	if anchored {
		e.size[n] = -1
	}
	e.held++
	s := int64(1)
	if n.Kind == yaml.AliasNode {
		if t, ok := e.size[n.Alias]; ok && t < 0 {
			e.cycle = n
			return 0
		}
		s = saturatingAdd(s, e.nodes(n.Alias))
	}
	for _, ch := range n.Content {
		s = saturatingAdd(s, e.nodes(ch))
	}
	if anchored {
		e.size[n] = s
	}
	return s
}

func saturatingAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// excessive walks doc in the decoder's order with its two counters
// (nodes decoded, and of those, nodes decoded inside an alias) and
// returns the alias at whose end go-yaml's guard fails, or nil. Inside an
// alias both counters grow together, so the ratio is highest, and the
// allowed ratio lowest, at the alias's end: checking there (and at each
// node outside aliases) finds every failure the decoder's check after
// each node finds.
func (e *expansion) excessive(doc *yaml.Node) *yaml.Node {
	var decoded, aliased int64
	var at *yaml.Node
	var walk func(n *yaml.Node) bool
	walk = func(n *yaml.Node) bool {
		decoded++
		if tooAliased(decoded, aliased) {
			at = n
			return false
		}
		if n.Kind == yaml.AliasNode {
			inside := e.size[n.Alias]
			decoded, aliased = saturatingAdd(decoded, inside), saturatingAdd(aliased, inside)
			if tooAliased(decoded, aliased) {
				at = n
				return false
			}
			return true
		}
		for _, ch := range n.Content {
			if !walk(ch) {
				return false
			}
		}
		return true
	}
	walk(doc)
	return at
}

// tooAliased is go-yaml's check (decode.go, decoder.unmarshal): over 100
// aliased and 1000 decoded nodes, the aliased share may not pass
// allowedAliasRatio.
func tooAliased(decoded, aliased int64) bool {
	return aliased > 100 && decoded > 1000 && float64(aliased)/float64(decoded) > allowedAliasRatio(decoded)
}

// allowedAliasRatio is go-yaml's (v3 decode.go; v2, which kubectl's
// sigs.k8s.io/yaml uses, has the same): 99% of a document of up to
// 400,000 decoded nodes may come from aliases, 10% of one of 4,000,000 or
// more, and a straight line between.
func allowedAliasRatio(decoded int64) float64 {
	const low, high = 400000, 4000000
	switch {
	case decoded <= low:
		return 0.99
	case decoded >= high:
		return 0.10
	default:
		return 0.99 - 0.89*(float64(decoded-low)/float64(high-low))
	}
}
