package render

import (
	"bytes"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resource"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/scope"
)

// Reading one kustomization: its document and the entries that name other
// files (resources, components, patches, generator and config files), as
// Refs of the graph.

// readKustomization reads the kustomization file of dir, or returns nil.
// Like kustomize, the first recognised name wins for reading; kustomize
// itself reports a directory holding several. A kustomization file that
// links out of sc is not read: the walk reports the link, and the root
// fails to render with the reason. Its parse is kept (when kept is set).
//
// listed, when not nil, answers from a walk's listing whether file is a
// regular file that is no link, in a directory whose real path is itself
// (ok false: it cannot say). Such a path holds no link from the file
// system's root down, so scope.Resolve would find it inside the scope
// exactly when it is there by name (scope.Holds): neither needs a stat.
func readKustomization(dir string, from source, sc *scope.Scope, kept *parses, listed func(file string) (regular, ok bool)) *Kustomization {
	for _, name := range KustomizationNames {
		file := filepath.Join(dir, name)
		regular, known := false, false
		if listed != nil {
			regular, known = listed(file)
		}
		if !known {
			regular = from.regular(file)
		}
		if !regular {
			continue
		}
		k := &Kustomization{Dir: dir, File: file, Kind: "Kustomization", src: from}
		if from.fsys == nil && sc != nil && !(known && sc.Holds(file)) && !sc.Contains(file) {
			k.Err = outsideScope(file)
			return k
		}
		src, err := from.read(file)
		if err != nil {
			k.Err = err
			return k
		}
		k.Src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
		doc, err := kept.parse(k.Src)
		if err != nil {
			k.Err = err
			return k
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			return k
		}
		k.Doc = doc.Content[0]
		if v := mapGet(k.Doc, "kind"); v != nil && v.Value != "" {
			k.Kind = v.Value
		}
		k.Refs = refsOf(k)
		return k
	}
	return nil
}

// refsOf lists the path-like entries of k in the order kustomize reads
// its fields.
func refsOf(k *Kustomization) []*Ref {
	var refs []*Ref
	add := func(kind RefKind, field string, n *yaml.Node) {
		if n == nil || n.Kind != yaml.ScalarNode || n.Value == "" {
			return
		}
		r := &Ref{Kind: kind, Field: field, Value: n.Value, Node: n}
		switch {
		case isInline(n):
			r.Inline = true
		case IsRemote(n.Value):
			r.Remote = true
		case filepath.IsAbs(n.Value):
			r.Path = filepath.Clean(n.Value)
		default:
			r.Path = filepath.Join(k.Dir, n.Value)
		}
		refs = append(refs, r)
	}
	list := func(kind RefKind, field string) {
		for _, n := range seq(mapGet(k.Doc, field)) {
			add(kind, field, n)
		}
	}
	list(RefResource, "resources")
	list(RefResource, "bases")
	list(RefComponent, "components")
	for _, n := range seq(mapGet(k.Doc, "patchesStrategicMerge")) {
		add(RefPatch, "patchesStrategicMerge", n)
	}
	for _, field := range []string{"patches", "patchesJson6902"} {
		for _, p := range seq(mapGet(k.Doc, field)) {
			add(RefPatch, field+".path", mapGet(p, "path"))
		}
	}
	for _, field := range []string{"configMapGenerator", "secretGenerator"} {
		for _, gen := range seq(mapGet(k.Doc, field)) {
			for _, f := range seq(mapGet(gen, "files")) {
				// files entries are `path` or `key=path`.
				if i := strings.Index(f.Value, "="); i >= 0 {
					c := *f
					c.Value = f.Value[i+1:]
					add(RefEmbed, field+".files", &c)
					continue
				}
				add(RefEmbed, field+".files", f)
			}
			for _, e := range seq(mapGet(gen, "envs")) {
				add(RefEmbed, field+".envs", e)
			}
			add(RefEmbed, field+".env", mapGet(gen, "env"))
		}
	}
	for _, r := range seq(mapGet(k.Doc, "replacements")) {
		add(RefData, "replacements.path", mapGet(r, "path"))
	}
	add(RefData, "openapi.path", mapGet(mapGet(k.Doc, "openapi"), "path"))
	list(RefData, "configurations")
	list(RefData, "crds")
	list(RefConfig, "generators")
	list(RefConfig, "transformers")
	list(RefConfig, "validators")
	return refs
}

// isInline reports whether an entry that may be a path or YAML text
// (patchesStrategicMerge, generators, transformers) is YAML text: several
// lines, a block scalar, or a `key: value` pair.
func isInline(n *yaml.Node) bool {
	return strings.Contains(n.Value, "\n") || strings.Contains(n.Value, ": ") ||
		n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
}

// IsRemote reports whether kustomize would fetch path over the network:
// an http(s) URL (its loader's IsRemoteFile) or anything its git
// repository-spec parser accepts (github.com/org/repo, git@host:...,
// https://host/repo.git, ?ref=...). The repository-spec parser is
// internal to kustomize; resource.Origin.Append runs it on the path and
// records Repo exactly when it accepts it, so the answer is kustomize's
// own, not a guess. A few spellings the parser rejects but a reader would
// still call remote (ssh://, git::, file://) are refused too.
func IsRemote(path string) bool {
	if known, ok := remoteAnswers.Load(path); ok {
		return known.(bool)
	}
	remote := isRemote(path)
	remoteAnswers.Store(path, remote)
	return remote
}

// remoteAnswers keeps IsRemote's answer per entry. kustomize's parser
// compiles a regular expression on every call (git.extractUsername): 6 %
// of a warm pre-commit run over 2,000 files, for a few hundred distinct
// entries ("../base" in every overlay).
var remoteAnswers sync.Map

func isRemote(path string) bool {
	if u, err := url.Parse(path); err == nil && len(u.Scheme) > 1 && strings.Contains(path, "://") {
		// Any scheme (http, https, ssh, git, file, s3...) is not a local
		// path; a single letter is a Windows drive.
		return true
	}
	if strings.HasPrefix(path, "git@") || strings.HasPrefix(path, "git::") {
		return true
	}
	return (&resource.Origin{}).Append(path).Repo != ""
}

// mapGet is manifest.MapGet, short for the many lookups here.
var mapGet = manifest.MapGet

// seq returns the items of a sequence node (nil for anything else).
func seq(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}
