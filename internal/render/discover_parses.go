package render

import (
	"reflect"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/cache"
)

// Kept parses of kustomization files. A warm pre-commit run in a
// repository of two hundred kustomizations spent a sixth of its time
// parsing them again (yaml.v3 builds a node per token, slowly); the node
// tree is kept instead, in one cache.Pack, and read back with the
// rendered objects' codec (nodecodec.go), which keeps every field of every
// node and which nodes are one (an alias and its anchor).
//
// Why it cannot be stale: the tree yaml.Unmarshal builds is a function of
// the file's bytes and of the YAML library, nothing else (no path, no
// other file, no setting), and the key hashes exactly those: the bytes,
// and the program's identity (cache.Version), which the library is part
// of. What the graph makes of the tree (its entries, their resolution
// against the disk, the roots) is computed afresh on every run, so that a
// directory created or removed, a link retargeted or a file added is seen
// as without the cache. A tree is kept only when it reads back equal to
// the one parsed.

// parses is a run's kept kustomization parses; nil keeps none.
type parses struct{ pack *cache.Pack }

// openParses is the kept parses of store, for runs from scope.
func openParses(store *cache.Store, scope string) *parses {
	if store == nil {
		return nil
	}
	h := cache.NewHasher("shipshape kustomization parses v1")
	h.String(cache.Version())
	h.String(scope)
	return &parses{pack: store.OpenPack(h.Key())}
}

func parseKey(src []byte) cache.Key {
	h := cache.NewHasher("shipshape kustomization parse v1")
	h.String(cache.Version())
	h.Bytes(src)
	return h.Key()
}

// parse is yaml.Unmarshal of src into a document node, kept when p is not
// nil.
func (p *parses) parse(src []byte) (*yaml.Node, error) {
	if p == nil {
		var doc yaml.Node
		err := yaml.Unmarshal(src, &doc)
		return &doc, err
	}
	key := parseKey(src)
	if data, ok := p.pack.Get(key); ok {
		if doc, ok := decodeDoc(data); ok {
			return doc, nil
		}
		p.pack.Forget(key)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return &doc, err // rare, and its error is not kept: parsed again
	}
	var w codecWriter
	encodeNode(&w, &doc, map[*yaml.Node]uint64{})
	if back, ok := decodeDoc(w.buf); ok && reflect.DeepEqual(back, &doc) {
		p.pack.Keep(key, w.buf)
	}
	return &doc, nil
}

// decodeDoc reads a node tree encodeNode wrote, all of data.
func decodeDoc(data []byte) (*yaml.Node, bool) {
	r := codecReader{buf: data}
	var seen []*yaml.Node
	doc := decodeNode(&r, &seen, 0)
	return doc, r.err == nil && len(r.buf) == 0 && doc != nil
}

// save stores the parses this run used.
func (p *parses) save() {
	if p != nil {
		p.pack.Save()
	}
}
