package transformers

import (
	"errors"
	"sort"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// source is YAML text indexed the way yaml.v3 counts positions, so that a
// node's Line and Column (1-based, Column in runes) map to a byte offset.
// It also finds where a node's text ends, which yaml.v3 does not report.
type source struct {
	b     []byte
	lines []int  // byte offset at which each line starts
	eol   string // the file's line break, used for inserted lines
}

func newSource(b []byte) *source {
	s := &source{b: b, lines: make([]int, 1, 64)}
	for i := 0; i < len(b); {
		n := breakLen(b, i)
		if n == 0 {
			i++
			continue
		}
		if s.eol == "" {
			s.eol = string(b[i : i+n])
		}
		i += n
		s.lines = append(s.lines, i)
	}
	if s.eol != "\n" && s.eol != "\r\n" && s.eol != "\r" {
		s.eol = "\n"
	}
	return s
}

// breakLen returns the length of the line break at b[i], or 0. yaml.v3 also
// breaks lines at NEL, LS and PS and counts them in node positions, so they
// must count here too.
func breakLen(b []byte, i int) int {
	switch b[i] {
	case '\n':
		return 1
	case '\r':
		if i+1 < len(b) && b[i+1] == '\n' {
			return 2
		}
		return 1
	case 0xC2: // U+0085
		if i+1 < len(b) && b[i+1] == 0x85 {
			return 2
		}
	case 0xE2: // U+2028, U+2029
		if i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9) {
			return 3
		}
	}
	return 0
}

// finalBreak returns the length of the line break that ends b, or 0.
func finalBreak(b []byte) int {
	for _, n := range []int{3, 2, 1} {
		if len(b) >= n && breakLen(b, len(b)-n) == n {
			return n
		}
	}
	return 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

var errPosition = errors.New("position is outside the source; were the nodes parsed from these bytes?")

// offset returns the byte offset of n's position.
func (s *source) offset(n *yaml.Node) (int, error) {
	if n.Line < 1 || n.Line > len(s.lines) || n.Column < 1 {
		return 0, errPosition
	}
	o, end := s.lines[n.Line-1], s.lineEnd(n.Line-1)
	for c := 1; c < n.Column; c++ {
		if o >= end {
			return 0, errPosition
		}
		_, w := utf8.DecodeRune(s.b[o:end])
		o += w
	}
	return o, nil
}

// line returns the 0-based line holding offset o.
func (s *source) line(o int) int { return sort.SearchInts(s.lines, o+1) - 1 }

// lineEnd returns the offset of the break that ends line l (len(b) on the last line).
func (s *source) lineEnd(l int) int {
	for i := s.lines[l]; i < len(s.b); i++ {
		if breakLen(s.b, i) > 0 {
			return i
		}
	}
	return len(s.b)
}

// next returns the offset of the line after l (len(b) after the last line).
func (s *source) next(l int) int {
	if l+1 < len(s.lines) {
		return s.lines[l+1]
	}
	return len(s.b)
}

// indent returns the column of line l's first character that is not a
// space or tab, and whether the line holds nothing else (blank).
func (s *source) indent(l int) (int, bool) {
	i, end := s.lines[l], s.lineEnd(l)
	for i < end && isSpace(s.b[i]) {
		i++
	}
	return i - s.lines[l], i == end
}

func (s *source) isComment(l int) bool {
	ind, blank := s.indent(l)
	return !blank && s.b[s.lines[l]+ind] == '#'
}

// column returns the 0-based column (in runes) of offset o.
func (s *source) column(o int) int { return utf8.RuneCount(s.b[s.lines[s.line(o)]:o]) }

// firstOnLine reports whether only spaces precede offset o on its line.
func (s *source) firstOnLine(o int) bool {
	for i := s.lines[s.line(o)]; i < o; i++ {
		if s.b[i] != ' ' {
			return false
		}
	}
	return true
}

// props returns where a node's content starts, after the anchor and tag
// at o and the blanks and comments that may follow them, and where the last
// of those properties ends (o when there are none).
func (s *source) props(o int) (content, end int) {
	b := s.b
	content, end = o, o
	for content < len(b) && (b[content] == '&' || b[content] == '!') {
		end = propEnd(b, content)
		content = s.skipBlank(end)
	}
	return content, end
}

// skipBlank skips blanks, line breaks and comments from o, which is not
// inside a token.
func (s *source) skipBlank(o int) int {
	for o < len(s.b) {
		if n := breakLen(s.b, o); n > 0 {
			o += n
		} else if isSpace(s.b[o]) {
			o++
		} else if s.b[o] == '#' {
			o = s.lineEnd(s.line(o))
		} else {
			break
		}
	}
	return o
}

// propEnd returns the end of the anchor, alias or tag at o, scanned as
// yaml.v3 does: anchor names are [0-9A-Za-z_-], tags run to a blank.
func propEnd(b []byte, o int) int {
	tag := b[o] == '!'
	for o++; o < len(b) && !isSpace(b[o]) && breakLen(b, o) == 0; o++ {
		c := b[o]
		if !tag && !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || c == '-') {
			break
		}
	}
	return o
}

func isFlowIndicator(c byte) bool {
	return c == ',' || c == '[' || c == ']' || c == '{' || c == '}'
}

// content returns the offset of n's text, after its anchor and tag.
func (s *source) content(n *yaml.Node) (int, error) {
	o, err := s.offset(n)
	if err != nil {
		return 0, err
	}
	c, _ := s.props(o)
	return c, nil
}

// blockIndent returns the indentation of block collection n: the column of
// its first key, `?` or `-`. Its position may be at its properties; those
// that end a line are the collection's, those before a key are the key's.
func (s *source) blockIndent(n *yaml.Node) (int, error) {
	c, err := s.offset(n)
	if err != nil {
		return 0, err
	}
	b := s.b
	for c < len(b) && (b[c] == '&' || b[c] == '!') {
		j := c
		for j < len(b) && (b[j] == '&' || b[j] == '!') {
			for j = propEnd(b, j); j < len(b) && isSpace(b[j]); j++ {
			}
		}
		if j < len(b) && b[j] != '#' && breakLen(b, j) == 0 {
			break
		}
		c = s.skipBlank(j)
	}
	return s.column(c), nil
}

// plainText returns the end of the single-line plain scalar n starting at
// o, or false when the text there is not n's value on one line.
func (s *source) plainText(n *yaml.Node, o int) (int, bool) {
	end := o + len(n.Value)
	if n.Value == "" || end > len(s.b) || string(s.b[o:end]) != n.Value {
		return 0, false
	}
	// Equal bytes cannot include a break: yaml.v3 folds breaks in plain
	// scalars into spaces or newlines, and breaks are never plain text.
	return end, true
}

// end returns the offset just past n's text. indent is the indentation of
// the block collection holding n: it bounds block scalars and multi-line
// plain scalars, whose ends are found by indentation, as yaml.v3 does.
func (s *source) end(n *yaml.Node, indent int) (int, error) {
	o, err := s.offset(n)
	if err != nil {
		return 0, err
	}
	switch n.Kind {
	case yaml.AliasNode:
		if s.b[o] != '*' {
			return 0, errors.New("alias is not where the node says")
		}
		return o + 1 + len(n.Value), nil
	case yaml.MappingNode, yaml.SequenceNode:
		if n.Style&yaml.FlowStyle == 0 && len(n.Content) > 0 {
			ind, err := s.blockIndent(n)
			if err != nil {
				return 0, err
			}
			return s.end(n.Content[len(n.Content)-1], ind)
		}
		return s.flowEnd(first(s.props(o)))
	case yaml.ScalarNode:
		switch {
		case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
			return s.blockScalarEnd(first(s.props(o)), indent)
		case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
			return s.quotedEnd(first(s.props(o)))
		case n.Value == "":
			// yaml.v3 places some empty values at the next token, and
			// properties on a later line may be the next key's.
			if _, end := s.props(o); end != o && s.line(end) == s.line(o) ||
				end == o && o > 0 && (s.b[o-1] == ':' || s.b[o-1] == '-') {
				return end, nil
			}
			return 0, errors.New("cannot locate the empty value")
		}
		c, _ := s.props(o)
		if end, ok := s.plainText(n, c); ok {
			return end, nil
		}
		return s.plainEnd(c, indent), nil
	}
	return 0, errors.New("unexpected node kind")
}

// textEnd returns the end of the scalar text of line l that starts at o:
// before a comment and trailing blanks.
func (s *source) textEnd(l, o int) int {
	end := s.lineEnd(l)
	for i := o; i < end; i++ {
		if s.b[i] == '#' && i > o && isSpace(s.b[i-1]) {
			end = i
			break
		}
	}
	for end > o && isSpace(s.b[end-1]) {
		end--
	}
	return end
}

// plainEnd follows a multi-line plain scalar in block context: its
// continuation lines are indented deeper than its collection.
func (s *source) plainEnd(o, indent int) int {
	l := s.line(o)
	end := s.textEnd(l, o)
	for l++; l < len(s.lines); l++ {
		ind, blank := s.indent(l)
		if blank {
			continue
		}
		start := s.lines[l] + ind
		if ind <= indent || s.b[start] == '#' || s.docMarker(l) {
			break
		}
		end = s.textEnd(l, start)
	}
	return end
}

func (s *source) docMarker(l int) bool {
	t := s.b[s.lines[l]:s.lineEnd(l)]
	if len(t) < 3 || (string(t[:3]) != "---" && string(t[:3]) != "...") {
		return false
	}
	return len(t) == 3 || isSpace(t[3])
}

// blockScalarEnd follows a literal or folded scalar whose header starts at
// o, with yaml.v3's rules for its content indentation.
func (s *source) blockScalarEnd(o, indent int) (int, error) {
	if o >= len(s.b) || (s.b[o] != '|' && s.b[o] != '>') {
		return 0, errors.New("block scalar is not where the node says")
	}
	explicit, keep := 0, false
	for i := o + 1; i < len(s.b) && (s.b[i] == '+' || s.b[i] == '-' || s.b[i] >= '1' && s.b[i] <= '9'); i++ {
		switch c := s.b[i]; c {
		case '+':
			keep = true
		case '-':
		default:
			explicit = int(c - '0')
		}
	}
	l := s.line(o)
	end := s.lineEnd(l)
	ci := 0 // content indentation, 0 until known
	if explicit > 0 {
		ci = max(indent, 0) + explicit
	}
	leading := 0
	for l++; l < len(s.lines); l++ {
		i, le := s.lines[l], s.lineEnd(l)
		for i < le && s.b[i] == ' ' {
			i++
		}
		sp, empty := i-s.lines[l], i == le
		if empty && (ci == 0 || sp <= ci) {
			leading = max(leading, sp)
			if keep { // kept trailing breaks belong to the value
				end = le
			}
			continue
		}
		if ci == 0 {
			ci = max(leading, sp, indent+1, 1)
		}
		if sp < ci {
			return end, nil
		}
		end = le
	}
	return end, nil
}

// quotedEnd returns the offset just past the quoted scalar starting at o.
func (s *source) quotedEnd(o int) (int, error) {
	b := s.b
	if o >= len(b) || (b[o] != '"' && b[o] != '\'') {
		return 0, errors.New("quoted scalar is not where the node says")
	}
	q := b[o]
	for i := o + 1; i < len(b); i++ {
		switch {
		case q == '"' && b[i] == '\\':
			i++
		case b[i] == q && q == '\'' && i+1 < len(b) && b[i+1] == '\'':
			i++
		case b[i] == q:
			return i + 1, nil
		}
	}
	return 0, errors.New("unterminated quoted scalar")
}

// flowEnd returns the offset just past the flow collection starting at o.
// It tokenizes just enough to skip quoted scalars and comments: plain
// scalars cannot hold flow indicators, but may hold quote characters.
func (s *source) flowEnd(o int) (int, error) {
	b := s.b
	if o >= len(b) || (b[o] != '[' && b[o] != '{') {
		return 0, errors.New("flow collection is not where the node says")
	}
	depth, plain := 0, false
	for i := o; i < len(b); i++ {
		c := b[i]
		switch {
		case isSpace(c) || breakLen(b, i) > 0:
		case c == '#' && (isSpace(b[i-1]) || s.lines[s.line(i)] == i):
			i = s.lineEnd(s.line(i)) - 1
			plain = false
		case c == '[' || c == '{':
			depth++
			plain = false
		case c == ']' || c == '}':
			if depth--; depth == 0 {
				return i + 1, nil
			}
			plain = false
		case c == ',':
			plain = false
		case c == ':' && (!plain || i+1 == len(b) || isSpace(b[i+1]) || breakLen(b, i+1) > 0 || isFlowIndicator(b[i+1])):
			plain = false
		case plain:
		case c == '"' || c == '\'':
			e, err := s.quotedEnd(i)
			if err != nil {
				return 0, err
			}
			i = e - 1
		case c == '&' || c == '!' || c == '*':
			i = propEnd(b, i) - 1
		case c == '?' && (i+1 < len(b) && (isSpace(b[i+1]) || breakLen(b, i+1) > 0)):
		default:
			plain = true
		}
	}
	return 0, errors.New("unterminated flow collection")
}

func first(a, _ int) int { return a }
