package krm

// Where an item's results point: the file and index its annotations name,
// and a finding's line and column within the resource. Each item's place
// is taken off its node once, so that the lint of a large ResourceList
// can drop the items' node trees batch by batch (batch.go) and still
// write every result as if it had kept them.

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// itemPlace is what result() needs of an item's node.
type itemPlace struct {
	path, index string // the config.kubernetes.io/path and index annotations
	line        int    // the item's first line in the ResourceList
	column      int    // the item's column
	head        int    // lines of head comment above the item's first key
	// annotations is false when metadata.annotations is absent, not a
	// mapping, or a flow mapping: then no line is taken off.
	annotations bool
	// readers are the reader annotations' entries (see readerAnnotations),
	// by the line of their key and the lines the entry takes.
	readers []readerEntry
	// onlyReaders: no annotation but the readers', so the `annotations:`
	// line itself, at annotationsLine, would be gone from the user's file.
	onlyReaders     bool
	annotationsLine int
}

type readerEntry struct{ line, lines int }

// placeOf reads obj's place.
func placeOf(obj *yaml.Node) itemPlace {
	p := itemPlace{line: obj.Line, column: obj.Column, head: commentLines(obj.HeadComment)}
	p.path, p.index = fileAnnotations(obj)
	if len(obj.Content) > 0 {
		p.head += commentLines(obj.Content[0].HeadComment)
	}
	ann := manifest.Path(obj, "metadata", "annotations")
	if ann == nil || ann.Kind != yaml.MappingNode || ann.Style&yaml.FlowStyle != 0 {
		return p
	}
	p.annotations = true
	kept := 0
	for i := 0; i+1 < len(ann.Content); i += 2 {
		k, v := ann.Content[i], ann.Content[i+1]
		if k.Line == 0 {
			continue // added after parsing (kyaml's annotation migration)
		}
		if !readerAnnotations[k.Value] {
			kept++
			continue
		}
		p.readers = append(p.readers, readerEntry{k.Line, entryLines(v)})
	}
	if kept == 0 {
		p.onlyReaders = true
		if k, _ := manifest.MapEntry(manifest.MapGet(obj, "metadata"), "annotations"); k != nil {
			p.annotationsLine = k.Line
		}
	}
	return p
}

// places reads the place of every item.
func places(items []*yaml.RNode) []itemPlace {
	out := make([]itemPlace, len(items))
	for i, it := range items {
		out[i] = placeOf(it.YNode())
	}
	return out
}

// readerAnnotations are added by kpt, kustomize and kyaml readers to track
// resources; they are not in the user's file.
var readerAnnotations = map[string]bool{
	kioutil.LegacyPathAnnotation:                                     true,
	kioutil.LegacyIndexAnnotation:                                    true,
	kioutil.LegacyIdAnnotation:                                       true,
	string(kioutil.PathAnnotation):                                   true,
	string(kioutil.IndexAnnotation):                                  true,
	string(kioutil.IdAnnotation):                                     true,
	string(kioutil.SeqIndentAnnotation):                              true,
	string(kioutil.InternalAnnotationsMigrationResourceIDAnnotation): true,
	"kustomize.config.k8s.io/id":                                     true,
}

// resourceLine turns line, a line of the ResourceList, into the line
// within the resource: 1 is the resource's first line (its head comment
// included), and the lines of the tracking annotations that kpt and
// kustomize add (path, index, id) are not counted. For a resource written
// in the usual block style this is its line within its YAML document in
// the file it came from.
func (p *itemPlace) resourceLine(line int) int {
	rel := line - p.line + 1 + p.head
	if !p.annotations {
		return rel
	}
	for _, r := range p.readers {
		if r.line < line {
			rel -= r.lines
		}
	}
	if p.onlyReaders && p.annotationsLine > 0 && p.annotationsLine < line {
		rel-- // the annotations: line itself would be gone
	}
	return max(rel, 1)
}

// resourceColumn is column, a column of the ResourceList, within the
// resource.
func (p *itemPlace) resourceColumn(column int) int {
	return max(column-p.column+1, 1)
}

// resourceLine is resourceLine of obj's place.
func resourceLine(obj *yaml.Node, line int) int {
	p := placeOf(obj)
	return p.resourceLine(line)
}

// commentLines is how many lines a head comment takes.
func commentLines(c string) int {
	if c == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(c, "\n"), "\n") + 1
}

// entryLines is how many lines a `key: value` annotation entry takes.
func entryLines(v *yaml.Node) int {
	switch v.Style {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		return 1 + strings.Count(strings.TrimSuffix(v.Value, "\n"), "\n") + 1
	}
	return 1
}
