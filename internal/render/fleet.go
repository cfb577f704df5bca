package render

import (
	"bytes"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// fleetOverlay returns the refusal of a root that Rancher Fleet renders
// over a Helm chart, or nil: a fleet.yaml in the root's directory or
// above it (one the scan met, or above the scanned tree up to its
// repository) sets helm and names the root's directory as
// kustomize.dir, its own or a target customization's. Fleet
// runs helm (which may download the chart) and applies the
// kustomization to the chart's output, so the kustomization alone is
// not what Fleet applies: `kustomize build` of it fails ("no matches for
// Id") or misses the chart's objects. The problem is placed at the dir
// entry of fleet.yaml.
func (g *Graph) fleetOverlay(root *Kustomization) *Problem {
	g.mu.Lock()
	none := len(g.fleet) == 0
	g.mu.Unlock()
	if none {
		return nil // the common case: no system call per root
	}
	for dir := root.Dir; ; {
		g.mu.Lock()
		has := g.fleet[dir]
		g.mu.Unlock()
		if file := filepath.Join(dir, "fleet.yaml"); has && g.scope.Holds(g.Real(file)) {
			if n := fleetDirEntry(file, root.Dir, g.Real); n != nil {
				return &Problem{File: file, Line: n.Line, Column: n.Column, Refused: true, Unrendered: analysis.HelmRelease, Entry: n.Value,
					Message: "not rendered: Fleet renders this kustomization over the Helm chart of fleet.yaml (helm and kustomize.dir); shipshape never runs helm or reaches the network (lint the chart's output: helm template | shipshape lint -)"}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

// noteFleet records that dir holds a fleet.yaml.
func (g *Graph) noteFleet(dir string) {
	real := g.Real(dir)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fleet == nil {
		g.fleet = map[string]bool{}
	}
	g.fleet[real] = true
}

// fleetDirEntry returns the kustomize.dir node of the fleet.yaml at path
// that names dir (a real directory) in a part that also sets helm, or
// nil. A fleet.yaml that cannot be read or parsed names nothing: Fleet
// reports it itself.
func fleetDirEntry(path, dir string, real func(string) string) *yaml.Node {
	data, err := manifest.ReadRegular(path, manifest.NoSizeLimit)
	if err != nil || !bytes.Contains(data, []byte("helm")) {
		return nil
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	top := doc.Content[0]
	base := filepath.Dir(path)
	names := func(part *yaml.Node, helm bool) *yaml.Node {
		n := mapGet(mapGet(part, "kustomize"), "dir")
		if !helm || n == nil || n.Kind != yaml.ScalarNode || n.Value == "" {
			return nil
		}
		if real(filepath.Join(base, n.Value)) != dir {
			return nil
		}
		return n
	}
	helm := mapGet(top, "helm") != nil
	if n := names(top, helm); n != nil {
		return n
	}
	if targets := mapGet(top, "targetCustomizations"); targets != nil && targets.Kind == yaml.SequenceNode {
		for _, t := range targets.Content {
			if n := names(t, helm || mapGet(t, "helm") != nil); n != nil {
				return n
			}
		}
	}
	return nil
}
