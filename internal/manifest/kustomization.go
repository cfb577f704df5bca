package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// Patches knows which files the kustomization in their directory uses as
// patches: those are partial objects. Safe for concurrent use; each
// directory's kustomization is read once.
type Patches struct {
	mu   sync.Mutex
	dirs map[string]map[string]bool
}

// IsPatch reports whether path is listed under patches,
// patchesStrategicMerge or patchesJson6902 of a kustomization in its
// directory or the two above it (`patches/deploy.yaml` is a common layout).
func (p *Patches) IsPatch(path string) bool {
	if path == Stdin {
		return false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dirs == nil {
		p.dirs = map[string]map[string]bool{}
	}
	dir := filepath.Dir(abs)
	for i := 0; i < 3; i++ {
		set, ok := p.dirs[dir]
		if !ok {
			set = readPatchList(dir)
			p.dirs[dir] = set
		}
		if set[abs] {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return false
}

func readPatchList(dir string) map[string]bool {
	for _, name := range kustomizationNames {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		var k struct {
			Patches []struct {
				Path string `yaml:"path"`
			} `yaml:"patches"`
			PatchesStrategicMerge []string `yaml:"patchesStrategicMerge"`
			PatchesJSON6902       []struct {
				Path string `yaml:"path"`
			} `yaml:"patchesJson6902"`
		}
		// A kustomization we cannot read only loses the patch hint; the
		// file itself is linted on its own and reports its own errors.
		_ = yaml.Unmarshal(data, &k)
		set := map[string]bool{}
		add := func(p string) {
			// Inline patches are YAML text, not paths.
			if p != "" && !strings.ContainsAny(p, "\n:") {
				set[filepath.Join(dir, p)] = true
			}
		}
		for _, p := range k.Patches {
			add(p.Path)
		}
		for _, p := range k.PatchesStrategicMerge {
			add(p)
		}
		for _, p := range k.PatchesJSON6902 {
			add(p.Path)
		}
		return set
	}
	return nil
}
