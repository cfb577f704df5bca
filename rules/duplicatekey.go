package rules

import (
	"slices"
	"strconv"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/schemawalk"
	"go.yaml.in/yaml/v3"
)

var duplicateKey = Register(&analysis.Rule{
	ID:       "duplicate-key",
	Severity: analysis.Error,
	Summary:  "A mapping has the same key twice",
	Targets:  analysis.SourceFiles | analysis.Patches,
	Visit:    visitDuplicates,
	Check:    analysis.WalkAlone(visitDuplicates),
})

// visitDuplicates looks at every mapping of the object, typed or not.
// Aliases are not followed (what they name is visited where it is
// defined), so the walk is linear in the size of the document.
func visitDuplicates(p *analysis.Pass) schemawalk.Visitor {
	w := &dupChecker{p: p}
	return schemawalk.Visitor{Enter: w.enter, Untyped: true}
}

type dupChecker struct {
	p    *analysis.Pass
	seen map[string]int // key text -> index in the mapping; reused for large mappings
}

func (w *dupChecker) enter(c *schemawalk.Cursor) bool {
	if c.Node.Kind == yaml.MappingNode {
		w.mapping(c.Node, c.Path)
	}
	return true
}

func (w *dupChecker) mapping(n *yaml.Node, path manifest.FieldPath) {
	keys := len(n.Content) / 2
	if keys < 2 {
		return
	}
	if len(path) == 0 && w.merged(n) {
		return // its other top-level keys repeat for the same reason
	}
	if keys <= 16 {
		// Small mappings, nearly all of them: no map, no allocation.
		var texts [16]string
		var ok [16]bool
		for i := 0; i < keys; i++ {
			if k := n.Content[2*i]; comparableKey(k) {
				texts[i], ok[i] = schemawalk.KeyText(k), true
			}
		}
		for i := 1; i < keys; i++ {
			for j := 0; ok[i] && j < i; j++ {
				if ok[j] && texts[j] == texts[i] {
					w.report(path, n.Content[2*j:2*j+2], n.Content[2*i:2*i+2], texts[i])
					break
				}
			}
		}
		return
	}
	if w.seen == nil {
		w.seen = map[string]int{}
	}
	clear(w.seen)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !comparableKey(k) {
			continue
		}
		text := schemawalk.KeyText(k)
		if j, ok := w.seen[text]; ok {
			w.report(path, n.Content[j:j+2], n.Content[i:i+2], text)
			continue
		}
		w.seen[text] = i
	}
}

// comparableKey: scalar keys other than the merge key `<<`.
func comparableKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && !schemawalk.IsMergeKey(k)
}

// report names no line in the message: fix and the KRM function match
// findings before and after a fix by their message, and fixes move lines.
// first and second are the two entries (key and value).
func (w *dupChecker) report(in manifest.FieldPath, firstEntry, secondEntry []*yaml.Node, text string) {
	first, second := firstEntry[0], secondEntry[0]
	path := in.Key(second.Value).String()
	if first.Value != second.Value {
		w.p.Report(second, path, nil,
			"key %s repeats the key %s above it: kubectl reads both as the key %s (YAML 1.1), so one of the values is lost or the document is rejected: remove or quote one",
			second.Value, first.Value, strconv.Quote(text))
		return
	}
	// kubectl (v1.32, checked against a real API server in controlplane/)
	// sends the last value and says nothing; kustomize (yaml.v3) refuses.
	who := "kustomize rejects the document, and kubectl silently keeps the last value (the first is lost)"
	if sameValue(firstEntry[1], secondEntry[1]) {
		who = "kustomize rejects the document; kubectl keeps the last value, the same as the first"
	}
	k1, _ := jsonValue(first)
	if k2, _ := jsonValue(second); k1 != k2 {
		// "1" and 1: two keys for YAML 1.1, one for YAML 1.2 and JSON.
		who = "kustomize rejects the document, and kubectl keeps only one of the values"
	}
	obj := w.p.Object
	kustomization := obj.IsKustomization()
	if kustomization {
		// kustomize decodes its kustomization as kubectl reads a
		// manifest (sigs.k8s.io/yaml), not with yaml.v3.
		who = "kustomize keeps the last value (the first is lost)"
		if sameValue(firstEntry[1], secondEntry[1]) {
			who = "kustomize keeps the last value, the same as the first"
		}
	}
	patch := obj.Patch && !kustomization
	if patch {
		// A strategic-merge patch is merged field by field from its
		// nodes: the first entry of a key is the one merged (kustomize
		// v5.8.2), and kubectl never reads the patch.
		who = "kustomize merges the first value and ignores this one"
		if sameValue(firstEntry[1], secondEntry[1]) {
			who = "kustomize merges the first value, the same as this one"
		}
	}
	f := w.p.Finding(second, path, nil, "key %s appears twice in this mapping: %s: remove one",
		manifest.Excerpt(second.Value), who)
	if kustomization || patch || obj.Kustomize == nil && !obj.Unrendered {
		// Accepted, a value silently lost: by kubectl applying the file
		// as written, or by kustomize reading its kustomization.
		f.Severity = analysis.Warning
	}
	w.p.ReportFinding(f)
}

// sameValue reports whether a and b are the same value as JSON reads
// them: a repeated entry whose values agree loses nothing.
func sameValue(a, b *yaml.Node) bool {
	ka, va := jsonValue(a)
	kb, vb := jsonValue(b)
	if ka != kb || ka == jsonUnknown {
		return false
	}
	for a.Kind == yaml.AliasNode && a.Alias != nil {
		a = a.Alias
	}
	for b.Kind == yaml.AliasNode && b.Alias != nil {
		b = b.Alias
	}
	switch ka {
	case jsonObject, jsonArray:
		return len(a.Content) == len(b.Content) && slices.EqualFunc(a.Content, b.Content, sameValue)
	}
	return va == vb
}

// merged reports the objects of document root n that start without a
// `---` separator (a top-level apiVersion or kind written again), each
// where it starts, naming the object before it, which is lost; false when
// there are none.
func (w *dupChecker) merged(n *yaml.Node) bool {
	var at [2][]int // entry indexes of apiVersion and kind
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == yaml.ScalarNode {
			switch k.Value {
			case "apiVersion":
				at[0] = append(at[0], i)
			case "kind":
				at[1] = append(at[1], i)
			}
		}
	}
	objects := max(len(at[0]), len(at[1]))
	if objects < 2 || strayRepeat(n, at) {
		return false
	}
	// The j-th object starts at the first of its apiVersion and kind.
	start := func(j int) int {
		s := len(n.Content)
		for _, a := range at {
			if j < len(a) {
				s = min(s, a[j])
			}
		}
		return s
	}
	for j := 1; j < objects; j++ {
		w.reportMerged(n, start(j-1), start(j))
	}
	return true
}

// reportMerged reports the object starting at entry to, which hides the
// one starting at entry from: named by its own kind and name.
func (w *dupChecker) reportMerged(n *yaml.Node, from, to int) {
	kind, name := "", ""
	for i := from; i < to; i += 2 {
		switch n.Content[i].Value {
		case "kind":
			kind = manifest.ScalarValue(n.Content[i+1])
		case "metadata":
			name = manifest.ScalarValue(manifest.MapGet(n.Content[i+1], "name"))
		}
	}
	first := "the object above"
	if kind != "" {
		first = kind
		if name != "" {
			first += "/" + name
		}
	}
	second := n.Content[to]
	obj := w.p.Object
	who := "kubectl keeps the last value of each key, so " + first + " above is lost"
	if obj.Kustomize != nil || obj.Unrendered {
		who = "kustomize rejects the document (kubectl, applying the file as written, keeps the last value of each key: " + first + " above is lost)"
	}
	f := w.p.Finding(second, second.Value, nil, "key %s appears again: another object starts here without a \"---\" separator, and they are read as one object: %s: add \"---\" before it, or delete the stale copy",
		manifest.Excerpt(second.Value), who)
	if obj.Kustomize == nil && !obj.Unrendered {
		f.Severity = analysis.Warning
	}
	w.p.ReportFinding(f)
}

// strayRepeat reports whether only one of apiVersion and kind is written
// again, each time with the value it had: one key repeated, not a second
// object (kustomize v5.8.2 and kubectl kustomize build a kustomization
// with a stray second apiVersion line). It is reported as a repeated key.
func strayRepeat(n *yaml.Node, at [2][]int) bool {
	if len(at[0]) >= 2 && len(at[1]) >= 2 {
		return false
	}
	rep := at[0]
	if len(at[1]) >= 2 {
		rep = at[1]
	}
	for _, i := range rep[1:] {
		if !sameValue(n.Content[rep[0]+1], n.Content[i+1]) {
			return false
		}
	}
	return true
}
