package render

import (
	"encoding/binary"
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// The rendered objects of a root, as the cache stores them: every field of
// every node (kind, style, tag, value, anchor, alias, comments, line,
// column), and which nodes are one node (kustomize shares subtrees; an
// alias points at its anchor), so that an object read back is the object
// kustomize made, field for field and pointer for pointer within it (as
// deepCopy copies each object).

var errBadObjects = errors.New("damaged objects")

// How a node is written: absent, new (its fields follow), or one written
// before in the same object (its number follows).
const (
	nodeNil = iota
	nodeNew
	nodeSeen
)

type codecWriter struct{ buf []byte }

func (w *codecWriter) uint(n uint64)   { w.buf = binary.AppendUvarint(w.buf, n) }
func (w *codecWriter) string(s string) { w.uint(uint64(len(s))); w.buf = append(w.buf, s...) }

type codecReader struct {
	buf []byte
	err error
}

func (r *codecReader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	n, k := binary.Uvarint(r.buf)
	if k <= 0 {
		r.err = errBadObjects
		return 0
	}
	r.buf = r.buf[k:]
	return n
}

func (r *codecReader) string() string {
	n := r.uint()
	if r.err != nil || n > uint64(len(r.buf)) {
		r.err = errBadObjects
		return ""
	}
	s := string(r.buf[:n])
	r.buf = r.buf[n:]
	return s
}

// encodeObjects writes objs (their resource and node; Index is their
// place, Origin and Transformations are Trace's, never cached).
func encodeObjects(objs []*Object) ([]byte, error) {
	var w codecWriter
	w.uint(uint64(len(objs)))
	for _, o := range objs {
		for _, s := range [...]string{o.APIVersion, o.Kind, o.Namespace, o.Name} {
			w.string(s)
		}
		encodeNode(&w, o.Node, map[*yaml.Node]uint64{})
	}
	return w.buf, nil
}

// encodeNode writes n; seen numbers the nodes of its object written so far.
func encodeNode(w *codecWriter, n *yaml.Node, seen map[*yaml.Node]uint64) {
	if n == nil {
		w.uint(nodeNil)
		return
	}
	if k, ok := seen[n]; ok {
		w.uint(nodeSeen)
		w.uint(k)
		return
	}
	seen[n] = uint64(len(seen))
	w.uint(nodeNew)
	w.uint(uint64(n.Kind))
	w.uint(uint64(n.Style))
	for _, s := range [...]string{n.Tag, n.Value, n.Anchor, n.HeadComment, n.LineComment, n.FootComment} {
		w.string(s)
	}
	w.uint(uint64(n.Line))
	w.uint(uint64(n.Column))
	encodeNode(w, n.Alias, seen)
	// nil Content and empty Content are told apart: a copy keeps which.
	if n.Content == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(len(n.Content)) + 1)
	for _, c := range n.Content {
		encodeNode(w, c, seen)
	}
}

func decodeObjects(data []byte) ([]*Object, error) {
	r := codecReader{buf: data}
	n := r.uint()
	if r.err != nil || n > uint64(len(data)) {
		return nil, errBadObjects
	}
	objs := make([]*Object, 0, n)
	for i := range int(n) {
		o := &Object{Index: i}
		o.Resource = manifest.Resource{APIVersion: r.string(), Kind: r.string(), Namespace: r.string(), Name: r.string()}
		var seen []*yaml.Node
		o.Node = decodeNode(&r, &seen, 0)
		if r.err != nil {
			return nil, r.err
		}
		objs = append(objs, o)
	}
	if len(r.buf) != 0 {
		return nil, fmt.Errorf("%w: %d bytes past the objects", errBadObjects, len(r.buf))
	}
	return objs, nil
}

// maxDepth bounds a decoded tree's depth (a damaged entry is not trusted
// to end).
const maxDepth = 10000

func decodeNode(r *codecReader, seen *[]*yaml.Node, depth int) *yaml.Node {
	if depth > maxDepth {
		r.err = errBadObjects
	}
	how := r.uint()
	if r.err != nil {
		return nil
	}
	switch how {
	case nodeNil:
		return nil
	case nodeSeen:
		k := r.uint()
		if r.err != nil || k >= uint64(len(*seen)) {
			r.err = errBadObjects
			return nil
		}
		return (*seen)[k]
	case nodeNew:
	default:
		r.err = errBadObjects
		return nil
	}
	n := &yaml.Node{Kind: yaml.Kind(r.uint()), Style: yaml.Style(r.uint())}
	*seen = append(*seen, n) // before its children: an alias may point back
	n.Tag, n.Value, n.Anchor = r.string(), r.string(), r.string()
	n.HeadComment, n.LineComment, n.FootComment = r.string(), r.string(), r.string()
	n.Line, n.Column = int(r.uint()), int(r.uint())
	n.Alias = decodeNode(r, seen, depth+1)
	count := r.uint()
	if r.err != nil || count > uint64(len(r.buf))+1 {
		r.err = errBadObjects
		return nil
	}
	if count > 0 {
		n.Content = make([]*yaml.Node, count-1)
		for i := range n.Content {
			if n.Content[i] = decodeNode(r, seen, depth+1); r.err != nil {
				return nil
			}
		}
	}
	return n
}
