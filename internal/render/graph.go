package render

import (
	"cmp"
	"maps"
	"slices"
	"sort"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Questions about a discovered graph: the files a root reaches (and how:
// embedded, as a patch), the roots that read a file, the files no root
// reaches, and the labels a file's parents add to its selectors.

// Reaches returns the real paths (see Real) of the files root reaches (a
// shared slice: do not modify it): its
// kustomization files, resources, patches, components, generator and
// transformer configs and data files, sorted. Files that do not exist are
// left out (kustomize will fail on them).
func (g *Graph) Reaches(root *Kustomization) []string {
	g.mu.Lock()
	out, ok := g.reaches[root]
	g.mu.Unlock()
	if ok {
		return out
	}
	out = reaches(root)
	g.mu.Lock()
	if g.reaches == nil {
		g.reaches = map[*Kustomization][]string{}
	}
	g.reaches[root] = out
	g.mu.Unlock()
	return out
}

// Embedded returns the files root reaches only as generator data
// (RefEmbed): what they hold is a ConfigMap's or Secret's text, not
// objects kustomize reads, so they are judged as written, as whatever
// applies that text reads them.
func (g *Graph) Embedded(root *Kustomization) map[string]bool { return onlyAs(root, RefEmbed) }

// onlyAs returns the files root reaches as entries of kind, and as no
// other.
func onlyAs(root *Kustomization, kind RefKind) map[string]bool {
	as, other := map[string]bool{}, map[string]bool{}
	walkGraph(root, func(k *Kustomization) {
		for _, r := range k.Refs {
			if r.Target == nil && r.Path != "" {
				if r.Kind == kind {
					as[r.Path] = true
				} else {
					other[r.Path] = true
				}
			}
		}
	})
	for f := range other {
		delete(as, f)
	}
	return as
}

// SelectorLabels returns the labels that the kustomizations reaching
// file (real path) add to selectors (commonLabels, labels with
// includeSelectors): for a file judged as written because its root did not
// render, a parent's labels may complete its selectors. Any kustomization
// of the graph counts, whichever root it is rendered under; a parent,
// which reaches more files than the kustomizations it lists, applies its
// labels after theirs, so its value of a key wins. Call it once Discover
// has returned.
func (g *Graph) SelectorLabels(file string) map[string]string {
	g.labelledOnce.Do(func() {
		for _, k := range g.ByDir {
			if k != nil && k.Doc != nil {
				if labels := manifest.SelectorLabelsOf(k.Doc); labels != nil {
					g.labelled = append(g.labelled, labelled{k, labels})
				}
			}
		}
		slices.SortFunc(g.labelled, func(a, b labelled) int {
			return cmp.Or(cmp.Compare(len(g.Reaches(a.k)), len(g.Reaches(b.k))), cmp.Compare(a.k.Dir, b.k.Dir))
		})
	})
	var out map[string]string
	for _, l := range g.labelled {
		if _, found := slices.BinarySearch(g.Reaches(l.k), file); found {
			if out == nil {
				out = map[string]string{}
			}
			maps.Copy(out, l.labels)
		}
	}
	return out
}

// labelled is a kustomization that adds labels to selectors.
type labelled struct {
	k      *Kustomization
	labels map[string]string
}

// Patches returns the files root reaches only as patches (RefPatch): their
// objects are partial, merged into others, never applied as written.
func (g *Graph) Patches(root *Kustomization) map[string]bool { return onlyAs(root, RefPatch) }

func reaches(root *Kustomization) []string {
	set := map[string]bool{}
	walkGraph(root, func(k *Kustomization) {
		set[k.File] = true
		for _, r := range k.Refs {
			if r.Target == nil && r.Path != "" {
				if r.regular {
					set[r.Path] = true
				}
			}
		}
	})
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// RootsOf returns the roots of g that reach file: the applications to
// render again after a fix edits it.
func (g *Graph) RootsOf(file string) []*Kustomization {
	file = g.Real(file)
	var out []*Kustomization
	for _, r := range g.Roots {
		if slices.Contains(g.Reaches(r), file) {
			out = append(out, r)
		}
	}
	return out
}

// Plain returns the YAML files under the scanned directories that no root
// reaches: they are applications of their own, judged as written.
func (g *Graph) Plain(files []string) []string {
	reached := map[string]bool{}
	for _, r := range g.Roots {
		for _, f := range g.Reaches(r) {
			reached[f] = true
		}
	}
	var out []string
	for _, f := range files {
		if !reached[g.Real(f)] {
			out = append(out, f)
		}
	}
	return out
}
