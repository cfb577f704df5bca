package transformers

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	yaml2 "go.yaml.in/yaml/v2"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite testdata/apply/*/out.yaml from ApplyBytes")

// editSpec selects an edit's nodes by key path in document Doc of in.yaml.
type editSpec struct {
	Op    string   `yaml:"op"` // quote, quote-key, delete, rename, set
	Doc   int      `yaml:"doc"`
	At    []string `yaml:"at"` // quote: the value; quote-key, delete, rename: the entry; set: the parent
	To    string   `yaml:"to"` // rename
	Path  []string `yaml:"path"`
	Key   string   `yaml:"key"`
	Value string   `yaml:"value"`
}

func parseDocs(b []byte) ([]*yaml.Node, error) {
	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); errors.Is(err, io.EOF) {
			return docs, nil
		} else if err != nil {
			return nil, err
		}
		docs = append(docs, &n)
	}
}

// lookup follows path (mapping keys, sequence indexes) from n and returns
// the node reached, with its mapping and key node when it is a map value.
func lookup(n *yaml.Node, path []string) (parent, key, value *yaml.Node, err error) {
	value = n
	for _, p := range path {
		parent, key = value, nil
		switch value.Kind {
		case yaml.MappingNode:
			i := findKey(value, p)
			if i < 0 {
				return nil, nil, nil, fmt.Errorf("no key %q", p)
			}
			key, value = value.Content[i], value.Content[i+1]
		case yaml.SequenceNode:
			i, err := strconv.Atoi(p)
			if err != nil || i >= len(value.Content) {
				return nil, nil, nil, fmt.Errorf("no item %q", p)
			}
			value = value.Content[i]
		default:
			return nil, nil, nil, fmt.Errorf("%q: not a collection", p)
		}
	}
	return parent, key, value, nil
}

func resolve(docs []*yaml.Node, specs []editSpec) ([]Edit, error) {
	var edits []Edit
	for _, s := range specs {
		if s.Doc >= len(docs) {
			return nil, fmt.Errorf("no document %d", s.Doc)
		}
		parent, key, value, err := lookup(docs[s.Doc].Content[0], s.At)
		if err != nil {
			return nil, fmt.Errorf("%v: %v", s.At, err)
		}
		switch s.Op {
		case "quote":
			edits = append(edits, Edit{Op: QuoteScalar, Node: value})
		case "quote-key":
			edits = append(edits, Edit{Op: QuoteScalar, Node: key})
		case "delete":
			edits = append(edits, Edit{Op: DeleteEntry, Parent: parent, Node: key})
		case "rename":
			edits = append(edits, Edit{Op: RenameKey, Parent: parent, Node: key, Value: s.To})
		case "set":
			edits = append(edits, Edit{Op: SetEntry, Parent: value, Path: s.Path, Key: s.Key, Value: s.Value})
		default:
			return nil, fmt.Errorf("unknown op %q", s.Op)
		}
	}
	return edits, nil
}

// diffNodes compares trees by value (kind, tag, style, anchor, text), not by
// position or comments, and describes the first difference.
func diffNodes(a, b *yaml.Node, at string) string {
	switch {
	case a.Kind != b.Kind || a.ShortTag() != b.ShortTag() || a.Value != b.Value || a.Anchor != b.Anchor:
		return fmt.Sprintf("%s: %v %s %q &%s != %v %s %q &%s", at, a.Kind, a.ShortTag(), a.Value, a.Anchor, b.Kind, b.ShortTag(), b.Value, b.Anchor)
	case a.Style != b.Style:
		return fmt.Sprintf("%s %q: style %v != %v", at, a.Value, a.Style, b.Style)
	case len(a.Content) != len(b.Content):
		return fmt.Sprintf("%s: %d children != %d", at, len(a.Content), len(b.Content))
	}
	for i := range a.Content {
		if d := diffNodes(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
			return d
		}
	}
	return ""
}

// checkAgreement parses ApplyBytes' output and compares it with ApplyNodes
// on a fresh parse of the input.
func checkAgreement(in, out []byte, edits func([]*yaml.Node) ([]Edit, error)) error {
	got, err := parseDocs(out)
	if err != nil {
		return fmt.Errorf("output does not parse: %v", err)
	}
	want, err := parseDocs(in)
	if err != nil {
		return err
	}
	if len(got) != len(want) {
		return fmt.Errorf("%d documents, want %d", len(got), len(want))
	}
	es, err := edits(want)
	if err != nil {
		return err
	}
	if err := ApplyNodes(es); err != nil {
		return fmt.Errorf("ApplyNodes: %v", err)
	}
	for i := range got {
		if d := diffNodes(want[i], got[i], fmt.Sprintf("doc%d", i)); d != "" {
			return fmt.Errorf("ApplyNodes and ApplyBytes disagree at %s", d)
		}
	}
	return nil
}

func TestApplyGolden(t *testing.T) {
	dirs, err := filepath.Glob("testdata/apply/*")
	if err != nil || len(dirs) == 0 {
		t.Fatal("no golden cases", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in := readFile(t, filepath.Join(dir, "in.yaml"))
			var specs []editSpec
			if err := yaml.Unmarshal(readFile(t, filepath.Join(dir, "edits.yaml")), &specs); err != nil {
				t.Fatal(err)
			}
			edits := func(docs []*yaml.Node) ([]Edit, error) { return resolve(docs, specs) }
			docs, err := parseDocs(in)
			if err != nil {
				t.Fatal(err)
			}
			es, err := edits(docs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ApplyBytes(in, es)

			if want, ok := readOptional(t, filepath.Join(dir, "error.txt")); ok {
				if err == nil || !strings.Contains(err.Error(), strings.TrimSpace(string(want))) {
					t.Fatalf("error = %v, want one containing %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			outFile := filepath.Join(dir, "out.yaml")
			if *update {
				if err := os.WriteFile(outFile, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if want := readFile(t, outFile); !bytes.Equal(got, want) {
				t.Errorf("ApplyBytes:\n%s\nwant:\n%s", got, want)
			}
			if err := checkAgreement(in, got, edits); err != nil {
				t.Error(err)
			}
		})
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readOptional(t *testing.T, name string) ([]byte, bool) {
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false
	} else if err != nil {
		t.Fatal(err)
	}
	return b, true
}

func TestPlainOK(t *testing.T) {
	for s, want := range map[string]bool{
		"nginx": true, "nginx:1.25": true, "a b": true, "it's": true, `C:\x`: true, "über": true,
		"": false, "3": false, "1.10": false, "0755": false, "yes": false, "on": false, "Off": false,
		"~": false, "null": false, "a: b": false, "a #b": false, "- a": false, "[a]": false,
		"*a": false, "&a": false, "!a": false, " a": false, "a ": false, "a\nb": false,
		"'a'": false, `"a"`: false, "%a": false, "@a": false, "`a": false, "a:": false,
	} {
		if got := plainOK(s, false); got != want {
			t.Errorf("plainOK(%q) = %v, want %v", s, got, want)
		}
	}
	if plainOK("on", true) || !plainOK("app.kubernetes.io/name", true) {
		t.Error("plainOK for keys")
	}
}

func TestDoubleQuoteReadsBack(t *testing.T) {
	for _, s := range []string{"", "yes", `a"b\c`, "tab\there", "line\nbreak\r", "\x00\x1f\x7f", "é€😀", "\u0085\u2028\u2029\ufeff", " lead", "trail "} {
		var v struct{ K string }
		if err := yaml.Unmarshal([]byte("k: "+doubleQuote(s)), &v); err != nil || v.K != s {
			t.Errorf("doubleQuote(%q) = %s reads back as %q, %v", s, doubleQuote(s), v.K, err)
		}
	}
}

func TestApplyErrors(t *testing.T) {
	src := []byte("a: yes\nb: [x, y]\n")
	docs, _ := parseDocs(src)
	m := docs[0].Content[0]
	moved := *m.Content[1]
	moved.Column = 2
	for name, e := range map[string]Edit{
		"wrong position": {Op: QuoteScalar, Node: &moved},
		"not a key":      {Op: DeleteEntry, Parent: m, Node: m.Content[1]},
		"flow":           {Op: DeleteEntry, Parent: m.Content[3], Node: m.Content[3]},
		"unknown op":     {Op: 99, Node: m.Content[0]},
		"set in scalar":  {Op: SetEntry, Parent: m, Path: []string{"a"}, Key: "k", Value: "v"},
	} {
		if _, err := ApplyBytes(src, []Edit{e}); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.HasPrefix(err.Error(), "1:") && !strings.HasPrefix(err.Error(), "2:") {
			t.Errorf("%s: error %q lacks a position", name, err)
		}
	}
}

func BenchmarkApplyBytes(b *testing.B) {
	var src bytes.Buffer
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&src, "---\n# deployment %d\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-%d\n  labels:\n    active: yes\nspec:\n  replicas: 3\n  strategy:\n    type: RollingUpdate\n  template:\n    spec:\n      containers:\n      - name: app\n        image: nginx:1.25\n        args: [--debug, true]\n", i, i)
	}
	in := src.Bytes()
	docs, err := parseDocs(in)
	if err != nil {
		b.Fatal(err)
	}
	var edits []Edit
	for _, d := range docs {
		es, err := resolve([]*yaml.Node{d}, []editSpec{
			{Op: "quote", At: []string{"metadata", "labels", "active"}},
			{Op: "quote", At: []string{"spec", "template", "spec", "containers", "0", "args", "1"}},
			{Op: "delete", At: []string{"spec", "strategy"}},
			{Op: "set", At: []string{"metadata"}, Path: []string{"annotations"}, Key: "shipshape.dev/fixed", Value: "true"},
		})
		if err != nil {
			b.Fatal(err)
		}
		edits = append(edits, es...)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ApplyBytes(in, edits); err != nil {
			b.Fatal(err)
		}
	}
}

// A rename without its mapping (Parent nil) may be in a flow mapping, where
// a quoted key can be followed right away by its `:` (JSON): the new key
// must stay quoted there, in both appliers.
func TestRenameWithoutParent(t *testing.T) {
	for in, want := range map[string]string{
		`{"spec": {"strategy":{"type": "x"}}}`: `{"spec": {"updateStrategy":{"type": "x"}}}`,
		`{spec: {strategy: {type: x}}}`:        `{spec: {updateStrategy: {type: x}}}`,
		"spec:\n  'strategy': {}\n":            "spec:\n  \"updateStrategy\": {}\n",
		"spec:\n  strategy: {}\n":              "spec:\n  updateStrategy: {}\n",
	} {
		edits := func(docs []*yaml.Node) ([]Edit, error) {
			_, key, _, err := lookup(docs[0].Content[0], []string{"spec", "strategy"})
			return []Edit{{Op: RenameKey, Node: key, Value: "updateStrategy"}}, err
		}
		docs, err := parseDocs([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		es, err := edits(docs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ApplyBytes([]byte(in), es)
		if err != nil || string(got) != want {
			t.Errorf("ApplyBytes(%s) = %s, %v; want %s", in, got, err, want)
			continue
		}
		if err := checkAgreement([]byte(in), got, edits); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// plainFlowOK must only accept keys that read back as themselves in a flow
// mapping, in both YAML versions shipshape cares about.
func TestPlainFlowOK(t *testing.T) {
	for s, want := range map[string]bool{
		"labels": true, "app.kubernetes.io/name": true, "a b": true, "a:b": true, "a#b": true, "-a": true,
		"a,b": false, "[a": false, "a]": false, "{a": false, "a}": false, "?a": false, ":a": false,
	} {
		if got := plainOK(s, true) && plainFlowOK(s); got != want {
			t.Errorf("plainFlowOK(%q) = %v, want %v", s, got, want)
		}
		if !want {
			continue
		}
		for _, doc := range []string{"{" + s + ": v}", "[" + s + ": v]", "{" + s + ", x: y}"} {
			var m3 map[string]any
			var s3 []map[string]any
			var err error
			if doc[0] == '[' {
				err = yaml.Unmarshal([]byte(doc), &s3)
				if err == nil && len(s3) == 1 {
					m3 = s3[0]
				}
			} else {
				err = yaml.Unmarshal([]byte(doc), &m3)
			}
			if _, ok := m3[s]; err != nil || !ok {
				t.Errorf("%s reads as %v, %v: no key %q", doc, m3, err, s)
			}
			var v2 any
			if err := yaml2.Unmarshal([]byte(doc), &v2); err != nil || !strings.Contains(fmt.Sprint(v2), "["+s+":") {
				t.Errorf("yaml.v2 reads %s as %v, %v: no key %q", doc, v2, err, s)
			}
		}
	}
}
