package render

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Placing kustomize's errors: a root kustomize cannot build is reported
// at the entry of a kustomization its error message names (the first file
// it accumulates, a missing file, an undecodable base, a patch that
// matches nothing), with a hint where the message does not say the likely
// cause.

// missingFile is the first entry of root's graph (and its
// kustomization) that names a local file that does not exist: kustomize
// fails on it whatever the entries Refuse stops hold.
func missingFile(root *Kustomization) (*Kustomization, *Ref) {
	var in *Kustomization
	var missing *Ref
	walkGraph(root, func(k *Kustomization) {
		for _, r := range k.Refs {
			if missing != nil || r.Path == "" || r.Remote || r.Inline || r.Target != nil || r.Node == nil {
				continue
			}
			if k.src.missing(r.Path) {
				in, missing = k, r
			}
		}
	})
	return in, missing
}

// address is a pointer kustomize prints with %v in some messages
// ("merging from generator &{0x24a01c58ca90 <nil>}").
var address = lazyregexp.New(`\b0x[0-9a-f]{6,}\b`)

// withoutAddresses is msg with its pointers written 0x…: the same failure
// reads the same from run to run (CI diffs, baselines).
func withoutAddresses(msg string) string {
	return address.ReplaceAllString(msg, "0x…")
}

// failedAt places kustomize's error message at the entry of root's
// kustomization it names first (kustomize's messages start from the root:
// "accumulating resources from 'service.yaml': ..."), else at the entry
// whose file it could not read (generators and patches name only the
// path: "evalsymlink failure on '/abs/.env'"), or at the top of the file.
func (r *Renderer) failedAt(root *Kustomization, msg string) *Problem {
	// A base's kustomization kustomize could not decode: at its value, as
	// when that base is the root.
	if k, n := undecoded(root, msg); k != nil {
		return &Problem{File: k.File, Line: n.Line, Column: n.Column, Message: msg}
	}
	// A base (or a base's base) that failed on one of its own entries
	// (a file it lists that is missing): at that entry, the line to edit,
	// once for every root that reaches it.
	if k, r := deepestNamed(root, msg); k != root && r != nil {
		return &Problem{File: k.File, Line: r.Node.Line, Column: r.Node.Column, Message: msg}
	}
	// A failure named by what the entry holds, in root or below it.
	if file, n := r.namedEntry(root, msg); n != nil {
		return &Problem{File: file, Line: n.Line, Column: n.Column, Message: msg}
	}
	p := &Problem{File: root.File, Line: 1, Column: 1, Message: msg}
	for _, name := range []func(*Ref) string{
		func(r *Ref) string { return r.Value },
		func(r *Ref) string { return r.Path },
	} {
		best := -1
		for _, r := range root.Refs {
			if r.Inline || name(r) == "" {
				continue
			}
			// 'service.yaml', or a patch it cannot parse: [path: "patch.yaml"].
			for _, quoted := range []string{"'" + name(r) + "'", `[path: "` + name(r) + `"]`} {
				if i := strings.Index(msg, quoted); i >= 0 && (best < 0 || i < best) {
					best, p.Line, p.Column = i, r.Node.Line, r.Node.Column
				}
			}
		}
		if best >= 0 {
			return p
		}
	}
	// A strategic-merge patch that matches nothing is named by the
	// object it patches: "no resource matches strategic merge patch
	// \"Deployment.v1.apps/velero.[noNs]\"".
	if kind, name, ok := unmatchedPatch(msg); ok {
		for _, r := range root.Refs {
			if r.Kind == RefPatch && patchNames(root.src, r, kind, name) {
				p.Line, p.Column = r.Node.Line, r.Node.Column
				return p
			}
		}
		if file, at := inlinePatchNaming(root, kind, name); at != nil {
			p.File, p.Line, p.Column = file, at.Line, at.Column
			return p
		}
	}
	if n := decodeErrorAt(root.Doc, msg); n != nil {
		p.Line, p.Column = n.Line, n.Column
	}
	return p
}

var (
	// evanphx/json-patch: "add operation does not apply: doc is missing
	// path: \"/metadata/labels/x\": missing value".
	jsonPatchMissing = lazyregexp.New(`operation does not apply: doc is missing (?:path|key): "?(/[^"\s:]*)`)
	unmappedVar      = lazyregexp.New(`var '\{(\S+) `)
	unscalable       = lazyregexp.New(`resource with name (\S+) does not match a config with the following GVK`)
)

// namedEntry finds, in the kustomizations root reaches, the entry a
// failure names only by what it holds: the JSON patch op on a path the
// object lacks (in its patch file, or inline), the var kustomize cannot
// map, the replicas entry of an object it cannot scale; nil when the
// message is none of these.
func (r *Renderer) namedEntry(root *Kustomization, msg string) (file string, at *yaml.Node) {
	op, v, rep := jsonPatchMissing.FindStringSubmatch(msg), unmappedVar.FindStringSubmatch(msg), unscalable.FindStringSubmatch(msg)
	if op == nil && v == nil && rep == nil {
		return "", nil
	}
	entry := func(k *Kustomization, field, name string) *yaml.Node {
		for _, e := range seq(mapGet(k.Doc, field)) {
			if scalarOf(e, "name") == name {
				return e
			}
		}
		return nil
	}
	walkGraph(root, func(k *Kustomization) {
		switch {
		case at != nil || k.Doc == nil:
		case v != nil:
			file, at = k.File, entry(k, "vars", v[1])
		case rep != nil:
			file, at = k.File, entry(k, "replicas", rep[1])
		default:
			r.jsonOps(k, func(e patchEntry, o *yaml.Node) bool {
				if scalarOf(o, "path") == op[1] {
					file, at = e.file, o
				}
				return at != nil
			})
		}
	})
	return file, at
}

// deepestNamed follows the entries kustomize's message names one after
// the other ("accumulating resources from '../crd': ... accumulating
// resources from 'bases/quota.yaml': ... no such file") from root down
// through the kustomizations they are, and returns the last one named and
// the kustomization that lists it; r is nil when the message names no
// entry of root, or the entries go round a cycle.
func deepestNamed(root *Kustomization, msg string) (owner *Kustomization, r *Ref) {
	owner, k, rest := root, root, msg
	seen := map[*Kustomization]bool{root: true}
	for {
		var next *Ref
		best, after := -1, 0
		for _, c := range k.Refs {
			if c.Inline {
				continue
			}
			// As listed, or by the absolute path of a file it could not
			// read ("evalsymlink failure on '/abs/config.yaml'").
			for _, name := range []string{c.Value, c.Path} {
				if i := strings.Index(rest, "'"+name+"'"); name != "" && i >= 0 && (best < 0 || i < best) {
					best, after, next = i, i+len(name)+2, c
				}
			}
		}
		if next == nil {
			return owner, r
		}
		owner, r = k, next
		if next.Target == nil {
			return owner, r
		}
		if seen[next.Target] { // a cycle: the root's entry starts it
			return root, nil
		}
		seen[next.Target] = true
		k, rest = next.Target, rest[after:]
	}
}

// undecoded is the kustomization below root, along the entries kustomize's
// message names one after the other ("accumulating resources from
// '../base': ... couldn't make target for path 'base': invalid
// Kustomization: json: cannot unmarshal ..."), that it could not decode,
// and where in it; nil when that is root itself, or the message says
// nothing of the kind.
func undecoded(root *Kustomization, msg string) (*Kustomization, *yaml.Node) {
	const invalid = "invalid Kustomization: "
	end := strings.Index(msg, invalid)
	if end < 0 {
		return nil, nil
	}
	_, r := deepestNamed(root, msg[:end])
	if r == nil || r.Target == nil {
		return nil, nil
	}
	if n := decodeErrorAt(r.Target.Doc, msg); n != nil {
		return r.Target, n
	}
	return nil, nil
}

// hint explains two failures whose message does not say their likely
// cause: a file outside the root refused by the load restrictor Flux
// does not use, and patches with nothing to patch.
func (r *Renderer) hint(root *Kustomization, msg string) string {
	switch {
	case r.restricted(root) && strings.Contains(msg, outsideRoot):
		return "kustomize build and Argo CD refuse a file outside the root's directory by default; Flux loads it: set loadRestrictor: LoadRestrictionsNone in .shipshape.yaml if your engine does"
	case root.listsNothing() && (strings.Contains(msg, "no matches for Id") || strings.Contains(msg, "no resource matches")):
		return "the kustomization lists no resources, bases, components or generators: its patches have nothing to patch; is `resources: [../base]` missing?"
	}
	return ""
}

// unmatchedPatch reads the kind and name of the object a strategic-merge
// patch kustomize could not apply names: its resource id is
// KIND.VERSION.GROUP/NAME.NAMESPACE, a namespace having no dot.
func unmatchedPatch(msg string) (kind, name string, ok bool) {
	var id string
	for _, lead := range []string{
		`no resource matches strategic merge patch "`, // patchesStrategicMerge
		`failed to find unique target for patch `,     // patches: a path's object
	} {
		if i := strings.Index(msg, lead); i >= 0 {
			id = msg[i+len(lead):]
			if j := strings.IndexAny(id, "\" ;\n"); j >= 0 {
				id = id[:j]
			}
			break
		}
	}
	gvk, nn, found := strings.Cut(id, "/")
	j := strings.LastIndexByte(nn, '.')
	if !found || j <= 0 {
		return "", "", false
	}
	kind, _, _ = strings.Cut(gvk, ".")
	return kind, nn[:j], true
}

// inlinePatchNaming finds the `patches` entry written inline (`- patch:
// |`), in root or a kustomization below it, or in the spec.patches a Flux
// Kustomization adds to root, that holds a document of kind and name: its
// patch key.
func inlinePatchNaming(root *Kustomization, kind, name string) (file string, at *yaml.Node) {
	find := func(f string, list *yaml.Node) {
		for _, e := range seq(list) {
			key, v := manifest.MapEntry(e, "patch")
			if at == nil && v != nil && v.Kind == yaml.ScalarNode && patchNames(source{}, &Ref{Inline: true, Value: v.Value}, kind, name) {
				file, at = f, key
			}
		}
	}
	walkGraph(root, func(k *Kustomization) { find(k.File, mapGet(k.Doc, "patches")) })
	for _, f := range root.appendedPatches() {
		if at == nil {
			find(f.File, f.List)
		}
	}
	return file, at
}

// patchNames reports whether the patch entry r holds a document of kind
// and name: in its file, or written inline.
func patchNames(from source, r *Ref, kind, name string) bool {
	var src []byte
	if r.Inline {
		src = []byte(r.Value)
	} else if data, err := from.read(r.Path); err == nil {
		src = data
	}
	docs, _ := manifest.DocumentRoots(src) // those before an error count
	for _, doc := range docs {
		if doc != nil && scalarOf(doc, "kind") == kind && scalarOf(mapGet(doc, "metadata"), "name") == name {
			return true
		}
	}
	return false
}
