package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
	yamlv4 "go.yaml.in/yaml/v4"
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
	dec := yaml.NewDecoder(bytes.NewReader(f.Src))
	var docs []*yaml.Node
	for {
		doc := new(yaml.Node)
		err := dec.Decode(doc)
		if err == io.EOF {
			break
		}
		if err != nil {
			// yaml.v3 stops at the first error; re-read document by
			// document so that the others are still linted.
			docs = f.parseChunks()
			break
		}
		docs = append(docs, doc)
	}
	f.Docs = len(docs)
	for i, doc := range docs {
		if doc == nil || len(doc.Content) == 0 {
			continue
		}
		f.addObjects(doc.Content[0], i, ctx)
	}
	return f
}

func (f *File) addObjects(root *yaml.Node, doc int, ctx Context) {
	if root.Kind != yaml.MappingNode {
		return
	}
	obj := NewObject(root, f.Path, doc, ctx.Patch)
	if obj == nil {
		return // no apiVersion and kind: not a Kubernetes object
	}
	if items := MapGet(root, "items"); items != nil && items.Kind == yaml.SequenceNode && isListKind(obj.Kind) {
		for i, it := range items.Content {
			if item := NewObject(it, f.Path, doc, ctx.Patch); item != nil {
				item.SelectorLabels = ctx.SelectorLabels
				item.Item = i
				f.Objects = append(f.Objects, item)
			}
		}
		return
	}
	obj.SelectorLabels = ctx.SelectorLabels
	f.Objects = append(f.Objects, obj)
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
var docMarker = regexp.MustCompile(`(?m)^(?:---|\.\.\.)(?:[ \t\r]|$)`)

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
		dec := yaml.NewDecoder(bytes.NewReader(chunk))
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

func shiftLines(n *yaml.Node, by int) {
	if by == 0 {
		return
	}
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

var v3LinePrefix = regexp.MustCompile(`^yaml: line (\d+): `)

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
	}
	return e
}

// templateKind recognises files that are templates rather than manifests:
// Go templates (Helm) and ytt, whose `#@` annotations carry the values.
func templateKind(src []byte) string {
	switch {
	case bytes.Contains(src, []byte("{{")):
		return "Helm/Go"
	case bytes.HasPrefix(src, []byte("#@")) || bytes.Contains(src, []byte("\n#@")) || bytes.Contains(src, []byte(" #@")):
		return "ytt"
	}
	return ""
}
