package render

import (
	"bytes"
	"errors"
	"path/filepath"
	"sync"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/scope"
	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// errReadOnly is what every write through readOnlyFS returns.
var errReadOnly = errors.New("shipshape renders read-only: kustomize may not write here")

// buildMetadata is what root kustomizations are read with when origins
// are traced (Renderer.trace): kustomize
// then records, on every object, the file it came from (originAnnotations)
// and every transformer that ran over it with the kustomization that
// configured it (transformerAnnotations). krusty copies the root's
// buildMetadata into every base and component it loads
// (KustTarget.accumulateDirectory), so setting it on the root is enough.
var buildMetadata = []string{"originAnnotations", "transformerAnnotations"}

// readOnlyFS is the file system krusty renders from: the disk, read once
// per file and shared by all roots of a Renderer (a base listed by ten
// overlays is read once), and never written.
type readOnlyFS struct {
	filesys.FileSystem // the disk, for the reads not overridden below

	files sync.Map // cleaned absolute path -> *cachedFile
	// What kustomize's loader asks about paths, once per path as asked:
	// it resolves every file and directory it loads (CleanedAbs: Abs,
	// then EvalSymlinks, a stat per path element) and a base listed by
	// ten overlays is loaded ten times. The disk does not change while a
	// Renderer is used (see NewRenderer).
	abs, dirs, exists sync.Map     // path -> *cachedAbs, *cachedBool, *cachedBool
	costs             sync.Map     // cleaned path -> *cachedCost (budget.go)
	scope             *scope.Scope // nothing outside it is read (scopefs.go)
	src               source       // the disk, or a revision (Graph.AtRevision)
	// virtual holds the in-memory files (helmfs.go), virtualDirs their
	// directories: path -> true.
	virtual, virtualDirs sync.Map
}

type cachedAbs struct {
	once sync.Once
	dir  filesys.ConfirmedDir
	file string
	err  error
}

type cachedBool struct {
	once sync.Once
	v    bool
}

// CleanedAbs is the disk's, once per path.
func (f *readOnlyFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	v, _ := f.abs.LoadOrStore(path, &cachedAbs{})
	c := v.(*cachedAbs)
	c.once.Do(func() {
		if !f.inScope(path) {
			c.err = outsideScope(path)
			return
		}
		c.dir, c.file, c.err = f.FileSystem.CleanedAbs(path)
	})
	return c.dir, c.file, c.err
}

// IsDir is the disk's, once per path.
func (f *readOnlyFS) IsDir(path string) bool {
	return once(&f.dirs, path, func(p string) bool { return f.inScope(p) && f.FileSystem.IsDir(p) })
}

// Exists is the disk's, once per path.
func (f *readOnlyFS) Exists(path string) bool {
	return once(&f.exists, path, func(p string) bool { return f.inScope(p) && f.FileSystem.Exists(p) })
}

func once(m *sync.Map, path string, ask func(string) bool) bool {
	v, _ := m.LoadOrStore(path, &cachedBool{})
	c := v.(*cachedBool)
	c.once.Do(func() { c.v = ask(path) })
	return c.v
}

type cachedFile struct {
	once sync.Once
	data []byte
	err  error
}

func newReadOnlyFS(sc *scope.Scope, from source) *readOnlyFS {
	f := &readOnlyFS{FileSystem: filesys.MakeFsOnDisk(), scope: sc, src: from}
	if from.fsys != nil {
		f.FileSystem = from.fsys
	}
	return f
}

// ReadFile returns the file's bytes, read from disk once. Callers may
// not modify the slice (kustomize does not; a copy per read would cost
// what the cache saves). Only a regular file is read: a FIFO listed as a
// resource fails the root instead of blocking it.
func (f *readOnlyFS) ReadFile(path string) ([]byte, error) {
	path = filepath.Clean(path)
	v, _ := f.files.LoadOrStore(path, &cachedFile{})
	c := v.(*cachedFile)
	c.once.Do(func() {
		if !f.inScope(path) {
			c.err = outsideScope(path)
			return
		}
		c.data, c.err = f.src.readRegular(path, manifest.NoSizeLimit)
	})
	return c.data, c.err
}

// tracingFS is readOnlyFS for one tracing build: the root kustomization
// (at its real path, as Graph.Load and kustomize name it) is read with
// buildMetadata; the files are never edited.
type tracingFS struct {
	*readOnlyFS
	root string
}

func (f tracingFS) ReadFile(path string) ([]byte, error) {
	data, err := f.readOnlyFS.ReadFile(path)
	if err == nil && filepath.Clean(path) == f.root {
		data, _ = withBuildMetadata(data)
	}
	return data, err
}

// withBuildMetadata returns the kustomization src with buildMetadata
// holding originAnnotations and transformerAnnotations, and the entries it
// had to add. The other lines keep their numbers (the key is appended or
// the list extended at its end), so kustomize's own messages about the
// file still point at the right line. A file that does not parse as a
// mapping is returned as is: kustomize will report it.
func withBuildMetadata(src []byte) ([]byte, []string) {
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil || len(doc.Content) == 0 {
		return src, nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return src, nil
	}
	have := map[string]bool{}
	var list *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "buildMetadata" {
			list = m.Content[i+1]
		}
	}
	for _, n := range seq(list) {
		have[n.Value] = true
	}
	var added []string
	for _, b := range buildMetadata {
		if !have[b] {
			added = append(added, b)
		}
	}
	if len(added) == 0 {
		return src, nil
	}
	if list == nil && m.Style&yaml.FlowStyle == 0 {
		// Block mapping: append the key at the end.
		var b bytes.Buffer
		b.Write(src)
		if len(src) > 0 && src[len(src)-1] != '\n' {
			b.WriteByte('\n')
		}
		b.WriteString("buildMetadata: [" + added[0])
		for _, a := range added[1:] {
			b.WriteString(", " + a)
		}
		b.WriteString("]\n")
		return b.Bytes(), added
	}
	// A flow mapping or an existing list: re-encode (rare; line numbers of
	// kustomize's messages about this file may then shift).
	if list == nil {
		list = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		m.Content = append(m.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "buildMetadata"}, list)
	}
	if list.Kind != yaml.SequenceNode {
		return src, nil
	}
	for _, a := range added {
		list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: a})
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return src, nil
	}
	return out, added
}

// The writes kustomize could attempt (a git clone's temporary directory,
// its cleanup) all fail: rendering never changes the disk.

func (f *readOnlyFS) Create(string) (filesys.File, error) { return nil, errReadOnly }
func (f *readOnlyFS) Mkdir(string) error                  { return errReadOnly }
func (f *readOnlyFS) MkdirAll(string) error               { return errReadOnly }
func (f *readOnlyFS) RemoveAll(string) error              { return errReadOnly }
func (f *readOnlyFS) WriteFile(string, []byte) error      { return errReadOnly }
