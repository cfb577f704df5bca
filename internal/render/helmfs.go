package render

import (
	"errors"
	"fmt"
	"path/filepath"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// How a root's helmCharts reach krusty (see helmcharts.go): the rendered
// objects in an in-memory file of the Renderer's file system, the one
// resource of an in-memory component directory, and, for this build only,
// each kustomization with helmCharts read without its helm fields and with
// that directory as its first component. Why a component: kustomize's
// HelmChartInflationGenerator runs after the configMapGenerator and
// secretGenerator, before the components (KustTarget.accumulateTarget:
// resources, generators, components, transformers), and a first component
// is accumulated just there; a resource would come before the generators'
// objects (visible with sortOptions fifo).

// addVirtual makes path a file of f holding data, though the disk has
// none: kustomize's loader resolves it (CleanedAbs), finds it (Exists) and
// reads it like any resource file, and Locate reads it back.
func (f *readOnlyFS) addVirtual(path string, data []byte) {
	path = filepath.Clean(path)
	c := &cachedFile{data: data}
	c.once.Do(func() {})
	f.files.Store(path, c)
	f.virtual.Store(path, true)
}

func (f *readOnlyFS) isVirtual(path string) bool {
	_, ok := f.virtual.Load(filepath.Clean(path))
	return ok
}

// addVirtualDir makes path a directory of f (helmChartsDir), though the
// disk has none: kustomize's loader confirms a component's directory
// (IsDir, CleanedAbs) before it reads the kustomization in it.
func (f *readOnlyFS) addVirtualDir(path string) { f.virtualDirs.Store(filepath.Clean(path), true) }

func (f *readOnlyFS) isVirtualDir(path string) bool {
	_, ok := f.virtualDirs.Load(filepath.Clean(path))
	return ok
}

// IsHelmOutput reports whether file is the in-memory file of rendered
// helmCharts, and what it holds.
func (r *Renderer) IsHelmOutput(file string) (*HelmOutput, bool) {
	v, ok := r.helmOut.Load(filepath.Clean(file))
	if !ok {
		return nil, false
	}
	return v.(*HelmOutput), true
}

// helmBuild is what one build of a root reads differently for its
// helmCharts: the kustomizations to rewrite (by file), and the in-memory
// file each one's objects come from.
type helmBuild struct {
	rewrite map[string]string // kustomization file -> its helm output file
	files   map[*Kustomization]string
}

// prepareHelm renders the helmCharts of every kustomization root reaches,
// each with the namespace kustomize gives its charts (the entry's, else
// the kustomization's, else the nearest parent's that sets one), and says
// how the build reads them; nil when root reaches no helmCharts.
func (r *Renderer) prepareHelm(root *Kustomization) (*helmBuild, error) {
	var b *helmBuild
	inheritedBy := map[*Kustomization]string{}
	var err error
	var walk func(k *Kustomization, inherited string)
	walk = func(k *Kustomization, inherited string) {
		if k == nil || k.Doc == nil || err != nil {
			return
		}
		if prev, seen := inheritedBy[k]; seen {
			if prev != inherited && len(seq(mapGet(k.Doc, "helmCharts"))) > 0 {
				n := mapGet(k.Doc, "helmCharts")
				err = &HelmChartError{File: k.File, Line: n.Line, Column: n.Column,
					Message: fmt.Sprintf("helmCharts: this kustomization is reached twice, with namespaces %q and %q passed down: not rendered", prev, inherited)}
			}
			return
		}
		inheritedBy[k] = inherited
		if len(seq(mapGet(k.Doc, "helmCharts"))) > 0 {
			out, e := r.renderHelmCharts(k, inherited, r.restricted(root))
			if e != nil {
				err = e
				return
			}
			if b == nil {
				b = &helmBuild{rewrite: map[string]string{}, files: map[*Kustomization]string{}}
			}
			b.rewrite[filepath.Clean(k.File)] = out.File
			b.files[k] = out.File
		}
		down := scalarOf(k.Doc, "namespace")
		if down == "" {
			down = inherited
		}
		for _, ref := range k.Refs {
			if ref.Kind == RefResource || ref.Kind == RefComponent {
				walk(ref.Target, down)
			}
		}
	}
	walk(root, "")
	return b, err
}

// helmFS is a build's file system with its kustomizations rewritten for
// helmCharts (see helmBuild) and the in-memory files resolved.
type helmFS struct {
	filesys.FileSystem
	disk  *readOnlyFS
	build *helmBuild
}

func (f helmFS) ReadFile(path string) ([]byte, error) {
	data, err := f.FileSystem.ReadFile(path)
	if err != nil || f.build == nil {
		return data, err
	}
	if out, ok := f.build.rewrite[filepath.Clean(path)]; ok {
		return withHelmOutput(data, filepath.Base(filepath.Dir(out)))
	}
	return data, err
}

func (f helmFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	if f.disk.isVirtualDir(path) {
		return filesys.ConfirmedDir(filepath.Clean(path)), "", nil
	}
	if f.disk.isVirtual(path) {
		return filesys.ConfirmedDir(filepath.Dir(filepath.Clean(path))), filepath.Base(path), nil
	}
	return f.FileSystem.CleanedAbs(path)
}

func (f helmFS) Exists(path string) bool {
	return f.disk.isVirtual(path) || f.disk.isVirtualDir(path) || f.FileSystem.Exists(path)
}

func (f helmFS) IsDir(path string) bool {
	return f.disk.isVirtualDir(path) || !f.disk.isVirtual(path) && f.FileSystem.IsDir(path)
}

// withHelmOutput is the kustomization src without helmCharts and
// helmGlobals, and with the component directory dir (a name relative to
// the kustomization) as its first component: the rendered objects are
// accumulated after the resources and generators, before the components.
func withHelmOutput(src []byte, dir string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return src, nil // kustomize reports it
	}
	m := doc.Content[0]
	kept := m.Content[:0:0]
	var components *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		switch m.Content[i].Value {
		case "helmCharts", "helmGlobals":
			continue
		case "components":
			components = m.Content[i+1]
		}
		kept = append(kept, m.Content[i], m.Content[i+1])
	}
	entry := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: dir}
	switch {
	case components == nil:
		kept = append(kept, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "components"},
			&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{entry}})
	case components.Kind == yaml.SequenceNode:
		components.Content = append([]*yaml.Node{entry}, components.Content...)
	default:
		// `components: ~` or a mistake kustomize reports: a list of the one.
		*components = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{entry}}
	}
	m.Content = kept
	return yaml.Marshal(&doc)
}

// fileOf is the in-memory file of k's rendered helmCharts in this build,
// or "".
func (b *helmBuild) fileOf(k *Kustomization) string {
	if b == nil {
		return ""
	}
	return b.files[k]
}

// helmProblem is the Problem of a helmCharts entry not rendered.
func helmProblem(err error) *Problem {
	var he *HelmChartError
	if !errors.As(err, &he) {
		return &Problem{Message: err.Error()}
	}
	return &Problem{File: he.File, Line: he.Line, Column: he.Column, Refused: he.Refused, Unrendered: he.Unrendered, Entry: "helmCharts", Message: he.Message}
}
