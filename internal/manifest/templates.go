package manifest

// Files that are templates, not manifests (Helm charts' templates, ytt,
// Jinja, FreeMarker): told apart so that their lines are read but not
// judged as objects.

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

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
