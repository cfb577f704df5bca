package render

import "path/filepath"

// Override makes the Renderer read data for path instead of the disk:
// the fix driver renders again with the fixed bytes, before any is
// written, to verify them. Call it before rendering. kustomize reads
// through resolved directories, Locate through real paths: both names
// are overridden.
func (r *Renderer) Override(path string, data []byte) {
	c := &cachedFile{data: data}
	c.once.Do(func() {})
	r.fs.files.Store(filepath.Clean(path), c)
	r.fs.files.Store(r.graph.Real(path), c)
}
