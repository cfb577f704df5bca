package render

import (
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// KustomizationDoc is the document of dir's kustomization as the graph
// parsed it, for manifest.Kustomizations (manifest.KnownDocs): the context
// of each linted file asks for the kustomizations beside it and above it,
// and without this every one of them is read and parsed a second time.
// ok only when the answer is exactly what reading the directory would
// give: the graph read dir from the disk, its first kustomization name
// (the one manifest reads first too), and the bytes parsed to a mapping.
// A directory the graph did not load, or whose kustomization failed to
// read or parse, is read by the caller as before.
func (g *Graph) KustomizationDoc(dir string) (*yaml.Node, bool) {
	if g == nil {
		return nil, false
	}
	real := g.Real(dir)
	g.mu.Lock()
	k := g.ByDir[real]
	g.mu.Unlock()
	if k == nil || k.Err != nil || k.Doc == nil || k.src.fsys != nil || filepath.Base(k.File) != KustomizationNames[0] {
		return nil, false
	}
	return k.Doc, true
}
