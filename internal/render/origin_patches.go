package render

import (
	"bytes"
	"path/filepath"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Patches: the patches a kustomization lists (strategic-merge and JSON
// 6902, in files or inline, and a Flux Kustomization's spec.patches), read
// with exact positions, and which rendered objects their targets select
// (selects restates kustomize's matching).

// identity are the fields a strategic-merge patch selects its target by.
var identity = map[string]bool{"apiVersion": true, "kind": true, "metadata.name": true, "metadata.namespace": true}

// patchEntry is one patch of a kustomization, read.
type patchEntry struct {
	file      string // the patch file, or the kustomization for inline
	docs      []*yaml.Node
	block     *yaml.Node // the inline scalar, or nil
	blockPath Path
	blockDoc  int  // the document of file holding block
	exact     bool // positions are exact (file, or literal block)
	target    *types.Selector
	targetRe  *types.SelectorRegex // target compiled; nil when it does not compile
}

// byPatches checks the patches of field in k, last first.
func (r *Renderer) byPatches(k *Kustomization, field string, o *Object, b *base, p Path, v *yaml.Node) (Location, bool) {
	entries := r.patchEntries(k, field)
	appended := map[string]int{} // by the JSON patches after e: path -> appends
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if len(e.docs) == 0 || e.docs[0] == nil {
			continue
		}
		if e.docs[0].Kind == yaml.SequenceNode {
			if e.target == nil || !selects(e, o, b) {
				continue
			}
			if l, ok := byOps(e, o, p, v, appended); ok {
				return l, true
			}
			for _, op := range seq(e.docs[0]) {
				if path, ok := appends(op); ok {
					appended[path]++
				}
			}
			continue
		}
		if identity[p.String()] {
			// A strategic-merge patch names its target with these; it
			// does not set them.
			continue
		}
		for d := len(e.docs) - 1; d >= 0; d-- {
			doc := e.docs[d]
			if !patches(e, doc, o, b) {
				continue
			}
			srcPath, key, val := follow(doc, o.Node, p)
			if val == nil {
				continue
			}
			l := at(FromPatch, e.file, key, val)
			l.Doc, l.Path, l.Block, l.BlockPath, l.BlockDoc = d, srcPath, e.block, e.blockPath, e.blockDoc
			l.Exact = e.exact && contains(v, val)
			switch {
			case !e.exact:
				l.Why = "the strategic-merge patch sets it, written inline in a way whose lines shipshape cannot map (not a literal block)"
			case !l.Exact:
				l.Why = "the strategic-merge patch sets it, but the rendered value differs (changed later by a step shipshape cannot trace)"
			default:
				l.Why = "the strategic-merge patch sets it"
			}
			return l, true
		}
	}
	return Location{}, false
}

// patchKey identifies the patches of one field of one kustomization.
type patchKey struct {
	k     *Kustomization
	field string
}

// patchEntries reads the patches listed under field of k, once.
func (r *Renderer) patchEntries(k *Kustomization, field string) []patchEntry {
	if v, ok := r.patches.Load(patchKey{k, field}); ok {
		return v.([]patchEntry)
	}
	out := r.readPatchEntries(k, field)
	r.patches.Store(patchKey{k, field}, out)
	return out
}

func (r *Renderer) readPatchEntries(k *Kustomization, field string) []patchEntry {
	var out []patchEntry
	for i, item := range seq(mapGet(k.Doc, field)) {
		e := patchEntry{file: k.File, exact: true}
		var text *yaml.Node
		var textPath Path
		if item.Kind == yaml.ScalarNode { // patchesStrategicMerge: path or inline
			text, textPath = item, Path{{Key: field}, {Index: i, IsIndex: true}}
		} else {
			if n := mapGet(item, "patch"); n != nil {
				text, textPath = n, Path{{Key: field}, {Index: i, IsIndex: true}, {Key: "patch"}}
			} else if n := mapGet(item, "path"); n != nil {
				text = n
			}
			e.setTarget(mapGet(item, "target"))
		}
		if text == nil || text.Kind != yaml.ScalarNode {
			continue
		}
		if textPath != nil && (item.Kind != yaml.ScalarNode || isInline(text)) {
			e.block, e.blockPath = text, textPath
			e.docs, e.exact = inlineDocs(k.Src, text)
		} else {
			e.file = r.graph.Real(filepath.Join(k.Dir, text.Value))
			e.docs, _ = r.docs(e.file)
		}
		out = append(out, e)
	}
	if field == "patches" {
		for _, f := range k.appendedPatches() {
			out = append(out, r.fluxPatchEntries(f)...)
		}
	}
	return out
}

// setTarget sets e's target from a patch entry's target node t (nil: none).
func (e *patchEntry) setTarget(t *yaml.Node) {
	if t == nil {
		return
	}
	var sel types.Selector
	if err := t.Decode(&sel); err == nil {
		e.target = &sel
		e.targetRe, _ = types.NewSelectorRegex(&sel)
	}
}

// fluxPatchEntries are the patches of a Flux Kustomization's spec.patches,
// which Flux appends to the patches of the kustomization it builds: each
// is written inline (Flux has no patch files) in the Flux file.
func (r *Renderer) fluxPatchEntries(f *FluxPatches) []patchEntry {
	var out []patchEntry
	at := f.At
	if at == nil {
		at = Path{{Key: "spec"}, {Key: "patches"}}
	}
	for i, item := range seq(f.List) {
		text := mapGet(item, "patch")
		if path := mapGet(item, "path"); text == nil && path != nil && path.Kind == yaml.ScalarNode && f.Dir != "" {
			e := patchEntry{file: r.graph.Real(filepath.Join(f.Dir, path.Value)), exact: true}
			e.docs, _ = r.docs(e.file)
			e.setTarget(mapGet(item, "target"))
			out = append(out, e)
			continue
		}
		if text == nil || text.Kind != yaml.ScalarNode {
			continue
		}
		e := patchEntry{file: f.File, block: text, blockDoc: f.Doc,
			blockPath: at.concat(Path{{Index: i, IsIndex: true}, {Key: "patch"}})}
		e.docs, e.exact = inlineDocs(f.Src, text)
		e.setTarget(mapGet(item, "target"))
		out = append(out, e)
	}
	return out
}

// appendedPatches are the patches another engine appends to k's own: a
// Flux Kustomization's spec.patches, then an Argo CD Application's.
func (k *Kustomization) appendedPatches() []*FluxPatches {
	var out []*FluxPatches
	if k.Flux != nil {
		out = append(out, k.Flux)
	}
	if k.Argo != nil && k.Argo.patches != nil {
		out = append(out, k.Argo.patches)
	}
	return out
}

// inlineDocs parses YAML text written inline in the file src (node n)
// and moves its positions to where the text stands in k's file. For a
// literal block scalar (`|`, `|-`, `|+`) the text is the lines below the
// indicator with the block's indentation removed, so inner line L column
// C is file line n.Line+L, column C+indent: exact. Other styles (folded,
// quoted) rewrap or unescape the text: every node gets n's position and
// exact is false.
func inlineDocs(src []byte, n *yaml.Node) (docs []*yaml.Node, exact bool) {
	docs, _ = manifest.DocumentRoots([]byte(n.Value))
	lineOff, colOff := n.Line, 0
	exact = n.Style&yaml.LiteralStyle != 0
	if exact {
		colOff = blockIndent(src, n.Line)
		exact = colOff > 0
	}
	for _, d := range docs {
		walkNodes(d, func(c *yaml.Node) {
			if exact {
				c.Line += lineOff
				c.Column += colOff
			} else {
				c.Line, c.Column = n.Line, n.Column
			}
		})
	}
	return docs, exact
}

// blockIndent returns the indentation of the first non-blank line after
// line (1-based) in src: the content indentation of a block scalar whose
// indicator is on that line. 0 when there is none.
func blockIndent(src []byte, line int) int {
	lines := bytes.Split(src, []byte("\n"))
	for i := line; i < len(lines); i++ {
		l := bytes.TrimRight(lines[i], "\r")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		return len(l) - len(bytes.TrimLeft(l, " "))
	}
	return 0
}

// walkNodes calls fn on n and every node below it.
func walkNodes(n *yaml.Node, fn func(*yaml.Node)) {
	if n == nil {
		return
	}
	fn(n)
	for _, c := range n.Content {
		walkNodes(c, fn)
	}
}

// selects reports whether a patch target selects o, by its rendered name
// or its base name (patches match the name an object had when they ran).
func selects(e patchEntry, o *Object, b *base) bool {
	s, sr := e.target, e.targetRe
	if sr == nil {
		return false
	}
	g, ver := resid.ParseGroupVersion(o.APIVersion)
	if !sr.MatchGvk(resid.NewGvk(g, ver, o.Kind)) {
		return false
	}
	if s.Namespace != "" && !sr.MatchNamespace(o.Namespace) &&
		(b == nil || !sr.MatchNamespace(scalarOf(mapGet(b.node, "metadata"), "namespace"))) {
		// Neither the rendered namespace nor the base's (an outer
		// kustomization may set it after the patch ran).
		return false
	}
	named := false
	for _, n := range names(o, b) {
		if sr.MatchName(n) {
			named = true
		}
	}
	if !named {
		return false
	}
	// kyaml's matching, the one kustomize's selector calls (its own copy
	// of apimachinery's label selector: apimachinery's pkg/labels would
	// link util/validation and klog, whose init every run pays).
	rn := kyaml.NewRNode(o.Node)
	for _, by := range []struct {
		selector string
		matches  func(string) (bool, error)
	}{{s.LabelSelector, rn.MatchesLabelSelector}, {s.AnnotationSelector, rn.MatchesAnnotationSelector}} {
		if by.selector == "" {
			continue
		}
		if ok, err := by.matches(by.selector); err != nil || !ok {
			return false
		}
	}
	return true
}
