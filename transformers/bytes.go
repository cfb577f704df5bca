package transformers

import (
	"bytes"
	"math"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// ApplyBytes applies edits to src, the exact bytes the edits' nodes were
// parsed from (the caller strips a UTF-8 BOM first and restores it after;
// multi-document sources have absolute line numbers). It changes only the
// bytes the edits must change: comments, key order, indentation, blank
// lines, line breaks and other documents stay as they are.
//
// Choices a reviewer of the diff will see:
//   - DeleteEntry removes whole lines: the comment lines right above the
//     key at its indentation, the key, its value and its trailing comment.
//     The first key of a `- key: value` item is removed by moving the next
//     key up onto the item's line.
//   - A mapping left without entries becomes `{}`, written where its first
//     key was: an emptied `emptyDir:` must stay a mapping, not turn null.
//   - SetEntry adds lines after the mapping's last entry, indented like its
//     keys; new mappings are indented by the file's step. An empty value
//     (`{}`, `~`, nothing, or Helm's `{}` on a line of its own) is opened
//     into a block mapping.
//   - Inserted lines use the file's first line break; a file without a
//     final line break keeps lacking one.
//
// It refuses, with an *EditError and before changing anything, what it
// cannot do safely: entries of flow mappings, scalars that are not where
// their nodes say or span lines, edits whose byte spans overlap or that
// contradict each other, and anything that would change a value it was not
// asked to change (an anchor other nodes may use, a block scalar at the end
// of a file without a final line break).
func ApplyBytes(src []byte, edits []Edit) ([]byte, error) {
	p := &plan{s: newSource(src), deleted: map[*yaml.Node][]int{}, inserts: map[*yaml.Node]*insertion{}, touched: map[*yaml.Node]Op{}, newKeys: map[newKey]bool{}}
	edits = dedupe(edits)
	for _, e := range edits {
		if err := check(e); err != nil {
			return nil, err
		}
	}
	// Sets go last: they must know which keys the other edits rename.
	for _, set := range []bool{false, true} {
		for _, e := range edits {
			if (e.Op == SetEntry) != set {
				continue
			}
			var err error
			switch e.Op {
			case QuoteScalar:
				err = p.quote(e)
			case DeleteEntry:
				err = p.delete(e)
			case RenameKey:
				err = p.rename(e)
			case SetEntry:
				err = p.set(e)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.splice()
}

// plan collects the byte changes of all edits before any is made, so that
// overlapping edits are found and positions stay those of the source.
type plan struct {
	s       *source
	changes []change
	deleted map[*yaml.Node][]int // mapping -> its entry deletions in changes
	inserts map[*yaml.Node]*insertion
	order   []*yaml.Node // of inserts, for a deterministic result
	// touched records keys renamed or deleted and values replaced, for
	// SetEntry edits, which find their way by key, to see conflicts.
	touched map[*yaml.Node]Op
	newKeys map[newKey]bool
}

type newKey struct {
	m    *yaml.Node
	name string
}

// change replaces s.b[start:end] with text.
type change struct {
	start, end int
	text       string
	by         *Edit
	// depth orders insertions at one offset: edits within a line go
	// before inserted lines (at the end of a file without a final break),
	// and the lines of a nested mapping before those of its parents.
	depth int
}

// insertion gathers the SetEntry edits that add lines at one place, so that
// two edits creating the same missing mapping create it once.
type insertion struct {
	at, indent, step int
	inside           int // an offset in the target, which must not be deleted
	entries          []entry
	by               Edit
}

type entry struct {
	path  []string // keys still to create, the last one holding value
	value string
}

func (p *plan) add(e Edit, start, end int, text string) {
	p.changes = append(p.changes, change{start: start, end: end, text: text, by: &e, depth: math.MaxInt})
}

func (p *plan) quote(e Edit) error {
	if e.Node.Style != 0 { // quoted, block or tagged !!str: already a string
		return nil
	}
	start, end, err := p.scalar(e, e.Node)
	if err != nil {
		return err
	}
	text := p.glue(e.Node, start) + doubleQuote(e.Node.Value)
	if p.longKey(start, end, text) {
		return fail(e, nil, "quoted, the key would pass yaml's limit of 1024 characters")
	}
	p.add(e, start, end, text)
	return nil
}

// longKey reports whether text, replacing s.b[start:end], makes an implicit
// key (followed by `:`) longer than yaml.v3 accepts.
func (p *plan) longKey(start, end int, text string) bool {
	b := p.s.b
	i := end
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i == len(b) || b[i] != ':' {
		return false
	}
	return utf8.RuneCount(b[p.s.lines[p.s.line(start)]:start])+utf8.RuneCountInString(text)+i-end > maxKey
}

// maxKey is how far (in characters) yaml.v3 looks for the `:` of an
// implicit key; the column of the key counts too, conservatively.
const maxKey = 1000

// glue returns the space that must separate new text at o, the start of
// n's content, from a property written right before it: `&a:0` is anchor
// a on the plain scalar ":0".
func (p *plan) glue(n *yaml.Node, o int) string {
	if start, err := p.s.offset(n); err == nil {
		if _, end := p.s.props(start); end != start && end == o {
			return " "
		}
	}
	return ""
}

// scalar returns the span of key or single-line scalar n's text.
func (p *plan) scalar(e Edit, n *yaml.Node) (int, int, error) {
	o, err := p.s.content(n)
	if err != nil {
		return 0, 0, fail(e, n, "%v", err)
	}
	switch {
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		end, err := p.s.quotedEnd(o)
		if err != nil {
			return 0, 0, fail(e, n, "%v", err)
		}
		return o, end, nil
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return 0, 0, fail(e, n, "block scalar; edit it by hand")
	}
	end, ok := p.s.plainText(n, o)
	if !ok {
		return 0, 0, fail(e, n, "not a plain scalar on one line at this position")
	}
	return o, end, nil
}

func (p *plan) rename(e Edit) error {
	if e.Value == e.Node.Value {
		return nil
	}
	start, end, err := p.scalar(e, e.Node)
	if err != nil {
		return err
	}
	if e.Parent != nil {
		k := newKey{e.Parent, e.Value}
		if p.newKeys[k] {
			return fail(e, nil, "another edit renames a key of this mapping to %q too", e.Value)
		}
		p.newKeys[k] = true
	}
	p.touched[e.Node] = RenameKey
	text, _ := renamedKey(e)
	text = p.glue(e.Node, start) + text
	if p.longKey(start, end, text) {
		return fail(e, nil, "the new key would pass yaml's limit of 1024 characters")
	}
	p.add(e, start, end, text)
	return nil
}

func (p *plan) delete(e Edit) error {
	s := p.s
	i, _ := keyIndex(e)
	m, k, v := e.Parent, e.Parent.Content[i], e.Parent.Content[i+1]
	if m.Style&yaml.FlowStyle != 0 {
		return fail(e, nil, "entry of a flow mapping; edit it by hand")
	}
	ko, err := s.offset(k)
	if err != nil {
		return fail(e, nil, "%v", err)
	}
	if _, err := p.colon(e, k); err != nil { // a `? key` spans other lines
		return err
	}
	indent := s.column(ko)
	end, err := s.end(v, indent)
	if err != nil {
		return fail(e, v, "%v", err)
	}
	if !s.firstOnLine(ko) {
		return p.deleteFirstOfItem(e, i, ko, end)
	}
	// Comment lines right above the key at its indentation belong to the
	// entry; lines of the previous entry's value (a block scalar may hold
	// "# ...") do not.
	floor := -1
	if i > 0 {
		pe, err := s.end(m.Content[i-1], indent)
		if err != nil {
			return fail(e, m.Content[i-1], "%v", err)
		}
		floor = s.line(pe)
	}
	first := s.line(ko)
	for first-1 > floor && s.isComment(first-1) {
		if ind, _ := s.indent(first - 1); ind != indent {
			break
		}
		first--
	}
	stop := s.next(s.line(end))
	if i > 0 && p.joinsBlockScalar(m.Content[i-1], stop, indent) {
		return fail(e, nil, "the lines after it would join the block scalar above, changing its value")
	}
	p.add(e, s.lines[first], stop, "")
	p.touched[k] = DeleteEntry
	p.deleted[m] = append(p.deleted[m], len(p.changes)-1)
	return nil
}

// deleteFirstOfItem deletes the first entry of a mapping that starts on a
// sequence item's line: `- a: 1` over `  b: 2` becomes `- b: 2`.
func (p *plan) deleteFirstOfItem(e Edit, i, ko, end int) error {
	s, m := p.s, e.Parent
	prefix := s.b[s.lines[s.line(ko)]:ko]
	if i != 0 || len(bytes.Trim(prefix, " -")) != 0 || bytes.IndexByte(prefix, '-') < 0 {
		return fail(e, nil, "the key shares its line with %q; cannot delete it safely", bytes.TrimSpace(prefix))
	}
	stop := s.next(s.line(end)) // the only entry: finish() writes `{}`
	if len(m.Content) > 2 {
		var err error
		if stop, err = s.offset(m.Content[2]); err != nil {
			return fail(e, m.Content[2], "%v", err)
		}
		if s.line(stop) != s.line(end)+1 {
			return fail(e, nil, "blank or comment lines separate it from the next key, which would have to move up to the item's line")
		}
	}
	p.add(e, ko, stop, "")
	p.touched[e.Node] = DeleteEntry
	p.deleted[m] = append(p.deleted[m], len(p.changes)-1)
	return nil
}

func (p *plan) set(e Edit) error {
	s := p.s
	keys := append(append([]string{}, e.Path...), e.Key)
	step := p.step(e.Parent)
	m := e.Parent
	for i, k := range keys {
		if m.Style&yaml.FlowStyle != 0 || len(m.Content) == 0 {
			return fail(e, m, "flow mapping; edit it by hand")
		}
		for j := 0; j < len(m.Content); j += 2 {
			if p.touched[m.Content[j]] == RenameKey {
				return fail(e, m.Content[j], "another edit renames this key")
			}
		}
		ki := findKey(m, k)
		if ki < 0 {
			ind, err := s.blockIndent(m)
			if err != nil {
				return fail(e, m, "%v", err)
			}
			end, err := s.end(m, -1)
			if err != nil {
				return fail(e, m, "%v", err)
			}
			if endsBlockScalar(s.b[:s.next(s.line(end))], m) {
				return fail(e, m, "the file ends inside a block scalar here; adding lines would change its value")
			}
			p.insert(m, end-1, s.next(s.line(end)), ind, step, keys[i:], e)
			return nil
		}
		key, v := m.Content[ki], m.Content[ki+1]
		if p.touched[key] == DeleteEntry {
			return fail(e, key, "another edit deletes this entry")
		}
		switch {
		case i == len(keys)-1:
			return p.replace(e, key, v)
		case v.Kind == yaml.MappingNode && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0:
			m = v
		case v.Kind == yaml.MappingNode && len(v.Content) == 0 || isNull(v):
			return p.open(e, key, v, keys[i+1:], step)
		default:
			return fail(e, v, "%s is not a mapping", strings.Join(keys[:i+1], "."))
		}
	}
	return nil
}

// joinsBlockScalar reports whether, once the lines before offset stop are
// deleted, what follows would join the block scalar that ends n, an entry
// of a mapping at indent: the end of a file without a final break (the
// value loses its line break), blank lines (a `|+` scalar keeps them),
// lines of spaces or comments indented deeper than the mapping (they are
// content).
func (p *plan) joinsBlockScalar(n *yaml.Node, stop, indent int) bool {
	s := p.s
	for len(n.Content) > 0 {
		n = n.Content[len(n.Content)-1]
	}
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		return false
	}
	if stop == len(s.b) {
		return finalBreak(s.b) == 0
	}
	o, err := s.content(n)
	if err != nil {
		return true
	}
	keep := bytes.IndexByte(s.b[o:s.textEnd(s.line(o), o)], '+') >= 0
	for l := s.line(stop); l < len(s.lines); l++ {
		ind, blank := s.indent(l)
		if !blank {
			return ind > indent // a comment indented under the deleted key
		}
		if keep || ind > 0 {
			return true
		}
	}
	return false
}

// endsBlockScalar reports whether n's text ends with a block scalar that
// runs to the end of b without a line break, whose value therefore changes
// when lines follow it.
func endsBlockScalar(b []byte, n *yaml.Node) bool {
	for len(n.Content) > 0 {
		n = n.Content[len(n.Content)-1]
	}
	return n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && finalBreak(b) == 0
}

// colon returns the offset of the `:` that follows implicit key k.
func (p *plan) colon(e Edit, k *yaml.Node) (int, error) {
	if k.Kind != yaml.ScalarNode {
		return 0, fail(e, k, "complex key")
	}
	_, end, err := p.scalar(e, k)
	if err != nil {
		return 0, err
	}
	for end < len(p.s.b) && isSpace(p.s.b[end]) {
		end++
	}
	if end == len(p.s.b) || p.s.b[end] != ':' {
		return 0, fail(e, k, "key is not followed by ':' on its line")
	}
	return end, nil
}

// replace sets the existing scalar value v of key to e.Value.
func (p *plan) replace(e Edit, key, v *yaml.Node) error {
	if v.Kind != yaml.ScalarNode {
		return fail(e, v, "holds a collection, not a scalar; not overwriting it")
	}
	if v.Value == e.Value && v.ShortTag() == "!!str" {
		return nil
	}
	if v.Style&yaml.TaggedStyle != 0 {
		return fail(e, v, "value has the explicit tag %s", v.Tag)
	}
	if p.inserts[key] != nil {
		return fail(e, key, "another edit makes this value a mapping")
	}
	p.touched[v] = SetEntry
	text, _ := format(e.Value, false)
	if v.Value == "" && v.Style == 0 { // `key:` with nothing after it
		c, err := p.colon(e, key)
		if err != nil {
			return err
		}
		if o, err := p.s.offset(v); err != nil || o != c+1 {
			return fail(e, v, "cannot locate the empty value")
		}
		// Replacing the colon too makes a deletion of the entry overlap.
		p.add(e, c, c+1, ": "+text)
		return nil
	}
	start, end, err := p.scalar(e, v)
	if err != nil {
		return err
	}
	p.add(e, start, end, p.glue(v, start)+text)
	return nil
}
