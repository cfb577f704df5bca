package render

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// JSON 6902 ops: which op of a JSON patch set a rendered value, read
// through JSON pointers (RFC 6901) over the rendered object, appends to a
// list included, and a kind that an op replaced.

// kindPatched locates an object whose kind a JSON patch of root's graph
// changed (contour turns ClusterRoles into Roles with `op: replace, path:
// /kind`): at that op, not exact (its fields come from a document of
// the other kind, which stays what it is for everything else).
func (r *Renderer) kindPatched(root *Kustomization, o *Object) (Location, bool) {
	var l Location
	found := false
	walkGraph(root, func(k *Kustomization) {
		found = found || r.jsonOps(k, func(e patchEntry, op *yaml.Node) bool {
			if scalarOf(op, "path") != "/kind" || scalarOf(op, "value") != o.Kind || scalarOf(op, "op") != "replace" && scalarOf(op, "op") != "add" {
				return false
			}
			from := "another kind"
			if e.target != nil && e.target.Kind != "" {
				from = e.target.Kind
			}
			l = at(FromJSONPatch, e.file, op, nil)
			l.Doc, l.Block, l.BlockDoc = 0, e.block, e.blockDoc
			l.Why = fmt.Sprintf("this JSON-patch op turns %s into a %s: its fields come from the %s, which stays one where no such patch applies", from, o.Kind, from)
			return true
		})
		// A strategic-merge patch of another kind than its target's
		// (options.allowKindChange): at its kind.
		for _, e := range r.patchEntries(k, "patches") {
			if found || e.target == nil || e.target.Kind == "" || e.target.Kind == o.Kind {
				continue
			}
			for d, doc := range e.docs {
				if doc == nil || doc.Kind != yaml.MappingNode || scalarOf(doc, "kind") != o.Kind {
					continue
				}
				key, val := manifest.MapEntry(doc, "kind")
				l = at(FromPatch, e.file, key, val)
				l.Doc, l.Path, l.Block, l.BlockPath, l.BlockDoc = d, Path{{Key: "kind"}}, e.block, e.blockPath, e.blockDoc
				l.Why = fmt.Sprintf("this patch turns %s into a %s (allowKindChange): its fields come from the %s, which stays one where no such patch applies", e.target.Kind, o.Kind, e.target.Kind)
				found = true
				break
			}
		}
	})
	return l, found
}

// jsonOps calls fn on the ops of the JSON patches k lists (patches and
// patchesJson6902, inline or in files) until it returns true, and says
// whether it did.
func (r *Renderer) jsonOps(k *Kustomization, fn func(e patchEntry, op *yaml.Node) bool) bool {
	for _, field := range []string{"patches", "patchesJson6902"} {
		for _, e := range r.patchEntries(k, field) {
			if len(e.docs) == 0 || e.docs[0] == nil {
				continue
			}
			for _, op := range seq(e.docs[0]) {
				if fn(e, op) {
					return true
				}
			}
		}
	}
	return false
}

// unescapePointer reads one token of a JSON pointer (RFC 6901).
func unescapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// byOps finds the JSON6902 op of e that set p: the last add or replace
// whose path is p or above it (then p is looked up inside its value).
// appended counts, by path, the items the JSON patches applied after e
// append to a list: each is after the one an op of e appended.
func byOps(e patchEntry, o *Object, p Path, v *yaml.Node, appended map[string]int) (Location, bool) {
	ops := seq(e.docs[0])
	for i := len(ops) - 1; i >= 0; i-- {
		op := ops[i]
		kind := scalarOf(op, "op")
		later := appendsAfter(ops, i)
		if path, ok := appends(op); ok {
			later += appended[path]
		}
		opPath, ok := pointerPath(scalarOf(op, "path"), o.Node, later)
		if !ok || len(opPath) > len(p) || !opPath.isPrefixOf(p) {
			continue
		}
		switch kind {
		case "add", "replace":
		case "copy", "move":
			key, val := Path{{Key: "path"}}.Get(op)
			l := at(FromJSONPatch, e.file, key, val)
			l.Doc, l.Path, l.Block, l.BlockPath, l.BlockDoc = 0, Path{{Index: i, IsIndex: true}, {Key: "path"}}, e.block, e.blockPath, e.blockDoc
			l.Why = fmt.Sprintf("the JSON-patch %s op moves the value here from %s", kind, scalarOf(op, "from"))
			return l, true
		default:
			continue
		}
		var l Location
		if len(opPath) == len(p) {
			// The op sets p whole: a finding about the field points at
			// its `path`, one about the value (atValue) at its `value`
			// (Value), which is also what a quoting fix edits.
			key, _ := Path{{Key: "path"}}.Get(op)
			_, val := Path{{Key: "value"}}.Get(op)
			l = at(FromJSONPatch, e.file, key, val)
			l.Path = Path{{Index: i, IsIndex: true}, {Key: "path"}}
			l.Exact = containsOp(v, val)
		} else {
			_, opVal := opPath.Get(o.Node)
			rest := p[len(opPath):]
			srcPath, key, val := follow(mapGet(op, "value"), opVal, rest)
			if val == nil {
				continue
			}
			l = at(FromJSONPatch, e.file, key, val)
			l.Path = Path{{Index: i, IsIndex: true}, {Key: "value"}}.concat(srcPath)
			l.Exact = containsOp(v, val)
		}
		l.Doc, l.Block, l.BlockPath, l.BlockDoc = 0, e.block, e.blockPath, e.blockDoc
		l.Exact = l.Exact && e.exact
		switch {
		case !e.exact:
			l.Why = fmt.Sprintf("the JSON-patch %s op sets it, written inline in a way whose lines shipshape cannot map", kind)
		case !l.Exact:
			l.Why = fmt.Sprintf("the JSON-patch %s op sets it, but the rendered value differs", kind)
		default:
			l.Why = fmt.Sprintf("the JSON-patch %s op sets it", kind)
		}
		return l, true
	}
	return Location{}, false
}

// isPrefixOf reports whether p is a prefix of q.
func (p Path) isPrefixOf(q Path) bool {
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// appendsAfter counts the ops after ops[i] that append to the list
// ops[i] appends to ("add" at the same path ending in "/-"): each puts
// an item after the one ops[i] added.
func appendsAfter(ops []*yaml.Node, i int) int {
	path, ok := appends(ops[i])
	if !ok {
		return 0
	}
	n := 0
	for _, op := range ops[i+1:] {
		if p, ok := appends(op); ok && p == path {
			n++
		}
	}
	return n
}

// appends returns the path of the list op appends to ("add" at a path
// ending in "/-").
func appends(op *yaml.Node) (path string, ok bool) {
	path = scalarOf(op, "path")
	return path, scalarOf(op, "op") == "add" && strings.HasSuffix(path, "/-")
}

// pointerPath turns a JSON pointer into a Path over the rendered object:
// numeric tokens under a sequence are indexes, and "-" (append) is the
// item that many items (later, appended after it) before the last of the
// rendered sequence.
func pointerPath(ptr string, obj *yaml.Node, later int) (Path, bool) {
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	var p Path
	cur := obj
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapePointer(tok)
		if cur != nil && cur.Kind == yaml.SequenceNode {
			n, err := strconv.Atoi(tok)
			if tok == "-" {
				n, err = len(cur.Content)-1-later, nil
			}
			if err != nil || n < 0 {
				return nil, false
			}
			p = p.Idx(n)
		} else {
			p = p.Key(tok)
		}
		_, cur = p[len(p)-1:].Get(cur)
	}
	return p, true
}
