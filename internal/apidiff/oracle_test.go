package apidiff_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// This file is the oracle: what kubectl and the API server make of a
// manifest, using their own libraries. kubectl splits the stream into
// documents (util/yaml.YAMLReader), turns each into JSON with YAML 1.1
// rules (sigs.k8s.io/yaml.YAMLToJSON, go-yaml v2) and sends it; the API
// server decodes it case-sensitively into the typed object, rejecting
// unknown fields in strict field validation (sigs.k8s.io/json).

// chunk is one document as kubectl's YAMLReader returns it, with the line
// it starts on in the file.
type chunk struct {
	data []byte
	line int
}

// splitDocs splits data like util/yaml.YAMLReader: lines lose "\r\n" or
// "\n" and end in "\n", and a line starting with "---" ends a non-empty
// document (an empty one keeps it: a leading "---" belongs to the first
// document). It records the line each document starts on; checkSplit
// holds it to the real reader.
func splitDocs(data []byte) []chunk {
	var out []chunk
	var cur []byte
	start, line := 1, 0
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		l = bytes.TrimSuffix(l, []byte("\r"))
		if bytes.HasPrefix(l, []byte("---")) && len(cur) > 0 {
			out = append(out, chunk{cur, start})
			cur = nil
			continue
		}
		if len(cur) == 0 {
			start = line
		}
		cur = append(append(cur, l...), '\n')
	}
	if len(cur) > 0 {
		out = append(out, chunk{cur, start})
	}
	return out
}

// checkSplit compares splitDocs with kubectl's own reader.
func checkSplit(data []byte, chunks []chunk) error {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 0; ; i++ {
		doc, err := r.Read()
		if err == io.EOF {
			if i != len(chunks) {
				return fmt.Errorf("YAMLReader found %d documents, splitDocs %d", i, len(chunks))
			}
			return nil
		}
		if err != nil {
			return err
		}
		if i >= len(chunks) || !bytes.Equal(doc, chunks[i].data) {
			return fmt.Errorf("document %d differs from YAMLReader's", i)
		}
	}
}

// apiObject is one object as the API server receives it.
type apiObject struct {
	gvk   schema.GroupVersionKind
	json  []byte
	chunk int
}

// apiObjects turns a document into the objects kubectl would send: the
// document itself, or the items of a List.
func apiObjects(js []byte, chunk int) []apiObject {
	var top any
	if json.Unmarshal(js, &top) != nil {
		return nil
	}
	m, ok := top.(map[string]any)
	if !ok {
		return nil
	}
	one := func(m map[string]any) (apiObject, bool) {
		av, _ := m["apiVersion"].(string)
		kind, _ := m["kind"].(string)
		if av == "" || kind == "" {
			return apiObject{}, false
		}
		gv, err := schema.ParseGroupVersion(av)
		if err != nil {
			return apiObject{}, false
		}
		b, err := json.Marshal(m)
		if err != nil {
			return apiObject{}, false
		}
		return apiObject{gvk: gv.WithKind(kind), json: b, chunk: chunk}, true
	}
	obj, ok := one(m)
	if !ok {
		return nil
	}
	if items, isList := m["items"].([]any); isList && strings.HasSuffix(obj.gvk.Kind, "List") {
		var out []apiObject
		for _, it := range items {
			if im, ok := it.(map[string]any); ok {
				if o, ok := one(im); ok {
					out = append(out, o)
				}
			}
		}
		return out
	}
	return []apiObject{obj}
}

// apiError is one reason the API server rejects an object, at a field.
type apiError struct {
	path string // in shipshape's field path notation
	// rule is the shipshape rule that must report it.
	rule string
	// prefix: the error could only be placed at this container (two
	// equal errors below it); a finding anywhere below it matches.
	prefix bool
	msg    string
}

// verdict is what the API server says about one object.
type verdict struct {
	errs []apiError
	// complete is false when an error could not be placed at a field, so
	// the errors after it are unknown.
	complete bool
	// other is the error that stopped the search.
	other string
	// spans of the object's JSON as sent, to tell silent changes.
	spans *spanIndex
}

var strictField = regexp.MustCompile(`^(unknown|duplicate) field "(.*)"$`)

// decide decodes obj as the API server does, repeatedly: each error is
// placed at its field, that value is replaced by null (which every field
// accepts), and the object is decoded again, until it decodes. Strict
// errors (unknown fields) are reported only once the rest decodes, all
// at once, with their paths.
func decide(obj apiObject) verdict {
	js := obj.json
	v := verdict{spans: indexSpans(js)}
	for range 1000 {
		typed, err := scheme.Scheme.New(obj.gvk)
		if err != nil {
			v.other = err.Error()
			return v
		}
		strict, err := sigsjson.UnmarshalStrict(js, typed)
		if err == nil {
			for _, se := range strict {
				m := strictField.FindStringSubmatch(se.Error())
				if m == nil {
					v.errs = append(v.errs, apiError{rule: "?", msg: se.Error()})
					continue
				}
				rule := "unknown-field"
				if m[1] == "duplicate" {
					rule = "duplicate-key"
				}
				v.errs = append(v.errs, apiError{path: strictPath(m[2]), rule: rule, msg: se.Error()})
			}
			v.complete = true
			return v
		}
		ix := indexSpans(js)
		s, viaOffset := locate(obj, js, ix, err)
		if s == nil {
			v.other = err.Error()
			return v
		}
		e := apiError{path: s.path, rule: "type-mismatch", msg: err.Error()}
		var te *json.UnmarshalTypeError
		if viaOffset && errors.As(err, &te) && (te.Value == "bool" || strings.HasPrefix(te.Value, "number")) && isStringType(te.Type) {
			e.rule = "ambiguous-scalar"
		}
		if !viaOffset && (s.kind == 'o' || s.kind == 'a') && !(strings.Contains(err.Error(), "unmarshal array") || strings.Contains(err.Error(), "unmarshal object")) {
			e.prefix = true
		}
		v.errs = append(v.errs, e)
		js = replace(js, s, "null")
	}
	v.other = "too many errors"
	return v
}

func isStringType(t reflect.Type) bool {
	return t.Kind() == reflect.String || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8
}

// locate finds the value an error is about. encoding/json's type errors
// carry the offset where the value ends (scalars) or starts (arrays and
// objects); that is used when the value found there has the type the
// error names. Other errors (from the UnmarshalJSON of IntOrString,
// Quantity, Time, from base64) carry no position; the decoder reports the
// first of them in document order, so the value is found by bisection:
// the first value such that nulling every value after it leaves the same
// error.
func locate(obj apiObject, js []byte, ix *spanIndex, err error) (*span, bool) {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		var best *span
		for i := range ix.spans {
			s := &ix.spans[i]
			if int64(s.start) < te.Offset && te.Offset <= int64(s.end) && (best == nil || s.depth > best.depth) {
				best = s
			}
		}
		if best != nil && best.depth > 0 && kindMatches(best.kind, te.Value) && fieldMatches(te.Field, best.path) {
			return best, true
		}
	}
	pre := make([]*span, len(ix.spans))
	for i := range ix.spans {
		pre[i] = &ix.spans[i]
	}
	slices.SortStableFunc(pre, func(a, b *span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.depth - b.depth
	})
	same := func(k int) bool {
		typed, _ := scheme.Scheme.New(obj.gvk)
		_, err2 := sigsjson.UnmarshalStrict(nullAfter(js, pre, pre[k].start), typed)
		return err2 != nil && err2.Error() == err.Error()
	}
	// pre[0] is the whole object; nulling all but it leaves no error.
	k := sort.Search(len(pre)-1, func(i int) bool { return same(i + 1) }) + 1
	if k >= len(pre) || !same(k) {
		return nil, false
	}
	return pre[k], false
}

// nullAfter replaces every value that starts after offset limit by null.
func nullAfter(js []byte, pre []*span, limit int) []byte {
	out := make([]byte, 0, len(js))
	pos := 0
	for _, s := range pre {
		if s.start > limit && s.start >= pos {
			out = append(append(out, js[pos:s.start]...), "null"...)
			pos = s.end
		}
	}
	return append(out, js[pos:]...)
}

func kindMatches(k byte, value string) bool {
	switch {
	case value == "string":
		return k == 's'
	case strings.HasPrefix(value, "number"):
		return k == 'n'
	case value == "bool":
		return k == 'b'
	case value == "array":
		return k == 'a'
	case value == "object":
		return k == 'o'
	}
	return false
}

// fieldMatches: the last name of a type error's field path (Go struct
// names of inlined structs included, map keys and indexes left out) is one
// of the keys of the value's path.
func fieldMatches(field, path string) bool {
	last := field
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		last = field[i+1:]
	}
	for _, seg := range parsePath(path) {
		if seg.index < 0 && seg.key == last {
			return true
		}
	}
	return false
}

func replace(js []byte, s *span, with string) []byte {
	out := make([]byte, 0, len(js))
	out = append(out, js[:s.start]...)
	out = append(out, with...)
	return append(out, js[s.end:]...)
}

// strictPath turns sigs.k8s.io/json's "spec.containers[0].foo" into
// shipshape's notation.
func strictPath(p string) string {
	var segs []seg
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return p
			}
			i, _ := strconv.Atoi(p[1:end])
			segs = append(segs, seg{index: i})
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			segs = append(segs, seg{key: p[:end], index: -1})
			p = p[end:]
		}
	}
	return render(segs)
}

// A small JSON reader that records where each value is and its path.

type seg struct {
	key   string
	index int // -1 for a key
}

type span struct {
	start, end int
	depth      int
	kind       byte // o a s n b z (null)
	path       string
}

type spanIndex struct {
	js     []byte
	spans  []span // post-order
	byPath map[string]*span
}

func indexSpans(js []byte) *spanIndex {
	ix := &spanIndex{js: js}
	r := &jsonReader{js: js, ix: ix}
	r.value(nil)
	ix.byPath = make(map[string]*span, len(ix.spans))
	for i := range ix.spans {
		ix.byPath[ix.spans[i].path] = &ix.spans[i]
	}
	return ix
}

type jsonReader struct {
	js  []byte
	pos int
	ix  *spanIndex
}

// value reads the compact JSON that json.Marshal writes.
func (r *jsonReader) value(path []seg) {
	start := r.pos
	var kind byte
	switch c := r.js[r.pos]; c {
	case '{':
		kind = 'o'
		r.pos++
		for r.js[r.pos] != '}' {
			key := r.str()
			r.pos++ // ':'
			r.value(append(path, seg{key: key, index: -1}))
			if r.js[r.pos] == ',' {
				r.pos++
			}
		}
		r.pos++
	case '[':
		kind = 'a'
		r.pos++
		for i := 0; r.js[r.pos] != ']'; i++ {
			r.value(append(path, seg{index: i}))
			if r.js[r.pos] == ',' {
				r.pos++
			}
		}
		r.pos++
	case '"':
		kind = 's'
		r.str()
	default:
		switch c {
		case 't', 'f':
			kind = 'b'
		case 'n':
			kind = 'z'
		default:
			kind = 'n'
		}
		for r.pos < len(r.js) && !strings.ContainsRune(",]}", rune(r.js[r.pos])) {
			r.pos++
		}
	}
	r.ix.spans = append(r.ix.spans, span{start: start, end: r.pos, depth: len(path), kind: kind, path: render(path)})
}

func (r *jsonReader) str() string {
	start := r.pos
	r.pos++
	for r.js[r.pos] != '"' {
		if r.js[r.pos] == '\\' {
			r.pos++
		}
		r.pos++
	}
	r.pos++
	s, err := strconv.Unquote(string(r.js[start:r.pos]))
	if err != nil {
		var v string
		json.Unmarshal(r.js[start:r.pos], &v)
		return v
	}
	return s
}

// render writes a path as findings show it (manifest.FieldPath):
// spec.template.metadata.labels["app.kubernetes.io/name"], containers[0].
func render(path []seg) string {
	p := make(manifest.FieldPath, 0, len(path))
	for _, s := range path {
		if s.index >= 0 {
			p = p.Index(s.index)
		} else {
			p = p.Key(s.key)
		}
	}
	return p.String()
}

// parsePath reads render's notation back.
func parsePath(p string) []seg {
	var segs []seg
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
		case strings.HasPrefix(p, "[\""):
			q, err := strconv.QuotedPrefix(p[1:])
			if err != nil {
				return segs
			}
			k, _ := strconv.Unquote(q)
			segs = append(segs, seg{key: k, index: -1})
			p = p[1+len(q)+1:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return segs
			}
			i, _ := strconv.Atoi(p[1:end])
			segs = append(segs, seg{index: i})
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			segs = append(segs, seg{key: p[:end], index: -1})
			p = p[end:]
		}
	}
	return segs
}

// duplicateLines are the lines (in the file) of the second keys that
// go-yaml v2's strict mode, which kubectl's strict decoders use, rejects.
var v2Duplicate = regexp.MustCompile(`line (\d+): key .* already set in map`)

func duplicateLines(c chunk) []int {
	_, err := yaml.YAMLToJSONStrict(c.data)
	if err == nil {
		return nil
	}
	var out []int
	for _, m := range v2Duplicate.FindAllStringSubmatch(err.Error(), -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, c.line+n-1)
	}
	return out
}
