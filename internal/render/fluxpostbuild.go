package render

import (
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// FluxPostBuild is a Flux Kustomization of the tree whose spec.postBuild
// substitutes variables (substitute, substituteFrom) in what it applies:
// the roots its spec.path names. Each is an application of its own (two
// Flux Kustomizations may apply one root with different variables).
type FluxPostBuild struct {
	File      string // the Flux Kustomization's file (real path)
	Doc       int
	Name      string
	Namespace string     // metadata.namespace: where substituteFrom looks
	Node      *yaml.Node // the Flux Kustomization's mapping
	PostBuild *yaml.Node // its spec.postBuild
	Roots     []*Kustomization
	// Generated is the directory spec.path names when it holds no
	// kustomization (real path): Flux generates one listing its manifests
	// (see FluxApplication) and the roots below it (Roots); "" otherwise.
	Generated string
}

// FluxPostBuilds are the Flux Kustomizations in files (path -> bytes, as
// given to FluxApplies, which must have run) that substitute variables in
// roots of g or in a directory without a kustomization, which Flux
// generates.
func (g *Graph) FluxPostBuilds(files map[string][]byte) []*FluxPostBuild {
	var out []*FluxPostBuild
	for _, f := range slices.Sorted(maps.Keys(files)) {
		if !strings.Contains(string(files[f]), "postBuild") {
			continue
		}
		docs, _ := manifest.DocumentRoots(files[f])
		for di, doc := range docs {
			if doc == nil || doc.Kind != yaml.MappingNode || manifest.ScalarValue(mapGet(doc, "kind")) != "Kustomization" ||
				!strings.HasPrefix(manifest.ScalarValue(mapGet(doc, "apiVersion")), fluxGroup) {
				continue
			}
			spec := mapGet(doc, "spec")
			pb := mapGet(spec, "postBuild")
			if pb == nil || pb.Kind != yaml.MappingNode || mapGet(pb, "substitute") == nil && mapGet(pb, "substituteFrom") == nil {
				continue
			}
			roots, generated := g.fluxRoots(f, manifest.ScalarValue(mapGet(spec, "path")))
			if len(roots) == 0 && generated == "" {
				continue
			}
			out = append(out, &FluxPostBuild{File: f, Doc: di, Node: doc, PostBuild: pb, Roots: roots, Generated: generated,
				Name:      manifest.ScalarValue(manifest.Path(doc, "metadata", "name")),
				Namespace: manifest.ScalarValue(manifest.Path(doc, "metadata", "namespace"))})
		}
	}
	return out
}
