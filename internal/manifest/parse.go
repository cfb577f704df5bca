package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	yamlv4 "go.yaml.in/yaml/v4"

	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
)

var bom = []byte("\xef\xbb\xbf")

// File is one parsed input file (or stdin).
type File struct {
	Path string
	// Src is the file's bytes without a leading UTF-8 BOM; node positions
	// refer to it.
	Src []byte
	BOM bool
	// Template names the template language ("Helm/Go", "ytt") of a file
	// that is not the YAML it renders to; such files are not parsed.
	Template string
	// Docs is the number of YAML documents in the file.
	Docs    int
	Objects []*Object
	Errors  []SyntaxError
	// Strays are documents that are a bare value or a list of Kubernetes
	// objects instead of an object: kubectl rejects them.
	Strays []Stray
	// Context is what Parse was told about the file; fix re-parses with it.
	Context Context
}

// SyntaxError is a YAML parse error with the parser's position.
type SyntaxError struct {
	Line, Column int
	Message      string
}

func (e SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Message)
}

// Parse reads data as a YAML stream of Kubernetes objects; ctx is what
// the surrounding kustomization says about the file.
func Parse(path string, data []byte, ctx Context) *File {
	f := &File{Path: path, Src: data, Context: ctx}
	if bytes.HasPrefix(data, bom) {
		f.Src, f.BOM = data[len(bom):], true
	}
	if f.Template = templateKind(f.Src); f.Template != "" {
		return f
	}
	braces := 0 // Go template markers
	if bytes.Contains(f.Src, []byte("{{")) {
		braces = markers(f.Src)
	}
	docs, err := decodeAll(f.Src)
	if err != nil {
		// Template markers and not YAML: a template. Jinja's {% %}
		// (docs snippets, Ansible) first: Helm never writes them.
		if jinja(f.Src) {
			f.Template = "Jinja"
			return f
		}
		if freeMarker(f.Src) {
			f.Template = "FreeMarker"
			return f
		}
		if _, commented := uncomment(f.Src); braces > commented && !brokenWithout(f.Src) {
			f.Template = "Helm/Go"
			return f
		}
		braces = 0 // every `{{` is on a comment line
		// yaml.v3 stops at the first error; re-read document by
		// document so that the others are still linted.
		docs = f.parseChunks()
	}
	if len(docs) > 1 && bytes.IndexByte(f.Src, '&') >= 0 && bytes.IndexByte(f.Src, '*') >= 0 {
		f.crossAliases(docs)
	}
	if braces > 0 && helmTemplate(path, f.Src, docs, braces) {
		f.Template = "Helm/Go"
		return f
	}
	f.Docs = len(docs)
	assertion := testAssertion(path)
	for i, doc := range docs {
		if doc == nil || len(doc.Content) == 0 {
			continue
		}
		f.addObjects(doc.Content[0], i, ctx, assertion)
		if !assertion {
			f.addStray(doc.Content[0], i, ctx.Patch)
		}
	}
	return f
}

// Stray is a document that cannot be a Kubernetes object.
type Stray struct {
	Line, Column int
	Doc          int
	Message      string
	// Kind is set for an object with a kind and no apiVersion (Message is
	// then empty): the rule reporting it knows which apiVersion to name.
	Kind string
}

// addStray records a document whose root is a scalar other than null, a
// sequence holding Kubernetes objects, or an object without apiVersion
// (not a patch's): kubectl reads one object (a mapping), with both, per
// document. Other sequences (Ansible playbooks, ...) are not Kubernetes
// YAML and are left alone, like mappings without a kind.
func (f *File) addStray(root *yaml.Node, doc int, patch bool) {
	switch root.Kind {
	case yaml.MappingNode:
		// kind and metadata but no apiVersion: a Kubernetes object
		// missing a line, which kubectl rejects ("apiVersion not set")
		// and kustomize passes on as it is. A kustomization leaves it
		// out at will (see impliedKustomization), and so may a patch
		// with a target.
		if patch {
			return
		}
		kind := ScalarValue(MapGet(root, "kind"))
		if md := MapGet(root, "metadata"); kind != "" && MapGet(root, "apiVersion") == nil && md != nil && md.Kind == yaml.MappingNode && !isKustomizationFile(f.Path) {
			f.Strays = append(f.Strays, Stray{Line: root.Line, Column: root.Column, Doc: doc, Kind: kind})
		}
	case yaml.ScalarNode:
		if root.Tag == "!!null" {
			return
		}
		f.Strays = append(f.Strays, Stray{Line: root.Line, Column: root.Column, Doc: doc, Message: fmt.Sprintf(
			"the document is the bare value %s, not a Kubernetes object: kubectl rejects it (remove it, or make it a comment)", Excerpt(root.Value))})
	case yaml.SequenceNode:
		n := 0
		for _, it := range root.Content {
			if NewObject(it, f.Path, doc, false) != nil {
				n++
			}
		}
		if n > 0 {
			what := fmt.Sprintf("a list of %d Kubernetes objects", n)
			if n == 1 {
				what = "a list of one Kubernetes object"
			}
			f.Strays = append(f.Strays, Stray{Line: root.Line, Column: root.Column, Doc: doc, Message: "the document is " + what +
				", not an object: kubectl reads one object per document (separate them with ---, or use kind: List with items:)"})
		}
	}
}

// Sniff refuses data that is not UTF-8 text, before any YAML parser sees
// it: UTF-16 and UTF-32 (which yaml.v3 would decode, but whose bytes fix
// cannot edit) and binary files (a NUL byte, as git decides). Invalid
// UTF-8 inside text is left to the parser, which reports its position.
func Sniff(data []byte) error {
	switch {
	case bytes.HasPrefix(data, []byte{0, 0, 0xfe, 0xff}), bytes.HasPrefix(data, []byte{0xff, 0xfe, 0, 0}):
		return errors.New("UTF-32 text (byte-order mark): shipshape, like kubectl's YAML decoder, reads UTF-8; convert the file (iconv -f UTF-32 -t UTF-8)")
	case bytes.HasPrefix(data, []byte{0xfe, 0xff}), bytes.HasPrefix(data, []byte{0xff, 0xfe}):
		return errors.New("UTF-16 text (byte-order mark): shipshape, like kubectl's YAML decoder, reads UTF-8; convert the file (iconv -f UTF-16 -t UTF-8)")
	}
	head := data
	if len(head) > 8000 {
		head = head[:8000]
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return fmt.Errorf("binary file (a NUL byte at offset %d), not YAML text: not linted", i)
	}
	return nil
}

func (f *File) addObjects(root *yaml.Node, doc int, ctx Context, assertion bool) {
	if root.Kind != yaml.MappingNode {
		return
	}
	partial := ctx.Patch || assertion
	obj := NewObject(root, f.Path, doc, partial)
	if obj == nil && doc == 0 && isKustomizationFile(f.Path) {
		obj = impliedKustomization(root, f.Path)
	}
	if obj == nil {
		return // no apiVersion and kind: not a Kubernetes object
	}
	obj.Assertion = assertion
	if items := MapGet(root, "items"); items != nil && items.Kind == yaml.SequenceNode && isListKind(obj.Kind) {
		for i, it := range items.Content {
			if item := NewObject(it, f.Path, doc, partial); item != nil {
				item.Assertion = assertion
				item.SelectorLabels, item.Kustomize, item.Patch, item.Unrendered = ctx.SelectorLabels, ctx.Kustomize, ctx.Patch, ctx.Unrendered
				item.Item = i
				f.Objects = append(f.Objects, item)
			}
		}
		return
	}
	obj.SelectorLabels, obj.Kustomize, obj.Patch, obj.Unrendered = ctx.SelectorLabels, ctx.Kustomize, ctx.Patch, ctx.Unrendered
	f.Objects = append(f.Objects, obj)
}

// impliedKustomization is the Kustomization of a kustomization file that
// leaves out apiVersion or kind, as most do: kustomize fills them in
// (types.FixKustomization), so its fields are typed all the same. nil
// when the file names another kind or API group.
func impliedKustomization(n *yaml.Node, file string) *Object {
	av, kind := ScalarValue(MapGet(n, "apiVersion")), ScalarValue(MapGet(n, "kind"))
	if kind == "" {
		kind = "Kustomization"
	}
	if av == "" {
		av = "kustomize.config.k8s.io/v1beta1"
		if kind == "Component" {
			av = "kustomize.config.k8s.io/v1alpha1"
		}
	}
	if (kind != "Kustomization" && kind != "Component") || !strings.HasPrefix(av, "kustomize.config.k8s.io/") {
		return nil
	}
	return &Object{Resource: Resource{APIVersion: av, Kind: kind}, File: file, Node: n, Item: -1, Implied: true}
}

func isKustomizationFile(path string) bool {
	return slices.Contains(kustomizationNames, filepath.Base(path))
}

func isListKind(kind string) bool {
	return len(kind) >= 4 && kind[len(kind)-4:] == "List"
}

// NewObject reads the identity of the object at mapping n; nil when n has no
// apiVersion or kind (not a Kubernetes object).
func NewObject(n *yaml.Node, file string, doc int, partial bool) *Object {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	av, kind := ScalarValue(MapGet(n, "apiVersion")), ScalarValue(MapGet(n, "kind"))
	if av == "" || kind == "" {
		return nil
	}
	md := MapGet(n, "metadata")
	return &Object{
		Resource: Resource{
			APIVersion: av,
			Kind:       kind,
			Namespace:  ScalarValue(MapGet(md, "namespace")),
			Name:       ScalarValue(MapGet(md, "name")),
		},
		File:    file,
		Doc:     doc,
		Node:    n,
		Partial: partial || hasPatchDirective(n) || incomplete(kind, n),
		Item:    -1,
	}
}

// hasPatchDirective reports a strategic-merge `$patch` key anywhere below n.
func hasPatchDirective(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "$patch" || hasPatchDirective(n.Content[i+1]) {
				return true
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if hasPatchDirective(c) {
				return true
			}
		}
	}
	return false
}

// docMarker matches a line that starts or ends a YAML document. Such a line
// cannot be content (YAML forbids it at column 0 inside scalars), so
// splitting on it is exact.
var docMarker = lazyregexp.New(`(?m)^(?:---|\.\.\.)(?:[ \t\r]|$)`)

// parseChunks parses each document on its own, recording syntax errors, so
// that one broken document does not hide the others.
func (f *File) parseChunks() []*yaml.Node {
	var docs []*yaml.Node
	starts := []int{0}
	for _, m := range docMarker.FindAllIndex(f.Src, -1) {
		if f.Src[m[0]] == '-' && m[0] != 0 {
			starts = append(starts, m[0])
		}
	}
	starts = append(starts, len(f.Src))
	line := 1
	for i := 0; i+1 < len(starts); i++ {
		chunk := f.Src[starts[i]:starts[i+1]]
		dec := newStreamDecoder(chunk)
		for {
			doc := new(yaml.Node)
			err := dec.Decode(doc)
			if err == io.EOF {
				break
			}
			if err != nil {
				e := syntaxError(chunk, err)
				e.Line += line - 1
				f.Errors = append(f.Errors, e)
				break
			}
			shiftLines(doc, line-1)
			docs = append(docs, doc)
		}
		line += bytes.Count(chunk, []byte("\n"))
	}
	return docs
}

// crossAliases drops the documents with an alias to an anchor of an
// earlier document, recording the error kubectl and kustomize give:
// they read each document alone, while yaml.v3's stream decoder keeps
// the anchors it has seen.
func (f *File) crossAliases(docs []*yaml.Node) {
	for i, doc := range docs {
		own := map[*yaml.Node]bool{}
		var bad *yaml.Node
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if n == nil || bad != nil {
				return
			}
			if n.Anchor != "" {
				own[n] = true
			}
			if n.Kind == yaml.AliasNode && !own[n.Alias] {
				bad = n
				return
			}
			for _, c := range n.Content {
				walk(c)
			}
		}
		walk(doc)
		if bad != nil {
			f.Errors = append(f.Errors, SyntaxError{Line: bad.Line, Column: bad.Column,
				Message: fmt.Sprintf("unknown anchor '%s' referenced: an anchor does not reach into the next document (kubectl and kustomize reject the file)", bad.Value)})
			docs[i] = nil
		}
	}
}

func shiftLines(n *yaml.Node, by int) {
	if by == 0 {
		return
	}
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

var v3LinePrefix = lazyregexp.New(`^yaml: line (\d+): `)

// syntaxError turns a yaml.v3 error into a position. yaml.v3 drops the
// column from its messages, so the chunk is read once more by yaml v4,
// whose errors keep the parser's mark; this happens only on broken input.
func syntaxError(chunk []byte, err error) SyntaxError {
	msg := err.Error()
	e := SyntaxError{Line: 1, Column: 1, Message: msg}
	if m := v3LinePrefix.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Message = msg[len(m[0]):]
	} else if len(msg) > 6 && msg[:6] == "yaml: " {
		e.Message = msg[6:]
	}
	if !utf8.Valid(chunk) {
		// Neither parser says where; the first bad byte is the place.
		return invalidUTF8(chunk)
	}
	var n yamlv4.Node
	var le *yamlv4.LoadError
	if err4 := yamlv4.Unmarshal(chunk, &n); errors.As(err4, &le) && le.Mark.Line > 0 {
		e.Line, e.Column = le.Mark.Line, le.Mark.Column
		if le.Message != "" {
			e.Message = le.Message
		}
		if le.ContextMsg != "" {
			e.Message += " (" + le.ContextMsg + ")"
		}
		// A key with no ': ' after it (`description:|`, a word alone on
		// a line) reads on as a plain scalar until the scanner gives up,
		// lines later: the key is where to look.
		if le.ContextMsg == "while scanning a simple key" && le.ContextMark.Line > 0 && le.ContextMark.Line < le.Mark.Line {
			e.Line, e.Column = le.ContextMark.Line, le.ContextMark.Column
			e.Message = le.Message + " after the key that starts here: a key takes ': ' (a colon and a space) after it"
		}
	}
	return explainToken(chunk, clampPosition(chunk, e))
}

// noToken is how both parsers begin the error for a character no YAML
// token starts with; they do not say which.
const noToken = "found character that cannot start any token"

// explainToken names the character of a "cannot start any token" error
// and what to do about it: a tab, or an unquoted value that starts with
// @, a backtick or % (often a placeholder another tool fills in).
func explainToken(chunk []byte, e SyntaxError) SyntaxError {
	if !strings.HasPrefix(e.Message, noToken) {
		return e
	}
	r, ok := runeAt(chunk, e.Line, e.Column)
	switch {
	case !ok:
	case r == '\t':
		e.Message = "found a tab that cannot start any token (YAML indents with spaces, never tabs)"
	case r == '@':
		e.Message = "found character '@' that cannot start any token (a value that starts with '@' must be quoted; a placeholder (@VAR@) is filled by a tool before anything reads the file)"
	case r == '`' || r == '%':
		e.Message = fmt.Sprintf("found character '%c' that cannot start any token (a value that starts with '%c' must be quoted)", r, r)
	default:
		e.Message = fmt.Sprintf("found character %q that cannot start any token", r)
	}
	return e
}

// runeAt is the character at a 1-based line and column (in characters).
func runeAt(b []byte, line, col int) (rune, bool) {
	l, c := 1, 1
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if l == line && c == col {
			return r, true
		}
		i += size
		switch {
		case r == '\r' && i < len(b) && b[i] == '\n':
			i++
			fallthrough
		case r == '\r' || r == '\n':
			l, c = l+1, 1
		default:
			c++
		}
		if l > line {
			return 0, false
		}
	}
	return 0, false
}

// clampPosition keeps an error inside the chunk: at the end of the input
// the parser's mark can stand on a line that does not exist.
func clampPosition(chunk []byte, e SyntaxError) SyntaxError {
	lines, last := yamlLines(chunk)
	if e.Line > lines {
		e.Line, e.Column = lines, utf8.RuneCount(chunk[last:])+1
	}
	e.Line, e.Column = max(e.Line, 1), max(e.Column, 1)
	return e
}

// yamlLines counts lines as the YAML parser does (CR LF, CR, LF, NEL, LS
// and PS end a line) and returns where the last line starts.
func yamlLines(b []byte) (lines, lastStart int) {
	lines = 1
	for i := 0; i < len(b); i++ {
		n := 0
		switch {
		case b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n':
			n = 2
		case b[i] == '\r', b[i] == '\n':
			n = 1
		case b[i] == 0xc2 && i+1 < len(b) && b[i+1] == 0x85:
			n = 2
		case b[i] == 0xe2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xa8 || b[i+2] == 0xa9):
			n = 3
		default:
			continue
		}
		lines++
		i += n - 1
		lastStart = i + 1
	}
	return lines, lastStart
}

// invalidUTF8 places the first byte of chunk that is not UTF-8.
func invalidUTF8(chunk []byte) SyntaxError {
	line, col := 1, 1
	for i := 0; i < len(chunk); {
		r, size := utf8.DecodeRune(chunk[i:])
		if r == utf8.RuneError && size <= 1 {
			return SyntaxError{Line: line, Column: col, Message: fmt.Sprintf(
				"invalid UTF-8 (byte 0x%02X): the file is not UTF-8 text (Latin-1?); convert it to UTF-8", chunk[i])}
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return SyntaxError{Line: line, Column: col, Message: "invalid UTF-8"}
}

// templateKind recognises ytt templates, whose `#@` annotations carry the
// values. Go templates (Helm) are told apart in Parse: `{{` alone does not
// make one (see dataBraces).
func templateKind(src []byte) string {
	if bytes.HasPrefix(src, []byte("#@")) || bytes.Contains(src, []byte("\n#@")) || bytes.Contains(src, []byte(" #@")) {
		return "ytt"
	}
	return ""
}

// jinja reports whether src holds a Jinja statement ({% raw %}).
func jinja(src []byte) bool {
	i := bytes.Index(src, []byte("{%"))
	return i >= 0 && bytes.Contains(src[i:], []byte("%}"))
}

// freeMarker reports whether src holds a FreeMarker directive (<#if>,
// </#list>) or macro call (<@x>): cloudogu/gitops-playground's .ftl.yaml
// manifests, rendered by a program before anything applies them.
func freeMarker(src []byte) bool {
	for _, open := range [][]byte{[]byte("<#"), []byte("</#"), []byte("<@")} {
		for rest := src; ; {
			i := bytes.Index(rest, open)
			if i < 0 {
				break
			}
			if rest = rest[i+len(open):]; len(rest) > 0 && (rest[0] >= 'a' && rest[0] <= 'z' || rest[0] >= 'A' && rest[0] <= 'Z') {
				return true
			}
		}
	}
	return false
}

// dataBraces counts the `{{` of docs that are text, not YAML structure:
// those inside quoted or block scalars and comments (inData), and those
// inside plain scalars (inPlain). Release bundles (istio's install.yaml,
// knative's) carry injection templates in strings, and alerting rules
// (kube-prometheus's PrometheusRules) carry `{{ $labels.pod }}` in plain
// descriptions: valid manifests, applied as written. A `{{` that opened a
// flow collection (`name: {{ .Name }}`) or a key is a template the YAML
// parser happened to accept, and so is a Helm chart's template with
// `{{` in plain scalars only: Helm renders it first.
func dataBraces(docs []*yaml.Node) (inData, inPlain int) {
	custom := false // the document is a custom resource (see below)
	var walk func(x *yaml.Node, key bool)
	walk = func(x *yaml.Node, key bool) {
		if x == nil {
			return
		}
		for _, c := range []string{x.HeadComment, x.LineComment, x.FootComment} {
			inData += markers(c)
		}
		switch {
		case x.Kind != yaml.ScalarNode:
		case x.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0:
			inData += markers(x.Value)
		case !key: // a plain key with `{{` is structure
			inPlain += markers(x.Value)
		case custom:
			// Except in a custom resource, whose controller reads its
			// own variables, keys too (Kyverno's
			// `…apparmor…/{{element.name}}:`).
			inData += markers(x.Value)
		}
		for i, c := range x.Content {
			walk(c, x.Kind == yaml.MappingNode && i%2 == 0)
		}
	}
	for _, d := range docs {
		custom = false
		if d != nil && len(d.Content) > 0 {
			group, _, grouped := strings.Cut(ScalarValue(MapGet(d.Content[0], "apiVersion")), "/")
			custom = grouped && strings.Contains(group, ".") && !strings.HasSuffix(group, ".k8s.io")
		}
		walk(d, false)
	}
	return inData, inPlain
}

// helmTemplate reports whether src, which parsed as the YAML docs and
// holds braces `{{`, is a Go template: some `{{` are YAML structure (see
// dataBraces).
func helmTemplate(path string, src []byte, docs []*yaml.Node, braces int) bool {
	inData, inPlain := dataBraces(docs)
	if braces > inData+inPlain {
		// yaml.v3 drops some comments (a file that holds nothing else,
		// one before a `---`), which dataBraces cannot count. A `{{` on
		// a comment line is text when the file reads the same without
		// it; on a line of a multi-line scalar it is not.
		if bare, n := uncomment(src); n > 0 {
			if again, err := decodeAll(bare); err == nil && sameDocs(docs, again) {
				inData, inPlain = dataBraces(again)
				braces -= n
			}
		}
	}
	return braces > inData+inPlain || inPlain > 0 && inHelmChart(path)
}

// brokenWithout reports whether src, which does not parse and holds Go
// template markers, is broken YAML whatever they hold: every marker is
// inside a line's text (none starts a line, as a template's actions and
// includes do) and src still does not parse with each `{{ ... }}` made
// plain text of the same width. A manifest whose values quote a
// Prometheus alert template ({{ $labels.pod }}) is such a file, when it
// has a syntax error of its own.
func brokenWithout(src []byte) bool {
	plain := slices.Clone(src)
	for start := 0; start < len(plain); {
		end := bytes.IndexByte(plain[start:], '\n') + 1
		if end == 0 {
			end = len(plain) - start
		}
		line := plain[start : start+end]
		lead := bytes.TrimLeft(line, " \t")
		lead = bytes.TrimLeft(bytes.TrimPrefix(lead, []byte("- ")), " \t")
		if bytes.HasPrefix(lead, []byte("{{")) {
			return false
		}
		for i := 0; i+1 < len(line); i++ {
			if !marker(line, i) {
				continue
			}
			j := bytes.Index(line[i:], []byte("}}"))
			if j < 0 {
				return false // an action over several lines
			}
			for k := i; k < i+j+2; k++ {
				line[k] = 'x'
			}
			i += j + 1
		}
		start += end
	}
	_, err := decodeAll(plain)
	return err != nil
}

// uncomment is src with the `{{` of its comment lines (`#` first on the
// line) made `{ `, and how many.
func uncomment(src []byte) ([]byte, int) {
	var out []byte
	n := 0
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n') + 1
		if end == 0 {
			end = len(src) - start
		}
		line := src[start : start+end]
		if bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("#")) {
			for i := 0; i+1 < len(line); i++ {
				if marker(line, i) {
					if out == nil {
						out = slices.Clone(src)
					}
					out[start+i+1] = ' '
					n++
					i++
				}
			}
		}
		start += end
	}
	return out, n
}

// decodeAll is the YAML documents of src.
func decodeAll(src []byte) ([]*yaml.Node, error) {
	dec := newStreamDecoder(src)
	var docs []*yaml.Node
	for {
		doc := new(yaml.Node)
		if err := dec.Decode(doc); err == io.EOF {
			return docs, nil
		} else if err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	}
}

// sameDocs reports whether a and b hold the same nodes and values,
// comments aside.
func sameDocs(a, b []*yaml.Node) bool {
	return slices.EqualFunc(a, b, sameNode)
}

func sameNode(x, y *yaml.Node) bool {
	if x == nil || y == nil {
		return x == y
	}
	return x.Kind == y.Kind && x.Style == y.Style && x.Tag == y.Tag && x.Value == y.Value &&
		x.Anchor == y.Anchor && x.Line == y.Line && x.Column == y.Column &&
		slices.EqualFunc(x.Content, y.Content, sameNode)
}

// markers counts the Go template markers `{{` in s. `${{` is GitHub
// Actions' and Azure Pipelines' expression syntax, which Helm does not
// write: a pipeline's keys are made of it.
func markers[T string | []byte](s T) int {
	n := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '{' && s[i+1] == '{' {
			if marker(s, i) {
				n++
			}
			i++
		}
	}
	return n
}

// marker reports whether a Go template marker starts at s[i].
func marker[T string | []byte](s T, i int) bool {
	return i+1 < len(s) && s[i] == '{' && s[i+1] == '{' && (i == 0 || s[i-1] != '$')
}

// inHelmChart reports whether path is in a Helm chart's templates
// directory (a `templates` directory beside a Chart.yaml), which Helm
// renders before anything reads it.
func inHelmChart(path string) bool {
	if path == "" || path == "-" {
		return false
	}
	for dir := filepath.Dir(path); ; {
		parent := filepath.Dir(dir)
		if filepath.Base(dir) == "templates" {
			if _, err := os.Stat(filepath.Join(parent, "Chart.yaml")); err == nil {
				return true
			}
		}
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// DocumentRoots parses a YAML stream into its document roots (nil for an
// empty document, so indexes are document numbers), up to the first
// document that does not parse (with its error).
func DocumentRoots(data []byte) ([]*yaml.Node, error) {
	dec := newStreamDecoder(data)
	var docs []*yaml.Node
	for {
		var d yaml.Node
		err := dec.Decode(&d)
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return docs, err
		}
		if len(d.Content) == 0 {
			docs = append(docs, nil)
			continue
		}
		docs = append(docs, d.Content[0])
	}
}
