package krm

// The fast path. Parsing a large ResourceList into one node tree runs on one
// core, and kyaml writes it back by re-encoding every item (half of fn's
// time on 1000 items). A ResourceList as kustomize and kpt write it (one
// block mapping with `items:` a block sequence) is instead cut at item
// boundaries, the pieces are parsed on all cores, and the items are written
// back as the bytes they came as.
//
// A cut is only made where the whole parse would see the same thing: the
// line starts an entry of the items sequence, at its indentation, and the
// line above is neither blank nor a comment (yaml.v3 attaches comments to
// the nodes around them). Whatever could make a piece parse differently on
// its own (a quoted scalar or flow collection running across the cut, an
// alias to an anchor in another piece) makes that piece fail to parse, and
// the rest of the mapping is parsed with the items blanked out and checked
// to have `items` and the next key exactly where the cut found them. Any
// doubt returns ok=false and Run takes kyaml's path, which reads anything.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// splitList is a ResourceList parsed by the fast path: its items with the
// positions they have in src, and its functionConfig (nil when absent).
type splitList struct {
	src            []byte
	items          []*yaml.Node
	functionConfig *yaml.Node
}

// itemsBlock is where the items sequence is in src: lines are 0-based
// indexes into starts (byte offsets of line starts).
type itemsBlock struct {
	starts    []int  // byte offset of every line start
	keyLine   int    // the `items:` line
	entries   []int  // lines that start an entry
	cuttable  []bool // per entry: the line above is neither blank nor a comment
	end       int    // the first line after the block (len(starts) at EOF)
	entryCol  int    // the column of the entries' dashes
	endsInKey bool   // the block ends at another top-level key
}

// split parses src by the fast path, or returns ok=false.
func split(src []byte) (l *splitList, ok bool) {
	b, ok := findItems(src)
	if !ok {
		return nil, false
	}
	fc, ok := parseSkeleton(src, b)
	if !ok {
		return nil, false
	}
	items, err := parseEntries(src, b, 0, len(b.entries))
	if err != nil {
		return nil, false
	}
	return &splitList{src: src, items: items, functionConfig: fc}, true
}

var errShape = errors.New("not the shape the fast path reads")

// findItems finds the top-level `items:` key and the entries of its block
// sequence by looking at indentation only.
func findItems(src []byte) (*itemsBlock, bool) {
	// CRLF (kyaml rewrites it), a BOM, directives and document markers are
	// left to kyaml. Results are appended after the last line, which must
	// end.
	if len(src) == 0 || src[len(src)-1] != '\n' || bytes.IndexByte(src, '\r') >= 0 || bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		return nil, false
	}
	b := &itemsBlock{keyLine: -1, entryCol: -1}
	for i := 0; i < len(src); {
		b.starts = append(b.starts, i)
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	for n := range b.starts {
		line := b.line(src, n)
		if len(line) > 0 && (line[0] == '%' || bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("..."))) {
			return nil, false
		}
		if b.keyLine < 0 && isItemsKey(line) {
			b.keyLine = n
		}
	}
	if b.keyLine < 0 {
		return nil, false
	}
	b.end = len(b.starts)
	above := false // the line above is blank or a comment
scan:
	for n := b.keyLine + 1; n < len(b.starts); n++ {
		line := b.line(src, n)
		col := 0
		for col < len(line) && line[col] == ' ' {
			col++
		}
		if col == len(line) || line[col] == '#' {
			above = true
			continue
		}
		if line[col] == '\t' {
			return nil, false
		}
		dash := line[col] == '-' && (col+1 == len(line) || line[col+1] == ' ')
		if b.entryCol < 0 {
			if !dash {
				return nil, false // a flow sequence, a scalar, a mapping
			}
			b.entryCol = col
		}
		switch {
		case col > b.entryCol:
		case col == b.entryCol && dash:
			b.entries = append(b.entries, n)
			b.cuttable = append(b.cuttable, !above)
		case col == 0:
			b.end, b.endsInKey = n, true
			break scan
		default:
			return nil, false
		}
		above = false
	}
	// The first piece starts at the first entry: a comment above it would
	// be the item's head comment in the whole parse, and lost in the piece
	// (the line of a finding counts it).
	return b, len(b.entries) > 0 && b.cuttable[0]
}

// line is line n of src without its line break.
func (b *itemsBlock) line(src []byte, n int) []byte {
	end := len(src)
	if n+1 < len(b.starts) {
		end = b.starts[n+1]
	}
	return bytes.TrimSuffix(src[b.starts[n]:end], []byte("\n"))
}

// offset is the byte offset of line n (len(src) past the last line).
func (b *itemsBlock) offset(src []byte, n int) int {
	if n < len(b.starts) {
		return b.starts[n]
	}
	return len(src)
}

func isItemsKey(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("items:"))
	return ok && len(bytes.TrimRight(rest, " ")) == 0
}

// parseSkeleton parses src with the items block blanked out (line numbers
// kept) and checks that it is a ResourceList whose `items` key is where
// findItems saw it, with nothing else taken for part of the items. It
// returns the functionConfig node.
func parseSkeleton(src []byte, b *itemsBlock) (*yaml.Node, bool) {
	from, to := b.offset(src, b.keyLine+1), b.offset(src, b.end)
	skel := make([]byte, 0, from+(b.end-b.keyLine-1)+len(src)-to)
	skel = append(skel, src[:from]...)
	skel = append(skel, bytes.Repeat([]byte("\n"), b.end-b.keyLine-1)...)
	skel = append(skel, src[to:]...)

	dec := yaml.NewDecoder(bytes.NewReader(skel))
	var doc, extra yaml.Node
	if dec.Decode(&doc) != nil || dec.Decode(&extra) != io.EOF {
		return nil, false
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, false
	}
	m := doc.Content[0].Content
	var fc *yaml.Node
	kind, itemsAt := "", -1
	seen := map[string]bool{}
	for i := 0; i+1 < len(m); i += 2 {
		k, v := m[i], m[i+1]
		if seen[k.Value] {
			return nil, false // which one kyaml takes is kyaml's business
		}
		seen[k.Value] = true
		switch k.Value {
		case "kind":
			kind = v.Value
		case "functionConfig":
			fc = v
		case "results":
			return nil, false // kyaml's path replaces them
		case "items":
			if k.Line != b.keyLine+1 || k.Column != 1 || v.Kind != yaml.ScalarNode || v.Tag != "!!null" || v.Value != "" {
				return nil, false
			}
			itemsAt = i
		}
	}
	if kind != "ResourceList" || itemsAt < 0 {
		return nil, false
	}
	if next := itemsAt + 2; next < len(m) {
		if !b.endsInKey || m[next].Line != b.end+1 || m[next].Column != 1 {
			return nil, false
		}
	} else if b.endsInKey {
		return nil, false
	}
	return fc, true
}

// entryOffset is the byte offset of entry i (where the block ends for
// i == len(b.entries)).
func (b *itemsBlock) entryOffset(src []byte, i int) int {
	if i < len(b.entries) {
		return b.offset(src, b.entries[i])
	}
	return b.offset(src, b.end)
}

// parseEntries parses entries [lo, hi) of the items block in pieces, on
// all cores, and returns them with the line numbers they have in src. lo
// and hi must be cuttable (or hi the end): see findItems.
func parseEntries(src []byte, b *itemsBlock, lo, hi int) ([]*yaml.Node, error) {
	type piece struct {
		first, n int // entries[first:first+n]
		items    []*yaml.Node
		err      error
	}
	var pieces []*piece
	start := b.entryOffset(src, lo)
	total := b.entryOffset(src, hi) - start
	want := min(runtime.GOMAXPROCS(0)*4, hi-lo)
	next, first := total/want, lo
	for i := lo + 1; i <= hi; i++ {
		if i == hi {
			pieces = append(pieces, &piece{first: first, n: i - first})
			break
		}
		if b.cuttable[i] && b.entryOffset(src, i)-start >= next {
			pieces = append(pieces, &piece{first: first, n: i - first})
			first = i
			next += total / want
		}
	}
	work := func(p *piece) {
		from, to := b.entryOffset(src, p.first), b.entryOffset(src, p.first+p.n)
		p.items, p.err = parsePiece(src[from:to], b.entries[p.first], p.n)
	}
	if len(pieces) == 1 {
		work(pieces[0])
	} else {
		var wg sync.WaitGroup
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		for _, p := range pieces {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				work(p)
			})
		}
		wg.Wait()
	}
	items := make([]*yaml.Node, 0, hi-lo)
	for _, p := range pieces {
		if p.err != nil {
			return nil, p.err
		}
		items = append(items, p.items...)
	}
	return items, nil
}

// parsePiece parses text, n entries of the items sequence that start on
// line skip (0-based) of the ResourceList, and moves their positions there.
func parsePiece(text []byte, skip, n int) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var doc, extra yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if dec.Decode(&extra) != io.EOF {
		return nil, errShape
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, errShape
	}
	seq := doc.Content[0]
	if seq.Kind != yaml.SequenceNode || seq.Style&yaml.FlowStyle != 0 || len(seq.Content) != n {
		return nil, fmt.Errorf("%w: %d entries, want %d", errShape, len(seq.Content), n)
	}
	for _, it := range seq.Content {
		if !plainMetadata(it) {
			return nil, errShape // kyaml's path reports it
		}
		shiftLines(it, skip)
	}
	return seq.Content, nil
}

// plainMetadata reports whether kyaml's framework, which annotates every
// item while it runs the function, can: an item is a mapping, its metadata
// and annotations are mappings or absent and written once, the
// annotations are strings, and the legacy and internal path, index and
// id annotations agree. (kyaml annotates the first of two metadata
// entries and writes the item back with one: the fast path, which keeps
// the item's bytes, would judge another item.)
func plainMetadata(it *yaml.Node) bool {
	if it.Kind != yaml.MappingNode || !once(it, "metadata") {
		return false
	}
	md := manifest.MapGet(it, "metadata")
	if md == nil {
		return true
	}
	if md.Kind != yaml.MappingNode {
		return false
	}
	if !once(md, "annotations") {
		return false
	}
	ann := manifest.MapGet(md, "annotations")
	if ann == nil {
		return true
	}
	if ann.Kind != yaml.MappingNode {
		return false
	}
	values := map[string]string{}
	for i := 0; i+1 < len(ann.Content); i += 2 {
		k, v := ann.Content[i], ann.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
			return false
		}
		values[k.Value] = v.Value
	}
	for _, pair := range [][2]string{
		{kioutil.LegacyPathAnnotation, kioutil.PathAnnotation},
		{kioutil.LegacyIndexAnnotation, kioutil.IndexAnnotation},
		{kioutil.LegacyIdAnnotation, kioutil.IdAnnotation},
	} {
		legacy, ok1 := values[pair[0]]
		internal, ok2 := values[pair[1]]
		if ok1 && ok2 && legacy != internal {
			return false
		}
	}
	return true
}

// once reports whether the mapping m has key at most once.
func once(m *yaml.Node, key string) bool {
	n := 0
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			n++
		}
	}
	return n <= 1
}

// shiftLines adds by to the line of n and of every node below it. Aliases
// are not followed: the node they name is in the tree and shifted there.
func shiftLines(n *yaml.Node, by int) {
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}
