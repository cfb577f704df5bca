package corpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Read reads every *.yaml and *.yml file under dir, found as shipshape
// finds them, with paths relative to dir. It is Files for programs.
func Read(dir string) ([]File, error) {
	inputs, errs := manifest.Collect([]string{dir})
	if len(errs) > 0 {
		return nil, errs[0]
	}
	out := make([]File, 0, len(inputs))
	for _, in := range inputs {
		data, err := os.ReadFile(in.Path)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(dir, in.Path)
		out = append(out, File{Path: rel, Data: data})
	}
	return out, nil
}

// ResourceList is a ResourceList of n items taken evenly from the
// Kubernetes objects in files (CustomResourceDefinitions left out: a KRM
// function pipeline carries workloads, and one CRD alone is up to 1.5 MB),
// each annotated with its path and index the way kpt and kustomize annotate
// items. Compact writes sequences as kustomize writes them (`- ` at the
// indentation of their key), otherwise indented as yaml.v3 writes them.
func ResourceList(files []File, n int, compact bool) ([]byte, error) {
	type item struct {
		node  *yaml.Node
		path  string
		index int
	}
	var all []item
	for _, f := range files {
		dec := yaml.NewDecoder(bytes.NewReader(f.Data))
		for i := 0; ; i++ {
			var doc yaml.Node
			if dec.Decode(&doc) != nil {
				break // EOF, or a broken file: keep what parsed
			}
			if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
				continue
			}
			m := doc.Content[0]
			kind, av := get(m, "kind"), get(m, "apiVersion")
			if kind == nil || av == nil || kind.Value == "CustomResourceDefinition" || strings.HasSuffix(kind.Value, "List") {
				continue
			}
			all = append(all, item{m, f.Path, i})
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no objects in %d files", len(files))
	}
	items := &yaml.Node{Kind: yaml.SequenceNode}
	for i := range n {
		it := all[(i*len(all)/n)%len(all)]
		// Repeats (fewer objects than items) share nodes: the encoder
		// writes each occurrence out in full, which is what we want.
		annotate(it.node, it.path, it.index)
		items.Content = append(items.Content, it.node)
	}
	rl := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		str("apiVersion"), str("config.kubernetes.io/v1"),
		str("kind"), str("ResourceList"),
		str("items"), items,
	}}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if compact {
		enc.CompactSeqIndent()
	}
	if err := enc.Encode(rl); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func get(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// mapping is the mapping under key in m, made one (a null `annotations:`
// becomes {}) or added when it is not.
func mapping(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			if v := m.Content[i+1]; v.Kind != yaml.MappingNode {
				*v = yaml.Node{Kind: yaml.MappingNode}
			}
			return m.Content[i+1]
		}
	}
	v := &yaml.Node{Kind: yaml.MappingNode}
	m.Content = append(m.Content, str(key), v)
	return v
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// annotate sets the annotations kpt and kustomize put on items read from
// files, creating metadata and annotations when missing.
func annotate(obj *yaml.Node, path string, index int) {
	md := mapping(obj, "metadata")
	ann := mapping(md, "annotations")
	for _, kv := range [][2]string{
		{"internal.config.kubernetes.io/path", path},
		{"internal.config.kubernetes.io/index", strconv.Itoa(index)},
	} {
		if v := get(ann, kv[0]); v != nil {
			v.Value = kv[1]
			continue
		}
		v := str(kv[1])
		v.Style = yaml.SingleQuotedStyle
		ann.Content = append(ann.Content, str(kv[0]), v)
	}
}
