package helmrender

import (
	"fmt"
	"reflect"
	"strconv"

	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
)

// originIndex knows, for each values path, the node that Helm's precedence
// makes the last writer: a subchart's values.yaml, then its parent's
// values.yaml (under the subchart's key), then each user source in order.
// It gives positions only; the values themselves are always Helm's.
type originIndex struct {
	nodes map[valuesPath]valuesNode
	// decoded caches each scalar node's value as Helm reads it.
	decoded map[*yaml.Node]interface{}
}

type valuesNode struct {
	pos  Position
	node *yaml.Node
}

// valuesPath is a values path as a map key: its segments quoted and
// joined, so no key can be read as two (sequence indices are "[i]"
// segments, so they never equal a mapping key that happens to be a
// number).
type valuesPath string

func valuesPathKey(p []string) valuesPath { return valuesPath(fmt.Sprintf("%q", p)) }

func newOriginIndex(l *chartLayout, root *chart.Chart, user []ValuesSource) *originIndex {
	ix := &originIndex{nodes: map[valuesPath]valuesNode{}, decoded: map[*yaml.Node]interface{}{}}
	ix.addChart(l, root, nil)
	for _, src := range user {
		if src.Unplaced {
			continue
		}
		ix.add(Position{Archive: src.Archive, File: src.File}, src.Node, nil)
	}
	return ix
}

func (ix *originIndex) addChart(l *chartLayout, c *chart.Chart, prefix []string) {
	for _, d := range c.Dependencies() {
		ix.addChart(l, d, appendPath(prefix, d.Name()))
	}
	for _, f := range c.Raw {
		if f.Name != "values.yaml" {
			continue
		}
		var doc yaml.Node
		if yaml.Unmarshal(f.Data, &doc) == nil {
			ix.add(l.fileOf(c, "values.yaml"), &doc, prefix)
		}
	}
}

func appendPath(p []string, seg string) []string {
	return append(append(make([]string, 0, len(p)+1), p...), seg)
}

// add records every node under n at its path, overwriting earlier writers.
func (ix *originIndex) add(file Position, n *yaml.Node, prefix []string) {
	if n == nil {
		return
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if len(prefix) > 0 {
		pos := file
		pos.Line, pos.Column = n.Line, n.Column
		ix.nodes[valuesPathKey(prefix)] = valuesNode{pos: pos, node: n}
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			ix.add(file, n.Content[i+1], appendPath(prefix, n.Content[i].Value))
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			ix.add(file, item, appendPath(prefix, "["+strconv.Itoa(i)+"]"))
		}
	}
}

// origin is where the value Helm has at path was written, if a recorded
// source holds exactly that value there (read as Helm reads it). Helm copies
// `global` into every subchart, so a subchart's global.x falls back to the
// parent's.
func (ix *originIndex) origin(path []string, value interface{}) (Position, bool) {
	candidates := [][]string{path}
	for i := len(path) - 1; i > 0; i-- {
		if path[i] == "global" {
			candidates = append(candidates, path[i:])
		}
	}
	for _, p := range candidates {
		vn, ok := ix.nodes[valuesPathKey(p)]
		if !ok || vn.node.Kind != yaml.ScalarNode {
			continue
		}
		if reflect.DeepEqual(ix.helmValue(vn.node), value) {
			return vn.pos, true
		}
	}
	return Position{}, false
}

// helmValue reads one scalar as Helm reads a values file (YAML 1.1).
func (ix *originIndex) helmValue(n *yaml.Node) interface{} {
	if v, ok := ix.decoded[n]; ok {
		return v
	}
	holder := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: "v"},
		{Kind: n.Kind, Style: n.Style, Tag: n.Tag, Value: n.Value},
	}}
	var v interface{} = errUndecodable{}
	if m, err := readValuesNode(holder); err == nil {
		v = m["v"]
	}
	ix.decoded[n] = v
	return v
}

// errUndecodable stands for a scalar Helm could not read: equal to nothing.
type errUndecodable struct{}

// writtenAt is where the value at path, or the nearest table above it that
// a source wrote, was written; zero when no source wrote any.
func (ix *originIndex) writtenAt(path []string) Position {
	for n := len(path); n > 0; n-- {
		if vn, ok := ix.nodes[valuesPathKey(path[:n])]; ok {
			return vn.pos
		}
	}
	return Position{}
}
