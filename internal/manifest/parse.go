package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

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
