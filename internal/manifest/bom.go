package manifest

import (
	"bytes"
	"io"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
)

// bomAfterSeparator matches a document separator line followed by a UTF-8
// BOM. kustomize (kio's splitDocuments) and kubectl (apimachinery's
// YAMLReader) split a stream at such lines and decode each document
// alone, so a BOM that opens a document is skipped, as the one that opens
// the file is. yaml.v3 skips only the latter: decoding the stream as a
// whole, it reads "\ufeffapiVersion" as a key, and the document loses its
// apiVersion.
var bomAfterSeparator = lazyregexp.New(`(?m)^---[ \t]*(?:#[^\n]*)?\n\x{FEFF}`)

// segment is a stretch of a stream decoded on its own: src[start:end],
// whose first line is line line of the stream. A segment that starts
// after a BOM has its first line's columns moved right by one, for the
// BOM's place (columns count runes).
type segment struct {
	start, end, line int
	afterBOM         bool
}

// segments cuts src before each separator line that a BOM follows, and
// starts the next segment after that BOM. A stream without such a BOM is
// one segment.
func segments(src []byte) []segment {
	segs := []segment{{start: 0, line: 1}}
	for _, m := range bomAfterSeparator.FindAllIndex(src, -1) {
		segs[len(segs)-1].end = m[0]
		segs = append(segs, segment{start: m[1], line: 1 + bytes.Count(src[:m[1]], []byte("\n")), afterBOM: true})
	}
	segs[len(segs)-1].end = len(src)
	return segs
}

// place moves doc's positions from the segment's to the stream's.
func (s segment) place(doc *yaml.Node) {
	if s.afterBOM {
		shiftFirstLine(doc, 1)
	}
	shiftLines(doc, s.line-1)
}

func shiftFirstLine(n *yaml.Node, by int) {
	if n.Line == 1 {
		n.Column += by
	}
	for _, c := range n.Content {
		shiftFirstLine(c, by)
	}
}

// streamDecoder decodes a YAML stream's documents as kustomize and kubectl
// read them (see bomAfterSeparator), with positions in the whole stream.
type streamDecoder struct {
	src  []byte
	segs []segment
	dec  *yaml.Decoder // of segs[0]
}

func newStreamDecoder(src []byte) *streamDecoder {
	return &streamDecoder{src: src, segs: segments(src)}
}

// Decode decodes the next document into doc, as yaml.Decoder.Decode does.
func (d *streamDecoder) Decode(doc *yaml.Node) error {
	for len(d.segs) > 0 {
		s := d.segs[0]
		if d.dec == nil {
			d.dec = yaml.NewDecoder(bytes.NewReader(d.src[s.start:s.end]))
		}
		err := d.dec.Decode(doc)
		if err == io.EOF {
			d.segs, d.dec = d.segs[1:], nil
			continue
		}
		if err == nil {
			s.place(doc)
		}
		return err
	}
	return io.EOF
}
