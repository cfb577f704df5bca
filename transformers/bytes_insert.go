package transformers

// ApplyBytes' insertions (bytes.go): new keys opened under an empty value
// or added to a mapping at the indentation its siblings use, rendered, then
// every change spliced into the source at once.

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// open turns key's empty value (`{}`, `~` or nothing) into a block mapping
// holding path.
func (p *plan) open(e Edit, key, v *yaml.Node, path []string, step int) error {
	s := p.s
	if p.touched[v] == SetEntry {
		return fail(e, key, "another edit sets this value to a scalar")
	}
	c, err := p.colon(e, key)
	if err != nil {
		return err
	}
	vo, err := s.offset(v)
	if err != nil {
		return fail(e, v, "%v", err)
	}
	end := vo
	switch {
	case v.Anchor != "":
		return fail(e, v, "value defines anchor &%s", v.Anchor)
	case v.Kind == yaml.MappingNode:
		if end, err = s.flowEnd(vo); err != nil {
			return fail(e, v, "%v", err)
		}
		if strings.Trim(string(s.b[vo+1:end-1]), " \t") != "" {
			return fail(e, v, "cannot rewrite this empty mapping")
		}
	case v.Value != "":
		var ok bool
		if end, ok = s.plainText(v, vo); !ok {
			return fail(e, v, "cannot locate the null value")
		}
	case vo != c+1:
		return fail(e, v, "cannot locate the empty value")
	}
	if l := s.line(end); l != s.line(c) {
		// Helm writes `annotations:` over an indented `{}`: drop that line.
		if v.Kind != yaml.MappingNode || !s.firstOnLine(vo) || strings.Trim(string(s.b[end:s.lineEnd(l)]), " \t") != "" || s.next(l) == s.lineEnd(l) {
			return fail(e, v, "cannot rewrite this empty value")
		}
		p.add(e, s.lines[l], s.next(l), "")
	} else {
		gap := "" // `key: {}#x` must not become `key:#x`
		if end < len(s.b) && !isSpace(s.b[end]) && breakLen(s.b, end) == 0 {
			gap = " "
		}
		p.add(e, c+1, end, gap)
	}
	ko, _ := s.offset(key)
	p.insert(key, ko, s.next(s.line(end)), s.column(ko)+step, step, path, e)
	return nil
}

func (p *plan) insert(target *yaml.Node, inside, at, indent, step int, path []string, e Edit) {
	in := p.inserts[target]
	if in == nil {
		in = &insertion{at: at, inside: inside, indent: indent, step: step, by: e}
		p.inserts[target] = in
		p.order = append(p.order, target)
	}
	in.entries = append(in.entries, entry{path, e.Value})
}

// step guesses how far this file indents a mapping's children: below
// parent's own key first, then in any mapping nested in parent, else 2.
func (p *plan) step(parent *yaml.Node) int {
	s := p.s
	if o, err := s.content(parent); err == nil && s.firstOnLine(o) {
		ind := s.column(o)
		for l := s.line(o) - 1; l >= 0; l-- {
			if _, blank := s.indent(l); blank || s.isComment(l) {
				continue
			}
			// The key of `- key:` starts after the dash.
			i, end := s.lines[l], s.lineEnd(l)
			for i < end && (s.b[i] == ' ' || s.b[i] == '-' && i+1 < end && s.b[i+1] == ' ') {
				i++
			}
			if k := i - s.lines[l]; k < ind {
				return ind - k
			}
			break
		}
	}
	if st := nestedStep(parent); st > 0 {
		return st
	}
	return 2
}

func nestedStep(n *yaml.Node) int {
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 1 && c.Kind == yaml.MappingNode && c.Style&yaml.FlowStyle == 0 &&
			len(c.Content) > 0 && c.Content[0].Line > n.Content[i-1].Line && c.Content[0].Column > n.Content[i-1].Column {
			return c.Content[0].Column - n.Content[i-1].Column
		}
		if st := nestedStep(c); st > 0 {
			return st
		}
	}
	return 0
}

func (p *plan) finish() error {
	s := p.s
	for m, ds := range p.deleted {
		if len(ds)*2 < len(m.Content) {
			continue
		}
		if p.inserts[m] != nil {
			return fail(*p.changes[ds[0]].by, m, "edits both empty this mapping and add to it")
		}
		first := ds[0]
		for _, d := range ds {
			if p.changes[d].start < p.changes[first].start {
				first = d
			}
		}
		ind, err := s.blockIndent(m)
		if err != nil {
			return fail(*p.changes[first].by, m, "%v", err)
		}
		c := &p.changes[first]
		c.text = "{}"
		if s.firstOnLine(c.start) {
			c.text = strings.Repeat(" ", ind) + c.text
		}
		if c.end < len(s.b) || finalBreak(s.b) > 0 {
			c.text += s.eol
		}
	}
	for _, t := range p.order {
		in := p.inserts[t]
		for _, ds := range p.deleted {
			for _, d := range ds {
				if c := p.changes[d]; c.start <= in.inside && in.inside < c.end {
					return fail(in.by, nil, "adds to a mapping that another edit deletes")
				}
			}
		}
		var w strings.Builder
		if err := render(&w, in.entries, in.indent, in.step, s.eol); err != nil {
			return fail(in.by, nil, "%v", err)
		}
		text := w.String()
		if in.at == len(s.b) && len(s.b) > 0 && finalBreak(s.b) == 0 {
			text = s.eol + strings.TrimSuffix(text, s.eol)
		}
		p.add(in.by, in.at, in.at, text)
		p.changes[len(p.changes)-1].depth = in.indent
	}
	return nil
}

// render writes entries as block mapping lines, merging shared keys.
func render(w *strings.Builder, entries []entry, indent, step int, eol string) error {
	var keys []string
	groups := map[string][]entry{}
	for _, e := range entries {
		k := e.path[0]
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], e)
	}
	for _, k := range keys {
		var leaf *entry
		var deeper []entry
		for _, e := range groups[k] {
			switch {
			case len(e.path) > 1:
				deeper = append(deeper, entry{e.path[1:], e.value})
			case leaf != nil && leaf.value != e.value:
				return fmt.Errorf("edits set %q to both %q and %q", k, leaf.value, e.value)
			default:
				leaf = &e
			}
		}
		if leaf != nil && deeper != nil {
			return fmt.Errorf("edits make %q both a value and a mapping", k)
		}
		kt, _ := format(k, true)
		if utf8.RuneCountInString(kt)+indent > maxKey {
			return fmt.Errorf("key %q would pass yaml's limit of 1024 characters", k)
		}
		w.WriteString(strings.Repeat(" ", indent) + kt + ":")
		if leaf != nil {
			vt, _ := format(leaf.value, false)
			w.WriteString(" " + vt + eol)
			continue
		}
		w.WriteString(eol)
		if err := render(w, deeper, indent+step, step, eol); err != nil {
			return err
		}
	}
	return nil
}

// tabLineAfter reports whether the blank lines after offset o hold a tab:
// yaml.v3 accepts them after a plain scalar, which swallows them, but not
// after a quoted one or a new line.
func (p *plan) tabLineAfter(o int) bool {
	s := p.s
	if bytes.IndexByte(s.b, '\t') < 0 {
		return false
	}
	l := s.line(o)
	if s.lines[l] != o {
		l++
	}
	for ; l < len(s.lines); l++ {
		ind, blank := s.indent(l)
		if !blank {
			return false
		}
		if bytes.IndexByte(s.b[s.lines[l]:s.lines[l]+ind], '\t') >= 0 {
			return true
		}
	}
	return false
}

// splice makes the changes, which must not overlap; identical changes (two
// edits doing the same thing) are made once.
func (p *plan) splice() ([]byte, error) {
	b, cs := p.s.b, p.changes
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].start != cs[j].start {
			return cs[i].start < cs[j].start
		}
		if cs[i].end != cs[j].end {
			return cs[i].end < cs[j].end
		}
		return cs[i].depth > cs[j].depth
	})
	grow := 0
	for _, c := range cs {
		grow += len(c.text)
	}
	out := make([]byte, 0, len(b)+grow)
	last, lastBy := 0, &Edit{}
	for i, c := range cs {
		if i > 0 && c.start == cs[i-1].start && c.end == cs[i-1].end && c.text == cs[i-1].text {
			continue
		}
		if c.start < last {
			return nil, fail(*c.by, nil, "overlaps another edit (%v)", fail(*lastBy, nil, ""))
		}
		if p.tabLineAfter(c.end) {
			return nil, fail(*c.by, nil, "a blank line holding a tab follows, which yaml.v3 rejects once the text before it changes")
		}
		out = append(append(out, b[last:c.start]...), c.text...)
		last, lastBy = c.end, c.by
	}
	out = append(out, b[last:]...)
	// Deleting a last line that had no break leaves the previous line's
	// break at the end; the file had none there.
	if len(b) > 0 && finalBreak(b) == 0 {
		out = out[:len(out)-finalBreak(out)]
	}
	return out, nil
}
